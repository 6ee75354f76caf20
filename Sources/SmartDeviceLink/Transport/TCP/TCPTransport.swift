#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A TCP client link to a head unit (sdl_core listens on 12345 by default).
public final class TCPTransport: SDLTransport {
    /// The head unit's name or address.
    public let host: String
    /// Its SDL port (sdl_core: 12345).
    public let port: UInt16
    /// How long a connect may take.
    public let connectTimeout: Duration
    public var description: String { "TCP \(host):\(port)" }
    /// TCP.
    public var kind: TransportKind { .tcp }

    private let link: StreamSocketTransport
    /// The connected socket under this link, for the driver's direct writes.
    var socket: StreamSocketTransport { link }
    public var incoming: AsyncThrowingStream<[UInt8], any Error> { link.incoming }

    /// The default port of sdl_core's TCP adapter.
    public static let defaultPort: UInt16 = 12345

    /// A link to `host`:`port`; it connects in ``open()``.
    public init(host: String, port: UInt16 = TCPTransport.defaultPort, connectTimeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.link = StreamSocketTransport(description: "TCP \(host):\(port)", kind: .tcp)
    }

    /// Parses "HOST:PORT" (or "[v6]:PORT", or "HOST" for the default port).
    public convenience init(endpoint: String, connectTimeout: Duration = .seconds(10)) throws(TransportError) {
        let address = try HostPort(parsing: endpoint, defaultPort: TCPTransport.defaultPort)
        self.init(host: address.host, port: address.port, connectTimeout: connectTimeout)
    }

    /// Resolves and connects on a thread of its own (getaddrinfo and the connect wait can take
    /// seconds); cancelling the calling task returns at once.
    public func open() async throws(TransportError) {
        let (host, port, timeout) = (self.host, self.port, connectTimeout)
        let endpoint = String(description.dropFirst(4))
        SDLLog.tcp.debug("connecting to \(endpoint) (timeout \(timeout.seconds.formatted2) s)")
        let fd: Int32
        do {
            fd = try await BlockingCall.run(
                "sdl-connect", discard: { _ = systemClose($0) },
                onCancel: { .closed("connecting to \(endpoint) was cancelled") }
            ) { () throws(TransportError) -> Int32 in
                try TCPEndpoint.connect(host: host, port: port, timeout: timeout, endpoint: endpoint)
            }
        } catch {
            SDLLog.tcp.info("\(error)")
            throw error
        }
        SDLLog.tcp.info("connected to \(endpoint)")
        link.attach(fd)
    }

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        try await link.send(bytes)
    }

    public func close() async {
        SDLLog.tcp.debug("closing \(description)")
        link.shutdownAndClose()
    }
}

/// Accepts TCP connections, for the emulator's head-unit side.
public final class TCPListener: Sendable {
    /// The port actually bound (useful when 0 was asked for).
    public let port: UInt16
    /// The address bound.
    public let host: String
    /// Accepted connections, each an unopened transport whose reader starts on `open()`.
    public let connections: AsyncStream<StreamSocketTransport>
    private let accepting: AcceptLoop

    /// Binds and listens. Binds loopback unless told otherwise.
    public init(host: String = "127.0.0.1", port: UInt16 = TCPTransport.defaultPort) throws(TransportError) {
        let fd = try TCPEndpoint.listen(host: host, port: port)
        self.host = host
        self.port = TCPEndpoint.localPort(of: fd) ?? port
        let (stream, continuation) = AsyncStream.makeStream(of: StreamSocketTransport.self)
        self.connections = stream
        accepting = AcceptLoop(listening: fd, name: "sdl-accept", accepted: { client, peer in
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            continuation.yield(StreamSocketTransport(connectedDescriptor: client, description: "TCP \(peer)", kind: .tcp))
        }, ended: { continuation.finish() })
    }

    /// Stops accepting; accepted connections stay open.
    public func close() {
        accepting.stop()
    }

    deinit { close() }
}

