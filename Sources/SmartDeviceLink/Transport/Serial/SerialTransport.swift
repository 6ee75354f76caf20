#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// SDL over a TTY: a UART or USB-to-serial bridge, a CDC-ACM link (`/dev/ttyACM0` on the host,
/// `/dev/ttyGS0` on the board), a bound Bluetooth serial port (`/dev/rfcomm0`), a pty.
///
/// A serial line has no connection: the link is up once the port opens, and down when the
/// device goes (EIO or a hang-up, as when a USB serial device is unplugged) or the other end
/// of a pty closes. It carries bytes, not frames; the protocol's decoder finds the frames,
/// and skips what a noisy line garbled (see `FrameDecoder`).
///
/// A reader thread waits in `poll` for bytes or for `close()`; writes go out on a thread of
/// their own, in order, each caller suspended until its bytes are in the driver's buffer
/// (at 115,200 baud a large frame takes seconds to drain, which must not hold a thread of
/// Swift's pool).
public final class SerialTransport: SDLTransport {
    public let description: String
    public var kind: TransportKind { .serial }
    /// The baud rate's bytes a second on a UART, where the rate is real; nil where it is not
    /// (see ``lineRate(of:)``) and for a descriptor opened elsewhere. Read once: every request
    /// asks for it, and finding it reads the node's symlinks.
    public let bytesPerSecond: Int?

    /// A UART (`ttyS`, `ttyAMA`, a USB-serial bridge's `ttyUSB`...) carries a byte in ten
    /// bits (start, eight data, stop) at its baud rate. CDC-ACM (`ttyACM`, a board's `ttyGS`),
    /// a bound RFCOMM port and a pty take the rate and ignore it: they carry far more, and
    /// counting their queue at 115,200 baud would only make a lost request wait longer.
    public static func lineRate(of options: SerialPortOptions) -> Int? {
        let node = URL(fileURLWithPath: options.path).resolvingSymlinksInPath()
        let name = node.lastPathComponent
        if node.path.hasPrefix("/dev/pts/") || node.path == "/dev/ptmx" || ["ttyACM", "ttyGS", "rfcomm"].contains(where: name.hasPrefix) {
            return nil
        }
        return max(options.baudRate / 10, 1)
    }
    public let incoming: AsyncThrowingStream<[UInt8], any Error>

    private let options: SerialPortOptions?
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let writer = DispatchQueue(label: "sdl-serial-write")
    private let state = Locked(State())

    private struct State {
        var fd: Int32 = -1
        /// A pipe whose read end wakes the threads' polls when the link closes.
        var wake: (read: Int32, write: Int32) = (-1, -1)
        var opened = false
        var closedByUs = false
        /// Why the link is down; later writes fail with it.
        var failure: String?
        /// The reader and the writer, while they use the descriptor; the last one closes it.
        var users = 0
    }

