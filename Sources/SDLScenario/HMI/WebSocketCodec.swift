import Foundation

/// The client side of RFC 6455 without I/O: the opening handshake, masked frames out,
/// frames in. sdl_core's HMI interface is a WebSocket carrying JSON-RPC text messages.
struct WebSocketCodec: Sendable {
    enum Event: Sendable, Equatable {
        /// The server accepted the upgrade.
        case opened
        case text(String)
        case ping([UInt8])
        case closed(code: UInt16?)
    }

    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    private let key: String
    private var buffer: [UInt8] = []
    private var open = false
    /// Fragments of a message split over continuation frames.
    private var fragments: [UInt8] = []

    init(key: String) { self.key = key }

    /// A fresh random `Sec-WebSocket-Key`.
    static func makeKey() -> String {
        Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The upgrade request for `path` on `host:port`.
    static func handshake(host: String, port: UInt16, path: String, key: String) -> [UInt8] {
        Array(("GET \(path.isEmpty ? "/" : path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// What the server must answer in `Sec-WebSocket-Accept` (RFC 6455 §4.2.2).
    static func acceptValue(for key: String) -> String {
        Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// A client frame: FIN set, masked with `mask` (RFC 6455 §5.3: a client masks every frame).
    static func frame(opcode: UInt8, payload: [UInt8], mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: bytes.append(0x80 | UInt8(payload.count))
        case ..<65_536: bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        bytes += mask
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ mask[index % 4]) }
        return bytes
    }

    mutating func append(_ bytes: some Collection<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next event in what arrived, or nil until more bytes come.
    mutating func next() throws(Failure) -> Event? {
        guard open else { return try handshakeAnswer() }
        while true {
            guard buffer.count >= 2 else { return nil }
            let fin = buffer[0] & 0x80 != 0, opcode = buffer[0] & 0x0F
            guard buffer[1] & 0x80 == 0 else { throw Failure(description: "the server sent a masked frame (RFC 6455 §5.1)") }
            var length = Int(buffer[1] & 0x7F), offset = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard length <= 64 << 20 else { throw Failure(description: "a WebSocket frame of \(length) bytes is more than an HMI message can be") }
            guard buffer.count >= offset + length else { return nil }
            let payload = Array(buffer[offset..<offset + length])
            buffer.removeFirst(offset + length)
            switch opcode {
            case 0x0, 0x1:
                fragments += payload
                guard fin else { continue }
                defer { fragments = [] }
                return .text(String(decoding: fragments, as: UTF8.self))
            case 0x8: return .closed(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
            case 0x9: return .ping(payload)
            case 0xA: continue
            default: throw Failure(description: "the server sent WebSocket opcode \(opcode), which an HMI link does not use")
            }
        }
    }

    private mutating func handshakeAnswer() throws(Failure) -> Event? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard let range = buffer.firstRange(of: end) else { return nil }
        let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
        buffer.removeFirst(range.upperBound)
        let lines = head.components(separatedBy: "\r\n")
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 101") else {
            throw Failure(description: "the server refused the WebSocket upgrade: \(lines.first ?? "no status line")")
        }
        let accept = lines.dropFirst().first { $0.lowercased().hasPrefix("sec-websocket-accept:") }
            .map { $0.dropFirst("sec-websocket-accept:".count).trimmingCharacters(in: .whitespaces) }
        guard accept == Self.acceptValue(for: key) else {
            throw Failure(description: "the server's Sec-WebSocket-Accept does not match the key (RFC 6455 §4.1)")
        }
        open = true
        return .opened
    }
}

/// SHA-1 (FIPS 180-4), for the one place RFC 6455 needs it: the handshake's accept value.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + i * 4 + $1]) } }
            for i in 16..<80 { w.append((w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1)) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch i {
                case ..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case ..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case ..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let t = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, t)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.flatMap { word in [24, 16, 8, 0].map { UInt8((word >> $0) & 0xFF) } }
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { self << count | self >> (32 - count) }
}