/// A TCP endpoint as people write it: `HOST:PORT`, `[IPv6]:PORT`, `HOST` (with a default
/// port) or a bare `PORT` (with a default host). The one parser of every `--tcp`, `--listen`,
/// `--control` and test endpoint.
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// The name or address.
    public var host: String
    /// The port.
    public var port: UInt16

    /// An endpoint of these parts.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads an address as `--tcp` and `--listen` take it.
    /// - Parameters:
    ///   - text: "HOST:PORT", "[IPv6]:PORT", "HOST" or "PORT".
    ///   - defaultPort: the port of a text without one; nil makes the port required.
    ///   - defaultHost: the host of a bare port number ("12345"); nil makes the host required.
    ///   - listening: port 0 is allowed (the system picks a free port), as for `--listen`.
    public init(parsing text: String, defaultPort: UInt16? = nil, defaultHost: String? = nil, listening: Bool = false) throws(TransportError) {
        var host = text
        var portText: Substring?
        if let defaultHost, UInt16(text) != nil {
            host = defaultHost
            portText = text[...]
        } else if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty, let defaultHost { host = defaultHost }
        guard !host.isEmpty else {
            throw TransportError.unreachable(endpoint: text, reason: "no host given; write HOST:PORT, e.g. 127.0.0.1:12345")
        }
        guard let portText else {
            guard let defaultPort else {
                throw TransportError.unreachable(endpoint: text, reason: "no port given; write HOST:PORT, e.g. 127.0.0.1:12345")
            }
            self.init(host: host, port: defaultPort)
            return
        }
        guard let port = UInt16(portText), port > 0 || listening else {
            throw TransportError.unreachable(endpoint: text, reason: "'\(portText)' is not a port number \(listening ? 0 : 1)…65535")
        }
        self.init(host: host, port: port)
    }

    /// "HOST:PORT", an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The socket calls behind TCP.
enum TCPEndpoint {
    static func resolve(host: String, port: UInt16, passive: Bool, endpoint: String) throws(TransportError) -> [(Int32, [UInt8])] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        if passive { hints.ai_flags = AI_PASSIVE }
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TransportError.unreachable(endpoint: endpoint, reason: String(cString: gai_strerror(status)) + "; check the address and the network")
        }
        defer { freeaddrinfo(list) }
        var result: [(Int32, [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            let bytes = [UInt8](UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            result.append((info.pointee.ai_family, bytes))
            cursor = info.pointee.ai_next
        }
        return result
    }

    /// Connects with a timeout; returns a blocking descriptor.
    static func connect(host: String, port: UInt16, timeout: Duration, endpoint: String) throws(TransportError) -> Int32 {
        var lastError = TransportError.unreachable(endpoint: endpoint, reason: "no address")
        for (family, address) in try resolve(host: host, port: port, passive: false, endpoint: endpoint) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            let started = address.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
            var code: Int32 = started == 0 ? 0 : errno
            if code == EINPROGRESS {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let millis = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
                let ready = poll(&pfd, 1, millis)
                if ready == 0 {
                    _ = systemClose(fd)
                    lastError = .timedOut(operation: "connecting to \(endpoint)", seconds: Double(millis) / 1000)
                    continue
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                code = soError
            }
            if code != 0 {
                _ = systemClose(fd)
                lastError = code == ECONNREFUSED
                    ? .connectionRefused(endpoint: endpoint)
                    : .unreachable(endpoint: endpoint, reason: String(cString: strerror(code)) + "; check the address and the network")
                continue
            }
            _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        throw lastError
    }

    static func listen(host: String, port: UInt16) throws(TransportError) -> Int32 {
        let endpoint = "\(host):\(port)"
        guard let (family, address) = try resolve(host: host, port: port, passive: true, endpoint: endpoint).first else {
            throw TransportError.unreachable(endpoint: endpoint, reason: "no address to listen on")
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TransportError.io(operation: "socket", code: errno, message: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            _ = systemClose(fd)
            if code == EADDRINUSE {
                throw TransportError.io(operation: "listening on \(endpoint)", code: code,
                                        message: "the port is in use; stop the other head unit or pick another port with --listen HOST:PORT")
            }
            throw TransportError.io(operation: "listening on \(endpoint)", code: code, message: String(cString: strerror(code)))
        }
        return fd
    }

    static func localPort(of fd: Int32) -> UInt16? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        return port(of: address)
    }

    static func port(of address: sockaddr_storage) -> UInt16? {
        var copy = address
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
        case AF_INET6:
            return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        default:
            return nil
        }
    }

    static func describe(_ address: sockaddr_storage) -> String {
        var copy = address
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, socklen_t(MemoryLayout<sockaddr_storage>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        let name = status == 0 ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return "\(name):\(port(of: address) ?? 0)"
    }
}
