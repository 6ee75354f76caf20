#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A connected stream socket (TCP, or an RFCOMM/Unix socket handed over as a descriptor).
///
/// No call on it ever blocks a thread of Swift's cooperative pool:
/// - Reads: a thread of the link's own blocks in `recv` and feeds ``incoming``, one system
///   call per read (measured in `sdl-benchmark`: a `poll` loop on a non-blocking descriptor cost a
///   third more per round trip). A task that prefers `readerExecutor` runs on that thread
///   when a read resumes it, with no other thread to wake.
/// - Writes: `send` writes with `MSG_DONTWAIT` from the caller. The kernel usually takes all
///   of it, so the common case costs no thread hop. What it does not take is queued behind
///   earlier writes; a flusher thread, alive only while something is queued, waits in `poll`
///   for room and writes it, and the caller suspends until its bytes are out.
/// - Close: `shutdown(2)` wakes both threads and queued writes fail at once, so a peer that
///   stopped reading can hold neither `close()` nor a sender. The last thread out closes the
///   descriptor, so its number cannot be reused while a thread still uses it.
public final class StreamSocketTransport: SDLTransport {
    public let description: String
    /// The kind given at creation (TCP, or Bluetooth for an RFCOMM socket).
    public let kind: TransportKind
    public let incoming: AsyncThrowingStream<[UInt8], any Error>

    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Where the consumer of ``incoming`` runs best (see ``ReaderThreadExecutor``).
    package let readerExecutor = ReaderThreadExecutor()
    private let state = Locked(SocketState())
    private let readSize: Int

    private struct SocketState {
        var fd: Int32 = -1
        var readerStarted = false
        var flusherRunning = false
        /// Threads using the descriptor; the last one out closes it.
        var threads = 0
        /// Why the link is unusable (closed by us, by the peer, or failed); writes fail with it.
        var failure: String?
        /// close() was called: the end of the link is no error.
        var closedByUs = false
        var writes: [PendingWrite] = []
        var nextWriteID = 0
        /// Callers of waitUntilQueued(atMost:), with their limits.
        var roomWaiters: [(limit: Int, waiter: CheckedContinuation<Void, Never>)] = []
        /// The consumer that takes reads directly, if one did before reading started.
        var reads: SocketReads?
    }

    private struct PendingWrite {
        var id: Int
        var bytes: [UInt8]
        var offset: Int
        var waiter: CheckedContinuation<Void, any Error>?
    }

