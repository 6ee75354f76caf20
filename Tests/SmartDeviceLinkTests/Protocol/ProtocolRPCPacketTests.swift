// The 12-byte RPC binary header of protocol v2+ (PROTOCOL.md §3.1; core:
// PH/src/protocol_payload.cc; java: base/protocol/BinaryFrameHeader.java).
import Testing
@testable import SmartDeviceLink

@Suite("Protocol: RPC packet")
struct ProtocolRPCPacketTests {
    @Test("§3.1 OnHMIStatus notification header: 20 00 80 00 | 00 00 00 00 | <json len>")
    func onHMIStatusHeader() throws {
        let json = Array(#"{"hmiLevel":"FULL"}"#.utf8)  // 19 bytes
        let packet = RPCPacket(messageType: .notification, functionID: 0x8000, correlationID: 0, json: json)
        #expect(PT.hex(packet.encoded) == PT.hex(PT.bytes("20 00 80 00  00 00 00 00  00 00 00 13") + json))
        #expect(packet.serviceType == .rpc)
        #expect(try RPCPacket(decoding: PT.bytes("20 00 80 00  00 00 00 00  00 00 00 13") + json) == packet)
    }

    @Test("§3.1 RegisterAppInterface request with correlation 1: 00 00 00 01 | 00 00 00 01 | <json len>")
    func registerAppInterfaceHeader() throws {
        let json = Array(#"{"appName":"X"}"#.utf8)  // 15 bytes
        let bytes = PT.bytes("00 00 00 01  00 00 00 01  00 00 00 0F") + json
        let packet = RPCPacket(messageType: .request, functionID: 1, correlationID: 1, json: json)
        #expect(packet.encoded == bytes)
        let decoded = try RPCPacket(decoding: bytes)
        #expect(decoded.messageType == .request)
        #expect(decoded.functionID == 1)
        #expect(decoded.correlationID == 1)
        #expect(decoded.json == json)
        #expect(decoded.bulkData.isEmpty)
    }

    @Test("every header field: type nibble, 28-bit function id, signed correlation id, json size", arguments: [
        ("10 00 00 01  7F FF FF FF  00 00 00 00", RPCMessageType.response, UInt32(1), Int32.max),
        ("2F FF FF FF  80 00 00 00  00 00 00 00", RPCMessageType.notification, UInt32(0x0FFF_FFFF), Int32.min),
        ("00 01 80 01  00 00 00 2A  00 00 00 00", RPCMessageType.request, UInt32(0x18001), Int32(42)),
        ("20 00 80 0D  FF FF FF FF  00 00 00 00", RPCMessageType.notification, UInt32(0x800D), Int32(-1)),
    ])
    func headerFields(hex: String, type: RPCMessageType, function: UInt32, correlation: Int32) throws {
        let packet = RPCPacket(messageType: type, functionID: function, correlationID: correlation, json: [])
        #expect(packet.encoded == PT.bytes(hex))
        #expect(try RPCPacket(decoding: PT.bytes(hex)) == packet)
    }

    @Test("correlation id 0xFFFFFFFF (core's notifications) decodes to -1 and encodes back")
    func correlationMinusOne() throws {
        let bytes = PT.bytes("20 00 80 00  FF FF FF FF  00 00 00 02  7B 7D")
        let packet = try RPCPacket(decoding: bytes)
        #expect(packet.correlationID == -1)
        #expect(packet.messageType == .notification)
        #expect(packet.encoded == bytes)
    }

    @Test("a function id above 28 bits does not leak into the type nibble")
    func functionIDMasked() {
        let packet = RPCPacket(messageType: .request, functionID: 0xF000_0020, correlationID: 0, json: [])
        #expect(packet.encoded.prefix(4) == [0x00, 0x00, 0x00, 0x20])
    }

    @Test("json and bulk split by the json size; bulk = DataSize − 12 − jsonSize (§5.3)")
    func bulkSplit() throws {
        let json = Array(#"{"syncFileName":"a.png"}"#.utf8)  // 24 bytes
        let bulk: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = PT.bytes("00 00 00 20  00 00 00 07  00 00 00 18") + json + bulk
        let packet = try RPCPacket(decoding: bytes)
        #expect(packet.json == json)
        #expect(Array(packet.bulkData) == bulk)
        #expect(packet.serviceType == .hybrid)
        #expect(packet.encoded == bytes)
        // JSON size 0: everything after the header is bulk.
        let bulkOnly = try RPCPacket(decoding: PT.bytes("00 00 00 20  00 00 00 07  00 00 00 00  AA BB CC"))
        #expect(bulkOnly.json.isEmpty)
        #expect(bulkOnly.bulkData == [0xAA, 0xBB, 0xCC])
    }

    @Test("JSON size larger than the data is an error", arguments: [
        "00 00 00 01  00 00 00 01  00 00 00 03  7B 7D",
        "00 00 00 01  00 00 00 01  FF FF FF FF  7B 7D",
        "00 00 00 01  00 00 00 01  00 00 00 01",
    ])
    func jsonSizeTooLarge(hex: String) {
        #expect(throws: RPCPacket.DecodingError.self) { try RPCPacket(decoding: PT.bytes(hex)) }
    }

    @Test("fewer than 12 bytes, or RPC type 3 (erroneous response, unknown to core) and above, is an error", arguments: [
        "", "00 00 00 01 00 00 00 01 00 00 00", "30 00 00 01  00 00 00 01  00 00 00 00", "F0 00 00 01  00 00 00 01  00 00 00 00",
    ])
    func malformedHeader(hex: String) {
        #expect(throws: RPCPacket.DecodingError.self) { try RPCPacket(decoding: PT.bytes(hex)) }
    }
}
