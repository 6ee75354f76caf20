/// A socket's reads for the one consumer that takes them straight from the reader thread:
/// the link's own reader (``LinkIO``), in place of ``StreamSocketTransport/incoming``.
///
/// `AsyncThrowingStream` is generic code the standard library runs unspecialised: in a
/// profile of Show round trips its yield and next, with their generic-metadata lookups,
/// were 7% of the reader thread's time. This hands each read over with one lock and one
/// continuation, and keeps reads that arrive while the consumer is busy, in order.
package final class SocketReads: Sendable {
    private struct State {
        var ready: [[UInt8]] = []
        var next = 0
        /// How the reads ended: nil while they go on, `.success` for an end in order.
        var end: Result<Void, TransportError>?
        var waiter: UnsafeContinuation<[UInt8]?, any Error>?

        /// The next read, or the end once every read was taken; nil when there is neither yet.
        mutating func take() -> Result<[UInt8]?, TransportError>? {
            if next < ready.count {
                defer {
                    next += 1
                    if next == ready.count { ready.removeAll(keepingCapacity: true); next = 0 }
                }
                return .success(ready[next])
            }
            switch end {
            case nil: return nil
            case .success: return .success(nil)
            case .failure(let error): return .failure(error)
            }
        }
    }

    private let state = Locked(State())

    /// Whether the consumer is waiting for a read (tests).
    var isAwaited: Bool { state.withLock { $0.waiter != nil } }

    /// The next read; nil once the socket ended in order, the error if it failed. One consumer.
    /// It ends when the socket closes (closing the link always closes it), not on cancellation.
    package func next() async throws(TransportError) -> [UInt8]? {
        if let ready = state.withLock({ $0.take() }) { return try ready.get() }
        do {
            return try await withUnsafeThrowingContinuation { (waiter: UnsafeContinuation<[UInt8]?, any Error>) in
                let ready = state.withLock { state -> Result<[UInt8]?, TransportError>? in
                    if let ready = state.take() { return ready }
                    state.waiter = waiter
                    return nil
                }
                if let ready { waiter.resume(with: ready.mapError { $0 }) }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError.closed("\(error)")
        }
    }

    /// The reader thread: one read.
    func deliver(_ bytes: [UInt8]) {
        let waiter = state.withLock { state -> UnsafeContinuation<[UInt8]?, any Error>? in
            guard let waiter = state.waiter else {
                state.ready.append(bytes)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: bytes)
    }

    /// The reader thread: no more reads, with the error when the link failed.
    func finish(_ error: TransportError?) {
        let waiter = state.withLock { state -> UnsafeContinuation<[UInt8]?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }
}
