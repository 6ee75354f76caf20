import SmartDeviceLink
import Testing

@Suite("Security queries: the handshake's and the errors' envelope in Control-service frames")
struct SecurityQueryTests {
    @Test("a handshake response: type, 24-bit ID, sequence number and JSON size big endian, then the TLS bytes")
    func handshakeBytes() throws {
        let query = SecurityQuery.handshake([0x16, 0x03, 0x03], kind: .response, sequenceNumber: 0x01020304)
        #expect(query.encoded == [0x10, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x16, 0x03, 0x03])
        #expect(try SecurityQuery(decoding: query.encoded) == query)
    }

    @Test("an internal error as sdl_core writes it (styled JSON, the code again as the last byte) reads as its code and text")
    func coreInternalError() throws {
        // security_manager_impl.cc SendInternalError: Json::Value::toStyledString() and the id byte.
        let json = Array("{\n   \"id\" : 10,\n   \"text\" : \"Certificate is invalid\"\n}\n".utf8)
        let bytes: [UInt8] = [0x20, 0x00, 0x00, 0x02, 0, 0, 0, 7, 0, 0, 0, UInt8(json.count)] + json + [0x0A]
        let query = try SecurityQuery(decoding: bytes)
        #expect(query.kind == .notification && query.query == .internalError && query.sequenceNumber == 7)
        #expect(query.error?.code == .invalidCertificate && query.error?.text == "Certificate is invalid")
        #expect(query.error?.code?.advice.contains("CA the head unit trusts") == true)
        let ours = SecurityQuery.internalError(.expiredCertificate, text: "expired", sequenceNumber: 1)
        #expect(try SecurityQuery(decoding: ours.encoded).error?.code == .expiredCertificate)
    }

    @Test("a short query, an unknown type or ID, and a JSON size past the end are refused, each saying which",
          arguments: [([UInt8](repeating: 0, count: 11), "shorter than its 12-byte header"),
                      ([0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], "unknown type 0x30"),
                      ([0x00, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0], "unknown ID 0x9"),
                      ([0x00, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 1], "says its JSON is 5 bytes but carries 1")])
    func refused(bytes: [UInt8], reason: String) {
        #expect { _ = try SecurityQuery(decoding: bytes) } throws: { "\($0)".contains(reason) }
    }
}
