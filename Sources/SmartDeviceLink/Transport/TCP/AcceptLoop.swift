#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A listening socket and the thread that accepts on it, for every listener of the package
/// (TCP, the emulator's control socket, the policy server).
///
/// The thread closes the socket when it ends, and ``stop()`` only shuts it down, both under
/// one lock. When `stop()` closed it instead, the thread, between two accepts, could call
/// `accept` on a number the process had already given to another socket, and take that
/// socket's connections; and a shutdown after the thread's own close could reach another
/// socket too.
package final class AcceptLoop: Sendable {
    /// The listening socket; -1 once the thread has closed it.
    private let socket: Locked<Int32>

    /// Starts accepting on `fd` (bound and listening): `accepted` gets each connection's
    /// descriptor and, on an IP socket, its peer as `HOST:PORT`; `ended` runs once the socket
    /// is closed.
    package init(listening fd: Int32, name: String,
                 accepted: @escaping @Sendable (_ client: Int32, _ peer: String) -> Void, ended: @escaping @Sendable () -> Void) {
        let socket = Locked(fd)
        self.socket = socket
        Thread.start(named: name) {
            while true {
                var address = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let client = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) }
                }
                if client >= 0 {
                    let family = Int32(address.ss_family)
                    accepted(client, family == AF_INET || family == AF_INET6 ? TCPEndpoint.describe(address) : "local")
                } else if errno != EINTR && errno != ECONNABORTED {
                    break
                }
            }
            socket.withLock { socket in
                _ = close(socket)
                socket = -1
            }
            ended()
        }
    }

    /// Stops accepting: the blocked `accept` returns and the thread closes the socket. (A
    /// second call before it has shuts the same socket down again, which is harmless.)
    package func stop() {
        socket.withLock { socket in
            if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }
}
