#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SDLTestSupport

/// A small HTTP/1.1 server on loopback for the lock screen icon: each path is one way a
/// head unit's icon server behaves. A thread per connection; the socket closes with the server.
final class IconServer: Sendable {
    /// A PNG's signature and IHDR: enough for the type to be read from the bytes.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]

    private let server: LoopbackServer

    init() throws { server = try LoopbackServer(serve: Self.serve) }

    func url(_ path: String) -> String { server.url(path) }

    private static func serve(_ client: Int32) {
        defer { close(client) }
        var request = [UInt8](repeating: 0, count: 4096)
        let count = read(client, &request, request.count)
        guard count > 0 else { return }
        let line = String(decoding: request[..<count], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        switch path {
        case "/icon.png": respond(client, 200, "image/png", png)
        case "/untyped": respond(client, 200, nil, png)
        case "/page": respond(client, 200, "text/html", Array("<html>not an icon</html>".utf8))
        case "/huge":
            // No Content-Length: the size shows only as the body comes.
            put(client, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n")
            let block = [UInt8](repeating: 7, count: 64 * 1024)
            for _ in 0..<64 where put(client, block) {}
        case "/slow":
            put(client, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n")
            for _ in 0..<1000 where put(client, [0]) { usleep(100_000) }  // a byte every 100 ms
        default: respond(client, 404, "text/plain", Array("no such icon".utf8))
        }
    }

    private static func respond(_ client: Int32, _ status: Int, _ type: String?, _ body: [UInt8]) {
        let reason = status == 200 ? "OK" : "Not Found"
        put(client, "HTTP/1.1 \(status) \(reason)\r\n" + (type.map { "Content-Type: \($0)\r\n" } ?? "")
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        put(client, body)
    }

    @discardableResult
    private static func put(_ client: Int32, _ text: String) -> Bool { LoopbackServer.put(client, text) }

    @discardableResult
    private static func put(_ client: Int32, _ bytes: [UInt8]) -> Bool { LoopbackServer.put(client, bytes) }
}
