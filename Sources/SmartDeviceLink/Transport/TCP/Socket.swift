#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A connected stream socket (TCP, or an RFCOMM/Unix socket handed over as a descriptor).
///
/// Reads run on one dedicated thread that blocks in `recv` and feeds an AsyncThrowingStream:
/// blocking I/O on a thread of its own keeps the cooperative pool free and needs no
/// reactor; one thread per link is cheap at the handful of links a test rig or an app has.
/// Writes are serialized by a mutex and complete whole buffers (short writes are resumed).
public final class StreamSocketTransport: SDLTransport {
    public let description: String
    public let kind: TransportKind
    public let incoming: AsyncThrowingStream<[UInt8], any Error>

    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// The descriptor, and whether close() was called; the mutex also serializes writes.
    /// Once the reader thread runs, it owns the descriptor and closes it when it exits, so the
    /// number cannot be reused by another open while the reader still uses it.
    private let state: Mutex<SocketState>

    private struct SocketState {
        var fd: Int32
        var closed = false
        var readerStarted = false
    }
    private let readSize: Int

    /// Wraps a connected descriptor; the transport owns and closes it.
    public init(connectedDescriptor: Int32, description: String, kind: TransportKind, readSize: Int = 16 * 1024) {
        self.description = description
        self.kind = kind
        self.readSize = readSize
        self.state = Mutex(SocketState(fd: connectedDescriptor))
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        var noSigPipe: Int32 = 1
        #if canImport(Darwin)
        setsockopt(connectedDescriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
        #else
        _ = noSigPipe
        #endif
    }

    deinit {
        shutdownAndClose()
    }

    /// Starts the reader thread; the descriptor is already connected.
    public func open() async throws(TransportError) {
        startReader()
    }

    func startReader() {
        let claimed: Int32? = state.withLock { state in
            guard !state.closed, !state.readerStarted else { return nil }
            state.readerStarted = true
            return state.fd
        }
        guard let descriptor = claimed else { return }
        let continuation = self.continuation
        let size = readSize
        let name = description
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: size)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, size, 0) }
                if count > 0 {
                    continuation.yield(Array(buffer[0..<count]))
                } else if count == 0 {
                    _ = systemClose(descriptor)
                    continuation.finish()
                    return
                } else {
                    let code = errno
                    if code == EINTR { continue }
                    _ = systemClose(descriptor)
                    // EBADF/ENOTCONN after our own close: a normal end.
                    if code == EBADF || code == ENOTCONN || code == EINVAL {
                        continuation.finish()
                    } else {
                        continuation.finish(throwing: TransportError.closed("\(name): read failed: \(String(cString: strerror(code)))"))
                    }
                    return
                }
            }
        }
        thread.name = "sdl-read \(description)"
        thread.start()
    }

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        let result: TransportError? = state.withLock { state in
            guard !state.closed else { return TransportError.closed("\(description) is closed") }
            let descriptor = state.fd
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    systemSend(descriptor, raw.baseAddress! + offset, bytes.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    return TransportError.closed("\(description): write failed: \(String(cString: strerror(code)))")
                }
                offset += written
            }
            return nil
        }
        if let result { throw result }
    }

    public func close() async {
        shutdownAndClose()
    }

    func shutdownAndClose() {
        let finishHere: Bool = state.withLock { state in
            guard !state.closed else { return false }
            state.closed = true
            // shutdown wakes the reader blocked in recv; it sees EOF and closes the descriptor.
            _ = shutdown(state.fd, Int32(SHUT_RDWR))
            if !state.readerStarted { _ = systemClose(state.fd) }
            return !state.readerStarted
        }
        if finishHere { continuation.finish() }
    }
}

@inline(__always) func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc) || canImport(Musl)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

@inline(__always) func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.send(fd, buffer, count, 0)
    #else
    return Glibc.send(fd, buffer, count, Int32(MSG_NOSIGNAL))
    #endif
}

/// The part of a client transport that is made of one connected stream socket, once its
/// own step (TCP connect, RFCOMM connect or accept) has produced the descriptor.
///
/// `incoming` exists before the socket does, so a transport can hand out one stream from
/// its initialiser on, as ``SDLTransport`` asks.
final class ConnectedSocketLink: Sendable {
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let socket = Mutex<StreamSocketTransport?>(nil)

    init() {
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    /// Takes over a connected descriptor and starts reading from it into `incoming`.
    func attach(_ descriptor: Int32, description: String, kind: TransportKind, readSize: Int = 16 * 1024) {
        let connected = StreamSocketTransport(connectedDescriptor: descriptor, description: description, kind: kind, readSize: readSize)
        socket.withLock { $0 = connected }
        let continuation = self.continuation
        Task {
            do {
                for try await chunk in connected.incoming { continuation.yield(chunk) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        connected.startReader()
    }

    func send(_ bytes: [UInt8], transport: String) async throws(TransportError) {
        guard let connected = socket.withLock({ $0 }) else { throw TransportError.closed("\(transport) is not open") }
        try await connected.send(bytes)
    }

    func close() {
        if let connected = socket.withLock({ $0 }) {
            connected.shutdownAndClose()
        } else {
            continuation.finish()
        }
    }
}