    /// A link on the TTY `options` names, opened by ``open()``.
    public init(_ options: SerialPortOptions) {
        self.options = options
        description = options.description
        bytesPerSecond = Self.lineRate(of: options)
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    /// A link on a TTY descriptor already open (a pty's side); the transport owns and closes it.
    public init(descriptor: Int32, description: String) {
        options = nil
        self.description = description
        bytesPerSecond = nil
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        state.withLock { $0.fd = descriptor }
    }

    deinit {
        let (fd, wake) = state.withLock { ($0.fd, $0.wake) }
        for descriptor in [fd, wake.read, wake.write] where descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    /// Opens the port and starts reading; a second call does nothing.
    public func open() async throws(TransportError) {
        let (opened, closed) = state.withLock { ($0.opened, $0.closedByUs) }
        if closed { throw .closed("\(description) is closed") }
        if opened { return }
        let fd: Int32
        if let options { fd = try SerialPort.open(options) } else { fd = state.withLock { $0.fd } }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            if options != nil { _ = Glibc.close(fd) }
            throw .io(operation: "making the serial link's wake-up pipe", code: code, message: String(cString: strerror(code)))
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let pipeEnds = ends
        let started = state.withLock { state -> Bool in
            guard !state.closedByUs, !state.opened else { return false }
            state.fd = fd
            state.wake = (pipeEnds[0], pipeEnds[1])
            state.opened = true
            state.users = 2
            return true
        }
        guard started else {
            // Closed meanwhile: a port opened here is this call's to close; a given descriptor, close()'s.
            for descriptor in pipeEnds { _ = Glibc.close(descriptor) }
            if options != nil { _ = Glibc.close(fd) }
            throw .closed("\(description) is closed")
        }
        Thread.start(named: "sdl-serial-read") { [self] in read(fd, wake: pipeEnds[0]) }
    }

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        let (fd, wake, failure) = state.withLock { ($0.fd, $0.wake.read, $0.failure) }
        if let failure { throw .closed(failure) }
        guard fd >= 0, wake >= 0 else { throw .closed("\(description) is not open") }
        do {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                writer.async { [self] in
                    if let reason = write(bytes, to: fd, wake: wake) { waiter.resume(throwing: TransportError.closed(reason)) } else { waiter.resume() }
                }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw .closed("\(error)")
        }
    }

    /// Writes all of `bytes`, waiting for room in the driver; the reason when the link went down first.
    private func write(_ bytes: [UInt8], to fd: Int32, wake: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            if let failure = state.withLock({ $0.failure }) { return failure }
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            guard written < 0, code == EAGAIN || code == EINTR else {
                return fail(written == 0 ? "the serial device took no bytes" : Self.lostReason(code))
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, -1)
            if fds[1].revents != 0 { return state.withLock { $0.failure } ?? "\(description) is closed" }
        }
        return nil
    }

    private func read(_ fd: Int32, wake: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var reason: String?
        while reason == nil {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else {
                reason = fail("waiting for the serial device failed: \(String(cString: strerror(errno)))")
                break
            }
            // Woken: close(), or the writer found the line down first.
            if fds[1].revents != 0 {
                reason = state.withLock { $0.failure }
                break
            }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                continuation.yield(Array(buffer[0..<count]))
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                // A TTY reads 0 or fails with EIO once its device is gone or its other end hung up.
                reason = fail(count == 0 ? Self.lostReason(EIO) : Self.lostReason(errno))
            }
        }
        if let reason, !state.withLock({ $0.closedByUs }) {
            continuation.finish(throwing: TransportError.closed(reason))
        } else {
            continuation.finish()
        }
        release()
        writer.async { [self] in release() }
    }

    private static func lostReason(_ code: Int32) -> String {
        code == EIO ? "the serial device went away (unplugged, or the other end of the line closed)"
                    : "the serial device failed: \(String(cString: strerror(code)))"
    }

    /// Marks the link down (the first reason wins) and wakes both threads.
    @discardableResult
    private func fail(_ reason: String) -> String {
        let (first, wake) = state.withLock { state -> (String, Int32) in
            if state.failure == nil { state.failure = reason }
            return (state.failure ?? reason, state.wake.write)
        }
        if wake >= 0 { var byte: UInt8 = 1; _ = Glibc.write(wake, &byte, 1) }
        return first
    }

    /// One user of the descriptor is done; the last closes it and the pipe.
    private func release() {
        let descriptors = state.withLock { state -> [Int32] in
            state.users -= 1
            guard state.users == 0 else { return [] }
            defer { state.fd = -1; state.wake = (-1, -1) }
            return [state.fd, state.wake.read, state.wake.write]
        }
        for descriptor in descriptors where descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    public func close() async {
        let opened = state.withLock { state -> Bool in
            guard !state.closedByUs else { return true }
            state.closedByUs = true
            return state.opened
        }
        fail("\(description) is closed")
        if !opened {
            let fd = state.withLock { state -> Int32 in defer { state.fd = -1 }; return state.fd }
            if fd >= 0 { _ = Glibc.close(fd) }
            continuation.finish()
        }
    }
}