    /// A link whose descriptor comes later, from `attach(_:)` (a connect or accept step).
    public init(description: String, kind: TransportKind, readSize: Int = 64 * 1024) {
        self.description = description
        self.kind = kind
        self.readSize = readSize
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    /// Wraps a connected descriptor; the transport owns and closes it. Reading starts on ``open()``.
    public convenience init(connectedDescriptor: Int32, description: String, kind: TransportKind, readSize: Int = 64 * 1024) {
        self.init(description: description, kind: kind, readSize: readSize)
        state.withLock { $0.fd = Self.prepared(connectedDescriptor) }
    }

    /// The socket a transport reads and writes through, if it is one (TCP, Bluetooth).
    package static func under(_ transport: any SDLTransport) -> StreamSocketTransport? {
        (transport as? TCPTransport)?.socket ?? (transport as? StreamSocketTransport) ?? (transport as? BluetoothTransport)?.socket
    }

    deinit {
        // Threads hold the transport, so none runs now.
        let fd = state.withLock { $0.fd }
        if fd >= 0 { _ = systemClose(fd) }
    }

    /// Hands every read from now on to the returned ``SocketReads`` instead of ``incoming``
    /// (which then only ends with the link). Nil once reading has started: reads may have
    /// gone to `incoming` already, and the caller must take them from there.
    package func takeReads() -> SocketReads? {
        state.withLock { state in
            guard !state.readerStarted, state.reads == nil, !state.closedByUs else { return nil }
            state.reads = SocketReads()
            return state.reads
        }
    }

    /// Starts the reader thread on the descriptor given at init.
    public func open() async throws(TransportError) {
        startReader()
    }

    /// Takes over a connected descriptor and starts reading from it.
    func attach(_ descriptor: Int32) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closedByUs, state.fd < 0 else { return false }
            state.fd = Self.prepared(descriptor)
            return true
        }
        if accepted { startReader() } else { _ = systemClose(descriptor) }
    }

    private static func prepared(_ fd: Int32) -> Int32 {
        // Blocking, for the reader's recv; writes pass MSG_DONTWAIT.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    private func startReader() {
        let descriptor: Int32? = state.withLock { state in
            guard state.failure == nil, state.fd >= 0, !state.readerStarted else { return nil }
            state.readerStarted = true
            state.threads += 1
            return state.fd
        }
        guard let descriptor else { return }
        Thread.start(named: "sdl-read") { [self] in read(descriptor) }
    }

    // MARK: - Writing

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        guard let id = try queue(bytes) else { return }
        // Bytes once queued are part of the stream: cancelling a send does not take them back.
        do {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, TransportError>? = state.withLock { state in
                    if let index = state.writes.firstIndex(where: { $0.id == id }) {
                        state.writes[index].waiter = waiter
                        return nil
                    }
                    // Already written, or failed and removed: failure says which.
                    return state.failure.map { .failure(.closed($0)) } ?? .success(())
                }
                if let outcome { waiter.resume(with: outcome) }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError.closed("\(description): \(error)")
        }
    }

    /// Queues bytes behind everything sent or queued before, without waiting: the driver's
    /// outbox on a socket. A failure shows as the end of ``incoming``.
    package func enqueue(_ bytes: [UInt8]) {
        _ = try? queue(bytes)
    }

    /// Bytes accepted by ``send(_:)`` or ``enqueue(_:)`` that the kernel has not taken yet.
    package var queuedByteCount: Int {
        state.withLock { $0.writes.reduce(0) { $0 + $1.bytes.count - $1.offset } }
    }

    /// Suspends while more than `limit` bytes are queued (a slow or stalled peer), or until
    /// the link fails.
    package func waitUntilQueued(atMost limit: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.failure == nil, Self.queued(state) > limit else { return true }
                state.roomWaiters.append((limit, waiter))
                return false
            }
            if now { waiter.resume() }
        }
    }

    private static func queued(_ state: SocketState) -> Int {
        state.writes.reduce(0) { $0 + $1.bytes.count - $1.offset }
    }

    /// Writes what the kernel takes now and queues the rest behind earlier writes, in one step
    /// under the lock so that no other write can slip in between. Returns the id of the queued
    /// write, or nil when everything went out.
    private func queue(_ bytes: [UInt8]) throws(TransportError) -> Int? {
        let queued: Result<(id: Int, startFlusher: Int32?)?, TransportError> = state.withLock { state in
            if let failure = state.failure { return .failure(.closed(failure)) }
            guard state.fd >= 0 else { return .failure(.closed("\(description) is not open")) }
            var offset = 0
            if state.writes.isEmpty {
                switch Self.write(state.fd, bytes, from: 0) {
                case .success(let written): offset = written
                case .failure(let message): return .failure(.closed(fail(&state, "write failed: \(message)")))
                }
                if offset == bytes.count { return .success(nil) }
            }
            defer { state.nextWriteID += 1 }
            state.writes.append(PendingWrite(id: state.nextWriteID, bytes: bytes, offset: offset, waiter: nil))
            var flusher: Int32?
            if !state.flusherRunning {
                state.flusherRunning = true
                state.threads += 1
                flusher = state.fd
            }
            return .success((state.nextWriteID, flusher))
        }
        guard let (id, startFlusher) = try queued.get() else { return nil }
        if let fd = startFlusher {
            Thread.start(named: "sdl-write") { [self] in flush(fd) }
        }
        return id
    }

    private enum WriteOutcome { case success(Int), failure(String) }

    /// Non-blocking writes from `offset` until done or the kernel is full; the new offset.
    private static func write(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> WriteOutcome {
        var offset = offset
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in systemSend(fd, raw.baseAddress! + offset, bytes.count - offset, dontWait: true) }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { break }
            return .failure(String(cString: strerror(code)))
        }
        return .success(offset)
    }

    /// Marks the link failed and wakes both threads; the caller holds the lock.
    private func fail(_ state: inout SocketState, _ reason: String) -> String {
        if state.failure == nil { state.failure = "\(description): \(reason)" }
        // Nothing will drain any more: whoever waits for room goes on (and meets the failure).
        for (_, waiter) in state.roomWaiters { waiter.resume() }
        state.roomWaiters.removeAll()
        if state.fd >= 0 { _ = shutdown(state.fd, Int32(SHUT_RDWR)) }
        return state.failure!
    }

    /// The flusher thread: waits for room and writes the queue in order, then ends.
    private func flush(_ fd: Int32) {
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&pfd, 1, -1) < 0, errno == EINTR { continue }
            var finished: [CheckedContinuation<Void, any Error>] = []
            var failed: (waiters: [CheckedContinuation<Void, any Error>], reason: String)?
            var rooms: [CheckedContinuation<Void, Never>] = []
            let done = state.withLock { state -> Bool in
                while state.failure == nil, !state.writes.isEmpty {
                    switch Self.write(fd, state.writes[0].bytes, from: state.writes[0].offset) {
                    case .success(let offset): state.writes[0].offset = offset
                    case .failure(let message): _ = fail(&state, "write failed: \(message)")
                    }
                    guard state.failure == nil, state.writes[0].offset == state.writes[0].bytes.count else { break }
                    if let waiter = state.writes.removeFirst().waiter { finished.append(waiter) }
                }
                if let failure = state.failure {
                    failed = (state.writes.compactMap(\.waiter), failure)
                    state.writes.removeAll()
                }
                let queued = Self.queued(state)
                rooms = state.roomWaiters.filter { queued <= $0.limit }.map(\.waiter)
                state.roomWaiters.removeAll { queued <= $0.limit }
                guard state.writes.isEmpty else { return false }
                state.flusherRunning = false
                return true
            }
            for waiter in finished { waiter.resume() }
            for waiter in rooms { waiter.resume() }
            if let failed { for waiter in failed.waiters { waiter.resume(throwing: TransportError.closed(failed.reason)) } }
            if done { return releaseDescriptor() }
        }
    }

    // MARK: - Reading

    private func read(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: readSize)
        var readError: String?
        let reads = state.withLock { $0.reads }
        readerExecutor.readerStarted()
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, readSize, 0) }
            if count > 0 {
                let chunk = Array(buffer[0..<count])
                if let reads { reads.deliver(chunk) } else { continuation.yield(chunk) }
                readerExecutor.runReadyJobs()
                continue
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                readError = "read failed: \(String(cString: strerror(code)))"
            }
            break
        }
        // The end is an error unless we closed, or the peer closed in order.
        let (waiters, reason, endError) = state.withLock { state in
            let inOrder = state.closedByUs || (readError == nil && state.failure == nil)
            let reason = fail(&state, readError ?? "closed by the peer")
            let endError: TransportError? = inOrder ? nil : .closed(reason)
            defer { state.writes.removeAll() }
            return (state.writes.compactMap(\.waiter), reason, endError)
        }
        for waiter in waiters { waiter.resume(throwing: TransportError.closed(reason)) }
        releaseDescriptor()
        reads?.finish(endError)
        if let endError { continuation.finish(throwing: endError) } else { continuation.finish() }
        readerExecutor.readerEnded()
    }

    private func releaseDescriptor() {
        let fd = state.withLock { state -> Int32 in
            state.threads -= 1
            guard state.threads == 0 else { return -1 }
            defer { state.fd = -1 }
            return state.fd
        }
        if fd >= 0 { _ = systemClose(fd) }
    }

    // MARK: - Closing

    public func close() async {
        shutdownAndClose()
    }

    /// Fails queued writes at once and wakes the threads, which close the descriptor; without
    /// threads (never opened), closes it here. Never waits for the peer.
    func shutdownAndClose() {
        let (waiters, closeHere, finishHere, reads) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Int32, Bool, SocketReads?) in
            guard !state.closedByUs else { return ([], -1, false, nil) }
            state.closedByUs = true
            _ = fail(&state, "closed")
            defer { state.writes.removeAll() }
            var closeHere: Int32 = -1
            if state.threads == 0 {
                closeHere = state.fd
                state.fd = -1
            }
            return (state.writes.compactMap(\.waiter), closeHere, !state.readerStarted, state.reads)
        }
        for waiter in waiters { waiter.resume(throwing: TransportError.closed("\(description) is closed")) }
        if closeHere >= 0 { _ = systemClose(closeHere) }
        if finishHere {
            reads?.finish(nil)
            continuation.finish()
        }
    }
}

@inline(__always) func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc) || canImport(Musl)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

@inline(__always) func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, dontWait: Bool = false) -> Int {
    #if canImport(Darwin)
    return Darwin.send(fd, buffer, count, dontWait ? MSG_DONTWAIT : 0)
    #else
    return Glibc.send(fd, buffer, count, Int32(MSG_NOSIGNAL) | (dontWait ? Int32(MSG_DONTWAIT) : 0))
    #endif
}

