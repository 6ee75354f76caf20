#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SmartDeviceLink

/// Why a policy server could not start, in one line with what to do.
public struct PolicyServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// A policy server for benches and tests, as sdl_server answers core's policy table update
/// (PTU): every POST gets the same update, a policy table file, whatever snapshot it carried.
/// It listens on one address (by default sdl_server's port, 3000), a thread per connection,
/// and remembers the snapshots it received. A GET is answered from `files` (a cloud app's
/// icon the update names, say).
public final class PolicyServer: @unchecked Sendable {
    /// The URL to put in a head unit's policy table (module_config.endpoints "0x07").
    public let url: String
    /// The address it listens on, "host:port".
    public let address: String
    private let accepting: AcceptLoop
    private let update: [UInt8]
    private let snapshots = Locked<[[UInt8]]>([])

    /// Serves `update` (the answer to every POST) on `host`:`port` (0: a free port);
    /// `received` hears of each snapshot as it arrives. With `namedAs` ("host:port", the
    /// address the update's URLs give for this server), those URLs are pointed to where it
    /// came up.
    public init(update: [UInt8], files: [String: [UInt8]] = [:], host: String = "127.0.0.1", port: UInt16 = 3000,
                namedAs origin: String? = nil, received observer: (@Sendable (_ snapshot: [UInt8]) -> Void)? = nil) throws(PolicyServerError) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw PolicyServerError(description: "policy server: no socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(listener)
            throw PolicyServerError(description: "policy server: \(host) is not an IPv4 address (e.g. 127.0.0.1 or 0.0.0.0)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw PolicyServerError(description: "policy server: cannot listen on \(host):\(port): \(reason)"
                                    + (errno == EADDRINUSE ? " (another server has it: stop it, or choose another --listen)" : ""))
        }
        let boundPort = UInt16(bigEndian: address.sin_port)
        self.address = "\(host):\(boundPort)"
        let reachable = Self.reachable(host: host, port: boundPort)
        url = "http://\(reachable)/api/1/policies/proprietary"
        if let origin, origin != reachable, case .object(let table)? = try? JSONValue.parse(update) {
            // The update is JSON: the origin appears in it only inside strings, so the text swap is safe.
            let text = JSONValue.object(table).serialized().replacingOccurrences(of: "http://\(origin)/", with: "http://\(reachable)/")
            self.update = Array(text.utf8)
        } else {
            self.update = update
        }
        let snapshots = self.snapshots, update = self.update
        let record: @Sendable ([UInt8]) -> Void = { snapshot in
            snapshots.withLock { $0.append(snapshot) }
            observer?(snapshot)
        }
        accepting = AcceptLoop(listening: listener, name: "sdl-policy-http", accepted: { client, _ in
            Thread.detachNewThread { Self.serve(client, update: update, files: files, record: record) }
        }, ended: {})
    }

    deinit { stop() }

    /// Stops listening; connections under way finish.
    public func stop() {
        accepting.stop()
    }

    /// The request bodies received so far (the snapshots), oldest first.
    public var received: [[UInt8]] { snapshots.withLock { $0 } }

    /// Where a server listening on `host`:`port` is reached from this machine ("host:port";
    /// one on every interface, 0.0.0.0, through the loopback).
    public static func reachable(host: String, port: UInt16) -> String {
        "\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    }

    /// Reads a policy table update file: JSON with a `policy_table` object, bare or in
    /// sdl_server's `{"data": [...]}`.
    public static func readUpdate(at path: String) throws(PolicyServerError) -> [UInt8] {
        // A file, not a device or a pipe that never ends (/dev/zero, a FIFO), nor one that
        // could not be a policy table (a whole table is a few hundred KB).
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw PolicyServerError(description: "policy server: cannot read \(path)")
        }
        guard (attributes?[.size] as? NSNumber)?.intValue ?? 0 <= 16 << 20 else {
            throw PolicyServerError(description: "policy server: \(path) is larger than 16 MB, more than any policy table")
        }
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw PolicyServerError(description: "policy server: cannot read \(path)")
        }
        guard var table = try? JSONValue.parse(bytes) else {
            throw PolicyServerError(description: "policy server: \(path) is not JSON")
        }
        if case .array(let data)? = table["data"], let first = data.first { table = first }
        guard table["policy_table"]?.objectValue != nil else {
            throw PolicyServerError(description: "policy server: \(path) has no \"policy_table\" object (a policy table update, bare or as {\"data\": [...]})")
        }
        return bytes
    }

    /// One HTTP/1.1 exchange: the head, the body by Content-Length, the update back.
    private static func serve(_ client: Int32, update: [UInt8], files: [String: [UInt8]], record: @Sendable ([UInt8]) -> Void) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[..<count]
            headEnd = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound
            if received.count > 1 << 20 { return }
        }
        let head = String(decoding: received[..<headEnd!], as: UTF8.self)
        let method = head.prefix { $0 != " " }
        let length = head.split(separator: "\r\n").lazy.compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while received.count - headEnd! < length {
            let count = read(client, &buffer, min(buffer.count, length - (received.count - headEnd!)))
            guard count > 0 else { return }
            received += buffer[..<count]
        }
        if method == "GET" {
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            guard let file = files[path] else { return respond(client, "404 Not Found", Array("no such file\n".utf8), type: "text/plain") }
            return respond(client, "200 OK", file, type: HTTPExchangeTypes.contentType(of: path))
        }
        guard method == "POST" else {
            return respond(client, "405 Method Not Allowed", Array("a policy server takes the snapshot by POST\n".utf8), type: "text/plain")
        }
        record(Array(received[headEnd!...]))
        respond(client, "200 OK", update, type: "application/json")
    }

    private static func respond(_ client: Int32, _ status: String, _ body: [UInt8], type: String) {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        for part in [Array(head.utf8), body] {
            var sent = 0
            while sent < part.count {
                let count = part[sent...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }
    }
}

/// The Content-Type of a file the policy server hands out, by its name.
enum HTTPExchangeTypes {
    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "bmp": "image/bmp"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
