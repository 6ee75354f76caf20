// Frame header encode/decode (PROTOCOL.md §1) and the complete frames of Appendix A.
// Every vector below is written by hand from the document, never produced by our encoder.
import Testing
@testable import SmartDeviceLink

struct HeaderVector: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var header: FrameHeader
    var testDescription: String { name }
}

@Suite("Protocol: frame header fields")
struct ProtocolFrameHeaderTests {
    /// Each row varies some fields so that every field takes several values, including the
    /// boundaries (version 1 and 5, all four frame types, E set and clear, all five services,
    /// frame info 0/0x7F/0xFF, session 0/1/254/255, size and message id at 0 and 0xFFFFFFFF).
    static let vectors: [HeaderVector] = [
        HeaderVector(name: "v1 control StartService RPC, size 0x20 (A1 header)", hex: "10 07 01 00 00 00 00 20",
                     header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc, frameInfo: 0x01, sessionID: 0, dataSize: 0x20)),
        HeaderVector(name: "v1 compression bit, single, session 255", hex: "19 07 00 FF 00 00 00 05",
                     header: FrameHeader(version: 1, isEncrypted: true, frameType: .single, serviceType: .rpc, frameInfo: 0, sessionID: 255, dataSize: 5)),
        HeaderVector(name: "v1 first frame on hybrid", hex: "12 0F 00 03 00 00 00 08",
                     header: FrameHeader(version: 1, frameType: .first, serviceType: .hybrid, sessionID: 3, dataSize: 8)),
        HeaderVector(name: "v1 consecutive last on audio", hex: "13 0A 00 04 00 00 01 00",
                     header: FrameHeader(version: 1, frameType: .consecutive, serviceType: .audio, frameInfo: 0, sessionID: 4, dataSize: 256)),
        HeaderVector(name: "v2 single RPC, message id 42", hex: "21 07 00 05 00 00 00 10 00 00 00 2A",
                     header: FrameHeader(version: 2, frameType: .single, serviceType: .rpc, sessionID: 5, dataSize: 16, messageID: 42)),
        HeaderVector(name: "v3 first on video, session 254", hex: "32 0B 00 FE 00 00 00 08 01 02 03 04",
                     header: FrameHeader(version: 3, frameType: .first, serviceType: .video, sessionID: 254, dataSize: 8, messageID: 0x0102_0304)),
        HeaderVector(name: "v4 consecutive #127 on audio, max message id", hex: "43 0A 7F 01 00 00 01 00 FF FF FF FF",
                     header: FrameHeader(version: 4, frameType: .consecutive, serviceType: .audio, frameInfo: 0x7F, sessionID: 1, dataSize: 256, messageID: 0xFFFF_FFFF)),
        HeaderVector(name: "v5 single E=1 on hybrid, message id 0x9ABCDEF0", hex: "59 0F 00 02 00 00 00 0A 9A BC DE F0",
                     header: FrameHeader(version: 5, isEncrypted: true, frameType: .single, serviceType: .hybrid, sessionID: 2, dataSize: 10, messageID: 0x9ABC_DEF0)),
        HeaderVector(name: "v5 consecutive E=1 #255", hex: "5B 07 FF 09 00 00 00 03 00 00 01 00",
                     header: FrameHeader(version: 5, isEncrypted: true, frameType: .consecutive, serviceType: .rpc, frameInfo: 0xFF, sessionID: 9, dataSize: 3, messageID: 256)),
        HeaderVector(name: "v5 HeartbeatACK (A3)", hex: "50 00 FF 01 00 00 00 00 00 00 00 07",
                     header: FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0xFF, sessionID: 1, dataSize: 0, messageID: 7)),
        HeaderVector(name: "v4 StartServiceACK with raw hash (§4.1)", hex: "40 07 02 0C 00 00 00 04 00 00 00 00",
                     header: FrameHeader(version: 4, frameType: .control, serviceType: .rpc, frameInfo: 0x02, sessionID: 12, dataSize: 4, messageID: 0)),
        HeaderVector(name: "v5 TransportEventUpdate 0xFD", hex: "50 00 FD 01 00 00 00 00 00 00 00 03",
                     header: FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0xFD, sessionID: 1, dataSize: 0, messageID: 3)),
    ]

    @Test("header encodes to the hand-written bytes", arguments: vectors)
    func encodes(_ v: HeaderVector) {
        #expect(v.header.encoded == PT.bytes(v.hex))
        #expect(v.header.size == (v.header.version == 1 ? 8 : 12))
    }

    @Test("header decodes from the hand-written bytes", arguments: vectors)
    func decodes(_ v: HeaderVector) {
        let payload = [UInt8](repeating: 0x41, count: Int(v.header.dataSize))
        let frames = PT.frames(PT.bytes(v.hex) + payload)
        #expect(frames.count == 1)
        #expect(frames.first?.header == v.header)
        #expect(frames.first?.payload == payload)
    }

    @Test("fields at their extremes encode big-endian (size and message id 0xFFFFFFFF, 0x01020304)")
    func extremeFields() {
        let h = FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 0xAB, dataSize: 0xFFFF_FFFF, messageID: 0x0102_0304)
        #expect(h.encoded == PT.bytes("51 07 00 AB FF FF FF FF 01 02 03 04"))
        let v1 = FrameHeader(version: 1, frameType: .single, serviceType: .rpc, sessionID: 0, dataSize: 0x0102_0304, messageID: 99)
        #expect(v1.encoded == PT.bytes("11 07 00 00 01 02 03 04"), "a v1 header has no message id, whatever the field holds")
    }

    @Test("control frame info values map to the §1.3 table")
    func controlInfoTable() {
        let table: [(UInt8, ControlFrameInfo)] = [
            (0x00, .heartbeat), (0x01, .startService), (0x02, .startServiceACK), (0x03, .startServiceNAK),
            (0x04, .endService), (0x05, .endServiceACK), (0x06, .endServiceNAK), (0x07, .registerSecondaryTransport),
            (0x08, .registerSecondaryTransportACK), (0x09, .registerSecondaryTransportNAK),
            (0xFD, .transportEventUpdate), (0xFE, .serviceDataACK), (0xFF, .heartbeatACK),
        ]
        for (raw, info) in table { #expect(ControlFrameInfo(rawValue: raw) == info) }
        for raw in UInt8(0x0A)...UInt8(0xFC) { #expect(ControlFrameInfo(rawValue: raw) == nil, "0x\(String(raw, radix: 16)) is reserved") }
        #expect(ControlFrameInfo.allCases.count == 13)
    }

    @Test("service types of §1.2")
    func serviceTypes() {
        #expect(ServiceType.control.rawValue == 0x00)
        #expect(ServiceType.rpc.rawValue == 0x07)
        #expect(ServiceType.audio.rawValue == 0x0A)
        #expect(ServiceType.video.rawValue == 0x0B)
        #expect(ServiceType.hybrid.rawValue == 0x0F)
        #expect(ServiceType.known == [.control, .rpc, .audio, .video, .hybrid])
    }
}

struct AppendixFrame: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var header: FrameHeader
    /// The payload built from structured values (BSON, RPC packet), not from the hex.
    var payload: @Sendable () -> [UInt8]
    var testDescription: String { name }
}

