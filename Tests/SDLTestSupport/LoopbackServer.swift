#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SmartDeviceLink

/// A TCP server on 127.0.0.1 with a port of its own, for tests that play a web server: each
/// connection goes to `serve` on a thread of its own.
///
/// Accepting runs on the package's `AcceptLoop`, so a stopped server's socket number is never
/// closed twice: tests run side by side, and a second `close` of a number another test's
/// server had just been given took that server away (its clients got "connection refused").
public final class LoopbackServer: Sendable {
    /// The port the kernel chose.
    public let port: UInt16
    private let accepting: AcceptLoop

    /// Binds and starts accepting; `serve` owns the client descriptor and closes it.
    public init(serve: @escaping @Sendable (_ client: Int32) -> Void) throws {
        let (listener, port) = try Self.bindLoopback()
        guard listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.port = port
        accepting = AcceptLoop(listening: listener, name: "test-http", accepted: { client, _ in
            Thread.detachNewThread { serve(client) }
        }, ended: {})
    }

    /// A port nothing listens on: bound, then closed, so a connection there is refused.
    public static func closedPort() throws -> UInt16 {
        let (socket, port) = try bindLoopback()
        close(socket)
        return port
    }

    deinit { accepting.stop() }

    /// Stops accepting; a second call does nothing more.
    public func stop() { accepting.stop() }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Writes all of `bytes`; false when the client has gone (no SIGPIPE for the test process).
    @discardableResult
    public static func put(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    @discardableResult
    public static func put(_ client: Int32, _ text: String) -> Bool { put(client, Array(text.utf8)) }

    private static func bindLoopback() throws -> (socket: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }
}
