@testable import SDLScenario
import Testing

@Suite("WebSocket client codec (RFC 6455)")
struct WebSocketCodecTests {
    @Test("the accept value of RFC 6455's example key, and SHA-1 of FIPS 180's example")
    func acceptValue() {
        #expect(WebSocketCodec.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let abc = SHA1.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(abc == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test("a client frame is masked (RFC 6455 §5.7: 'Hello' with mask 37 fa 21 3d), with 16- and 64-bit lengths")
    func clientFrames() {
        #expect(WebSocketCodec.frame(opcode: 0x1, payload: Array("Hello".utf8), mask: [0x37, 0xFA, 0x21, 0x3D])
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let medium = WebSocketCodec.frame(opcode: 0x1, payload: [UInt8](repeating: 1, count: 300), mask: [0, 0, 0, 0])
        #expect(Array(medium.prefix(4)) == [0x81, 0xFE, 0x01, 0x2C] && medium.count == 4 + 4 + 300)
        let large = WebSocketCodec.frame(opcode: 0x1, payload: [UInt8](repeating: 1, count: 70_000), mask: [0, 0, 0, 0])
        #expect(Array(large.prefix(10)) == [0x81, 0xFF, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70])
    }

    @Test("server frames in any reads: the upgrade, a fragmented text, a ping, a close; a bad accept is refused")
    func serverFrames() throws {
        var codec = WebSocketCodec(key: "dGhlIHNhbXBsZSBub25jZQ==")
        let upgrade = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n".utf8)
        // RFC 6455 §5.7: "Hel" + "lo" as a fragmented unmasked text, a ping "Hello", a close 1000.
        let frames: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F, 0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x88, 0x02, 0x03, 0xE8]
        var events: [WebSocketCodec.Event] = []
        for byte in upgrade + frames {
            codec.append([byte])
            while let event = try codec.next() { events.append(event) }
        }
        #expect(events == [.opened, .text("Hello"), .ping(Array("Hello".utf8)), .closed(code: 1000)])

        var wrong = WebSocketCodec(key: "AAAAAAAAAAAAAAAAAAAAAA==")
        wrong.append(upgrade)
        #expect(throws: WebSocketCodec.Failure.self) { try wrong.next() }
        var refused = WebSocketCodec(key: "x")
        refused.append(Array("HTTP/1.1 404 Not Found\r\n\r\n".utf8))
        #expect(throws: WebSocketCodec.Failure.self) { try refused.next() }
    }
}