@Suite("Protocol: Appendix A frames")
struct ProtocolAppendixATests {
    static let frames: [AppendixFrame] = [
        AppendixFrame(
            name: "A1 StartService(RPC) v1 + BSON protocolVersion 5.4.1",
            hex: "10 07 01 00 00 00 00 20  20 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 31 00 00",
            header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc, frameInfo: 0x01, sessionID: 0, dataSize: 32),
            payload: { ControlPayload(protocolVersion: "5.4.1").encoded }),
        AppendixFrame(
            name: "A2 Heartbeat v5 session 1 message 7",
            hex: "50 00 00 01 00 00 00 00 00 00 00 07",
            header: FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0x00, sessionID: 1, dataSize: 0, messageID: 7),
            payload: { [] }),
        AppendixFrame(
            name: "A3 HeartbeatACK echoing message 7",
            hex: "50 00 FF 01 00 00 00 00 00 00 00 07",
            header: FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0xFF, sessionID: 1, dataSize: 0, messageID: 7),
            payload: { [] }),
        AppendixFrame(
            name: "A4 RegisterSecondaryTransport v5 message 1",
            hex: "50 00 07 01 00 00 00 00 00 00 00 01",
            header: FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0x07, sessionID: 1, dataSize: 0, messageID: 1),
            payload: { [] }),
        AppendixFrame(
            name: "A5 EndService(RPC) BSON hashId 0x00010001",
            hex: "50 07 04 01 00 00 00 11 00 00 00 09  11 00 00 00 10 68 61 73 68 49 64 00 01 00 01 00 00",
            header: FrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 0x04, sessionID: 1, dataSize: 17, messageID: 9),
            payload: { ControlPayload(hashID: 0x0001_0001).encoded }),
        AppendixFrame(
            name: "A6 Single on Hybrid: PutFile request, correlation 5, {} + AA BB",
            hex: "51 0F 00 01 00 00 00 10 00 00 00 0A  00 00 00 20 00 00 00 05 00 00 00 02  7B 7D  AA BB",
            header: FrameHeader(version: 5, frameType: .single, serviceType: .hybrid, frameInfo: 0, sessionID: 1, dataSize: 16, messageID: 10),
            payload: { RPCPacket(messageType: .request, functionID: 0x20, correlationID: 5, json: Array("{}".utf8), bulkData: [0xAA, 0xBB]).encoded }),
        AppendixFrame(
            name: "A7 StartService(Video) v5 BSON height/width/videoProtocol/videoCodec",
            hex: """
                50 0B 01 01 00 00 00 48 00 00 00 0B
                48 00 00 00 10 68 65 69 67 68 74 00 E0 01 00 00 10 77 69 64 74 68 00 20 03 00 00
                02 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00 04 00 00 00 52 41 57 00
                02 76 69 64 65 6F 43 6F 64 65 63 00 05 00 00 00 48 32 36 34 00 00
                """,
            header: FrameHeader(version: 5, frameType: .control, serviceType: .video, frameInfo: 0x01, sessionID: 1, dataSize: 72, messageID: 11),
            payload: { ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264").encoded }),
    ]

    @Test("Appendix A frame encodes byte-exactly", arguments: frames)
    func encodes(_ f: AppendixFrame) {
        let bytes = Frame(header: f.header, payload: f.payload()).encoded
        #expect(PT.hex(bytes) == PT.hex(PT.bytes(f.hex)))
    }

    @Test("Appendix A frame decodes to its header and payload", arguments: frames)
    func decodes(_ f: AppendixFrame) {
        let decoded = PT.frames(PT.bytes(f.hex))
        #expect(decoded.count == 1)
        #expect(decoded.first?.header == f.header)
        #expect(decoded.first?.payload == f.payload())
    }

    @Test("A1/A5/A7 payloads decode to the control payload values")
    func controlPayloads() throws {
        let a1 = try #require(PT.frames(PT.bytes(Self.frames[0].hex)).first)
        #expect(ControlPayload(bytes: a1.payload) == ControlPayload(protocolVersion: "5.4.1"))
        let a5 = try #require(PT.frames(PT.bytes(Self.frames[4].hex)).first)
        #expect(ControlPayload(bytes: a5.payload) == ControlPayload(hashID: 0x0001_0001))
        let a7 = try #require(PT.frames(PT.bytes(Self.frames[6].hex)).first)
        #expect(ControlPayload(bytes: a7.payload) == ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264"))
    }

    @Test("A6 decodes to version 5, Single, Hybrid, session 1, size 16, message 10, then PutFile request 5, {} and AA BB")
    func a6RPC() throws {
        let frame = try #require(PT.frames(PT.bytes(Self.frames[5].hex)).first)
        #expect(frame.header.version == 5)
        #expect(frame.header.isEncrypted == false)
        #expect(frame.header.frameType == .single)
        #expect(frame.header.serviceType == .hybrid)
        #expect(frame.header.sessionID == 1)
        #expect(frame.header.dataSize == 16)
        #expect(frame.header.messageID == 10)
        let rpc = try RPCPacket(decoding: frame.payload)
        #expect(rpc.messageType == .request)
        #expect(rpc.functionID == 0x20)
        #expect(rpc.correlationID == 5)
        #expect(rpc.json == Array("{}".utf8))
        #expect(rpc.bulkData == [0xAA, 0xBB])
        #expect(rpc.serviceType == .hybrid)
    }
}
