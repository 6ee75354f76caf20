import Foundation

/// Runs a blocking system call (getaddrinfo, a connect or accept with a timeout, BlueZ's
/// SDP calls) on a thread of its own, so it never holds one of the cooperative pool's few
/// threads (two on a two-core machine).
///
/// Cancelling the waiting task returns at once with `onCancel()`; the call itself runs to its
/// end on its thread, and `discard` disposes of a result nobody waits for any more (say, closes
/// a socket that connected too late).
enum BlockingCall {
    static func run<Value: Sendable>(
        _ name: String,
        discard: @escaping @Sendable (Value) -> Void = { _ in },
        onCancel: @escaping @Sendable () -> TransportError,
        _ body: @escaping @Sendable () throws(TransportError) -> Value
    ) async throws(TransportError) -> Value {
        let slot = Locked<CheckedContinuation<Result<Value, TransportError>, Never>?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, TransportError>, Never>) in
                slot.withLock { $0 = continuation }
                Thread.start(named: name) {
                    let outcome: Result<Value, TransportError>
                    outcome = Result { () throws(TransportError) -> Value in try body() }
                    if let waiting = slot.withLock({ $0.take() }) {
                        waiting.resume(returning: outcome)
                    } else if case .success(let value) = outcome {
                        discard(value)
                    }
                }
                if Task.isCancelled, let waiting = slot.withLock({ $0.take() }) {
                    waiting.resume(returning: .failure(onCancel()))
                }
            }
        } onCancel: {
            slot.withLock { $0.take() }?.resume(returning: .failure(onCancel()))
        }
        return try result.get()
    }
}
