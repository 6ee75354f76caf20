#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Two serial ports wired to each other, as a null-modem cable: two pseudo-terminals whose
/// master ends a thread of this process joins. Each side opens its port by path, as it would
/// a real one. The cable can carry noise (bursts of garbage, sent to both ends while the line
/// is quiet) and be pulled (both masters closed: each port reads a hang-up).
///
/// The ports are named by links in a folder of the cable's own, removed when it is pulled:
/// the kernel hands a freed pty's number to the next one made, and a head unit that opens
/// its port again after the pull (as `emulate --serial` does) took another test's pty by
/// its `/dev/pts` path when tests ran side by side.
public final class NullModem: @unchecked Sendable {
    /// One end's device path, and the other's.
    public let pathA: String, pathB: String
    private let folder: TestFolder
    /// Bytes carried each way (noise not counted).
    public var carried: Int { wire.lock.withLock { wire.carriedBytes } }

    private let masters: (Int32, Int32)
    private let wake: (read: Int32, write: Int32)
    /// What the carrying thread holds: not the cable itself, so that the cable's last owner
    /// letting go ends the thread (and removes the folder) instead of keeping both forever.
    private let wire = Wire()

    public init() throws {
        let a = try PseudoTerminal(), b = try PseudoTerminal()
        folder = try TestFolder("null-modem")
        pathA = folder.path("port-a")
        pathB = folder.path("port-b")
        try FileManager.default.createSymbolicLink(atPath: pathA, withDestinationPath: a.path)
        try FileManager.default.createSymbolicLink(atPath: pathB, withDestinationPath: b.path)
        masters = (a.takeMaster(), b.takeMaster())
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw PseudoTerminalError(code: errno) }
        wake = (ends[0], ends[1])
        // The slaves in raw mode before anyone opens them: no echo of the noise back to its sender.
        for path in [pathA, pathB] {
            let fd = open(path, O_RDWR | O_NOCTTY)
            if fd >= 0 {
                var settings = termios()
                tcgetattr(fd, &settings)
                cfmakeraw(&settings)
                tcsetattr(fd, TCSANOW, &settings)
                close(fd)
            }
        }
        let (first, second, wakeRead, wire) = (masters.0, masters.1, wake.read, wire)
        Thread { wire.carry(first, second, wake: wakeRead) }.start()
    }

    /// Sends `bytes` of garbage to both ends, the next time the line is quiet for 50 ms.
    public func injectNoise(_ bytes: [UInt8]) {
        wire.lock.withLock { wire.noise.append(bytes) }
    }

    /// Puts `bytes` of garbage into the traffic, inside a frame: after the first 100 bytes of
    /// the next read of at least 200 carried either way (a header is at most 12 bytes, so
    /// they land in a frame's payload however busy the line is).
    public func injectNoiseInline(_ bytes: [UInt8]) {
        wire.lock.withLock { wire.inlineNoise.append(bytes) }
    }

    /// Pulls the cable: the masters close, each port reads a hang-up.
    public func unplug() {
        let first = wire.lock.withLock { () -> Bool in defer { wire.unplugged = true }; return !wire.unplugged }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        wire.done.wait()
        for path in [pathA, pathB] { try? FileManager.default.removeItem(atPath: path) }
    }

    deinit {
        unplug()
        close(wake.read)
        close(wake.write)
    }
}

/// The carrying thread's side of a ``NullModem``.
private final class Wire: @unchecked Sendable {
    let lock = NSLock()
    var noise: [[UInt8]] = []
    var inlineNoise: [[UInt8]] = []
    var carriedBytes = 0
    var unplugged = false
    let done = DispatchSemaphore(value: 0)

    /// Writes all of `bytes` to `fd`, waiting for room; false once the cable is pulled, so a
    /// port nobody reads can never hold `unplug()`.
    private func send(_ bytes: ArraySlice<UInt8>, to fd: Int32, wake: Int32) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
                continue
            }
            guard errno == EAGAIN || errno == EINTR else { return true }  // the port's end is closed: the bytes go nowhere
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, 100)
            if fds[1].revents != 0 { return false }
        }
        return true
    }

    func carry(_ a: Int32, _ b: Int32, wake: Int32) {
        for master in [a, b] { _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            // A master reads a hang-up while its port is closed; it is not waited on until the
            // port opens again (polled every 10 ms).
            let ready = poll(&fds, 3, 50)
            if fds[2].revents != 0 { break }
            if ready == 0 {
                let bursts: [[UInt8]] = lock.withLock { defer { noise.removeAll() }; return noise }
                for burst in bursts { _ = send(burst[...], to: a, wake: wake) && send(burst[...], to: b, wake: wake) }
                continue
            }
            var hungUp = false
            for (from, to) in [(0, b), (1, a)] where fds[from].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[from].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    let bursts: [[UInt8]] = count < 200 ? [] : lock.withLock { defer { inlineNoise.removeAll() }; return inlineNoise }
                    if !bursts.isEmpty {
                        guard send(buffer[0..<100], to: to, wake: wake) else { break }
                        for burst in bursts { _ = send(burst[...], to: to, wake: wake) }
                    }
                    guard send(buffer[(bursts.isEmpty ? 0 : 100)..<count], to: to, wake: wake) else { break }
                    lock.withLock { carriedBytes += count }
                } else if count < 0 && errno == EAGAIN {
                    continue
                } else {
                    hungUp = true
                }
            }
            if hungUp { usleep(10_000) }
        }
        close(a)
        close(b)
        done.signal()
    }
}
