// Control-frame payloads of PROTOCOL.md §4.3 with their exact BSON types: mtu int64,
// hashId/height/width/tcpPort int32 (bson_c_lib's getters and java's casts read any other
// type as absent; §10 item 12). Hex written element by element from the §5 layout.
import Testing
@testable import SmartDeviceLink

struct PayloadVector: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var payload: ControlPayload
    var testDescription: String { name }
}

@Suite("Protocol: control payloads of §4.3")
struct ProtocolControlPayloadTests {
    static let vectors: [PayloadVector] = [
        PayloadVector(
            name: "StartService(RPC) {protocolVersion}",
            hex: "20 00 00 00  02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 31 00  00",
            payload: ControlPayload(protocolVersion: "5.4.1")),
        PayloadVector(
            name: "StartService(Video) {height, width: int32; videoProtocol, videoCodec: string} (A7)",
            hex: """
                48 00 00 00
                10 68 65 69 67 68 74 00  E0 01 00 00
                10 77 69 64 74 68 00  20 03 00 00
                02 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00  04 00 00 00 52 41 57 00
                02 76 69 64 65 6F 43 6F 64 65 63 00  05 00 00 00 48 32 36 34 00
                00
                """,
            payload: ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264")),
        PayloadVector(
            name: "StartServiceACK(RPC) with every key: mtu int64, hashId int32, arrays of string and int32, vehicle strings",
            hex: """
                49 01 00 00
                02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00  06 00 00 00 35 2E 34 2E 30 00
                10 68 61 73 68 49 64 00  01 00 01 00
                12 6D 74 75 00  00 00 02 00 00 00 00 00
                04 73 65 63 6F 6E 64 61 72 79 54 72 61 6E 73 70 6F 72 74 73 00
                   15 00 00 00  02 30 00 09 00 00 00 54 43 50 5F 57 49 46 49 00  00
                04 61 75 64 69 6F 53 65 72 76 69 63 65 54 72 61 6E 73 70 6F 72 74 73 00
                   13 00 00 00  10 30 00 02 00 00 00  10 31 00 01 00 00 00  00
                04 76 69 64 65 6F 53 65 72 76 69 63 65 54 72 61 6E 73 70 6F 72 74 73 00
                   13 00 00 00  10 30 00 02 00 00 00  10 31 00 01 00 00 00  00
                02 61 75 74 68 54 6F 6B 65 6E 00  04 00 00 00 74 6F 6B 00
                02 6D 61 6B 65 00  04 00 00 00 53 44 4C 00
                02 6D 6F 64 65 6C 00  05 00 00 00 43 6F 72 65 00
                02 6D 6F 64 65 6C 59 65 61 72 00  05 00 00 00 32 30 32 34 00
                02 74 72 69 6D 00  03 00 00 00 53 45 00
                02 73 79 73 74 65 6D 53 6F 66 74 77 61 72 65 56 65 72 73 69 6F 6E 00  04 00 00 00 38 2E 32 00
                02 73 79 73 74 65 6D 48 61 72 64 77 61 72 65 56 65 72 73 69 6F 6E 00  04 00 00 00 31 2E 30 00
                00
                """,
            payload: ControlPayload(
                protocolVersion: "5.4.0", hashID: 0x0001_0001, mtu: 131_072, secondaryTransports: ["TCP_WIFI"],
                audioServiceTransports: [2, 1], videoServiceTransports: [2, 1], authToken: "tok", make: "SDL", model: "Core",
                modelYear: "2024", trim: "SE", systemSoftwareVersion: "8.2", systemHardwareVersion: "1.0")),
        PayloadVector(
            name: "StartServiceACK(Audio) {mtu: int64}",
            hex: "12 00 00 00  12 6D 74 75 00 00 00 02 00 00 00 00 00  00",
            payload: ControlPayload(mtu: 131_072)),
        PayloadVector(
            name: "StartServiceACK(Video) {mtu int64, height, width, videoProtocol, videoCodec}",
            hex: """
                55 00 00 00
                12 6D 74 75 00  DC 05 00 00 00 00 00 00
                10 68 65 69 67 68 74 00  E0 01 00 00
                10 77 69 64 74 68 00  20 03 00 00
                02 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00  04 00 00 00 52 41 57 00
                02 76 69 64 65 6F 43 6F 64 65 63 00  05 00 00 00 48 32 36 34 00
                00
                """,
            payload: ControlPayload(mtu: 1500, height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264")),
        PayloadVector(
            name: "StartServiceNAK {rejectedParams: [string], reason}",
            hex: """
                51 00 00 00
                04 72 65 6A 65 63 74 65 64 50 61 72 61 6D 73 00
                   2C 00 00 00  02 30 00 0B 00 00 00 76 69 64 65 6F 43 6F 64 65 63 00
                                02 31 00 0E 00 00 00 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00  00
                02 72 65 61 73 6F 6E 00  04 00 00 00 62 61 64 00
                00
                """,
            payload: ControlPayload(rejectedParams: ["videoCodec", "videoProtocol"], reason: "bad")),
        PayloadVector(
            name: "EndService(RPC) {hashId: int32} (A5)",
            hex: "11 00 00 00  10 68 61 73 68 49 64 00 01 00 01 00  00",
            payload: ControlPayload(hashID: 0x0001_0001)),
        PayloadVector(
            name: "EndService(RPC) negative hashId stays int32",
            hex: "11 00 00 00  10 68 61 73 68 49 64 00 FE FF FF FF  00",
            payload: ControlPayload(hashID: -2)),
        PayloadVector(
            name: "EndServiceNAK {rejectedParams:[\"hashId\"], reason}",
            hex: """
                3F 00 00 00
                04 72 65 6A 65 63 74 65 64 50 61 72 61 6D 73 00  13 00 00 00 02 30 00 07 00 00 00 68 61 73 68 49 64 00 00
                02 72 65 61 73 6F 6E 00  0B 00 00 00 77 72 6F 6E 67 20 68 61 73 68 00
                00
                """,
            payload: ControlPayload(rejectedParams: ["hashId"], reason: "wrong hash")),
        PayloadVector(
            name: "RegisterSecondaryTransportNAK {reason}",
            hex: "14 00 00 00  02 72 65 61 73 6F 6E 00 03 00 00 00 6E 6F 00  00",
            payload: ControlPayload(reason: "no")),
        PayloadVector(
            name: "TransportEventUpdate {tcpIpAddress, tcpPort: int32}",
            hex: """
                31 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 0D 00 00 00 31 39 32 2E 31 36 38 2E 31 2E 31 30 00
                10 74 63 70 50 6F 72 74 00 39 30 00 00  00
                """,
            payload: ControlPayload(tcpIPAddress: "192.168.1.10", tcpPort: 12345)),
        PayloadVector(
            name: "TransportEventUpdate with an empty address (TCP gone) and no port",
            hex: "18 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 01 00 00 00 00  00",
            payload: ControlPayload(tcpIPAddress: "")),
        PayloadVector(name: "no keys at all", hex: "05 00 00 00 00", payload: ControlPayload()),
    ]

    @Test("encodes byte-exactly with the BSON type each key requires", arguments: vectors)
    func encodes(_ v: PayloadVector) {
        #expect(PT.hex(v.payload.encoded) == PT.hex(PT.bytes(v.hex)))
    }

    @Test("decodes the hand-written bytes", arguments: vectors)
    func decodes(_ v: PayloadVector) {
        #expect(ControlPayload(bytes: PT.bytes(v.hex)) == v.payload)
    }

    @Test("mtu sent as int32 is accepted too (§10 #12 leniency)")
    func mtuAsInt32() {
        #expect(ControlPayload(bytes: PT.bytes("0E 00 00 00  10 6D 74 75 00 DC 05 00 00  00"))?.mtu == 1500)
    }

    @Test("a key of the wrong BSON type reads as absent (hashId int64, tcpPort int64, height string, mtu string)")
    func wrongTypesAbsent() {
        let hashI64 = ControlPayload(bytes: PT.bytes("15 00 00 00  12 68 61 73 68 49 64 00 05 00 00 00 00 00 00 00  00"))
        #expect(hashI64 != nil)
        #expect(hashI64?.hashID == nil)
        let portI64 = ControlPayload(bytes: PT.bytes("""
            2A 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 02 00 00 00 68 00
            12 74 63 70 50 6F 72 74 00 05 00 00 00 00 00 00 00  00
            """))
        #expect(portI64?.tcpIPAddress == "h")
        #expect(portI64?.tcpPort == nil)
        let heightString = ControlPayload(bytes: PT.bytes("15 00 00 00  02 68 65 69 67 68 74 00 04 00 00 00 34 38 30 00  00"))
        #expect(heightString != nil)
        #expect(heightString?.height == nil)
        let mtuString = ControlPayload(bytes: PT.bytes("10 00 00 00  02 6D 74 75 00 02 00 00 00 31 00  00"))
        #expect(mtuString?.mtu == nil)
    }

    @Test("bytes that are not BSON give nil (core treats the payload as empty)")
    func unparsable() {
        #expect(ControlPayload(bytes: PT.bytes("00 00 00 01")) == nil)
        #expect(ControlPayload(bytes: PT.bytes("00 01 00 01")) == nil, "a v4 raw hash is not BSON")
    }

    @Test("protocol version strings: parse, order, and reject what core's ParseFullVersion would not",
          arguments: [("5.4.1", ProtocolVersion(5, 4, 1)), ("5.4.0", ProtocolVersion(5, 4, 0)), ("5", ProtocolVersion(5)),
                      ("4.10.2", ProtocolVersion(4, 10, 2)), ("x", nil), ("", nil), ("5..1", nil), ("5.4.1.0", nil), ("-5.0.0", nil)])
    func versions(text: String, expected: ProtocolVersion?) {
        #expect(ProtocolVersion(text) == expected)
    }

    @Test("version ordering: 5.4.0 < 5.4.1 < 5.10.0 and latest/coreMaximum")
    func versionOrder() {
        #expect(ProtocolVersion(5, 4, 0) < ProtocolVersion(5, 4, 1))
        #expect(ProtocolVersion(5, 4, 1) < ProtocolVersion(5, 10, 0))
        #expect(ProtocolVersion(4, 9, 9) < ProtocolVersion(5))
        #expect(ProtocolVersion.latest.description == "5.4.1")
        #expect(ProtocolVersion.coreMaximum.description == "5.4.0")
    }
}
