// The BSON subset of PROTOCOL.md §5 (bson: src/bson_object.c bson_object_from_bytes_len).
import Foundation
import SDLTestSupport
import Testing
@testable import SmartDeviceLink

struct BSONVector: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var document: BSONDocument
    var testDescription: String { name }
}

@Suite("Protocol: BSON subset")
struct ProtocolBSONTests {
    /// The four test vectors of §5, then one per type of the subset (little-endian values).
    static let vectors: [BSONVector] = [
        BSONVector(name: "§5 {protocolVersion:\"5.4.1\"}",
                   hex: "20 00 00 00  02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 31 00  00",
                   document: ["protocolVersion": .string("5.4.1")]),
        BSONVector(name: "§5 {hashId:int32 0x00010001, mtu:int64 131072}",
                   hex: "1E 00 00 00  10 68 61 73 68 49 64 00 01 00 01 00  12 6D 74 75 00 00 00 02 00 00 00 00 00  00",
                   document: ["hashId": .int32(0x0001_0001), "mtu": .int64(131_072)]),
        BSONVector(name: "§5 {tcpIpAddress:\"192.168.1.10\", tcpPort:12345}",
                   hex: """
                       31 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 0D 00 00 00 31 39 32 2E 31 36 38 2E 31 2E 31 30 00
                       10 74 63 70 50 6F 72 74 00 39 30 00 00  00
                       """,
                   document: ["tcpIpAddress": .string("192.168.1.10"), "tcpPort": .int32(12345)]),
        BSONVector(name: "§5 {secondaryTransports:[\"TCP_WIFI\"]}",
                   hex: """
                       2F 00 00 00  04 73 65 63 6F 6E 64 61 72 79 54 72 61 6E 73 70 6F 72 74 73 00
                       15 00 00 00 02 30 00 09 00 00 00 54 43 50 5F 57 49 46 49 00 00  00
                       """,
                   document: ["secondaryTransports": .array([.string("TCP_WIFI")])]),
        BSONVector(name: "empty document", hex: "05 00 00 00 00", document: [:]),
        BSONVector(name: "double 1.5 (0x01, IEEE-754 LE)", hex: "10 00 00 00  01 64 00 00 00 00 00 00 00 F8 3F  00",
                   document: ["d": .double(1.5)]),
        BSONVector(name: "string with UTF-8 é (0x02, length counts bytes + NUL)", hex: "0F 00 00 00  02 73 00 03 00 00 00 C3 A9 00  00",
                   document: ["s": .string("é")]),
        BSONVector(name: "empty string", hex: "0D 00 00 00  02 73 00 01 00 00 00 00  00", document: ["s": .string("")]),
        BSONVector(name: "embedded document (0x03)", hex: "14 00 00 00  03 6F 00 0C 00 00 00 10 69 00 01 00 00 00 00  00",
                   document: ["o": .document(["i": .int32(1)])]),
        BSONVector(name: "array of booleans (0x04 with keys \"0\",\"1\"; 0x08)",
                   hex: "15 00 00 00  04 61 00 0D 00 00 00 08 30 00 01 08 31 00 00 00  00",
                   document: ["a": .array([.bool(true), .bool(false)])]),
        BSONVector(name: "empty array", hex: "0D 00 00 00  04 61 00 05 00 00 00 00  00", document: ["a": .array([])]),
        BSONVector(name: "negative int32 (0x10)", hex: "0C 00 00 00  10 69 00 FE FF FF FF  00", document: ["i": .int32(-2)]),
        BSONVector(name: "int64 0x0102030405060708 (0x12)", hex: "10 00 00 00  12 6C 00 08 07 06 05 04 03 02 01  00",
                   document: ["l": .int64(0x0102_0304_0506_0708)]),
        BSONVector(name: "int64 -1", hex: "10 00 00 00  12 6C 00 FF FF FF FF FF FF FF FF  00", document: ["l": .int64(-1)]),
    ]

    @Test("encodes to the hand-written bytes", arguments: vectors)
    func encodes(_ v: BSONVector) {
        #expect(PT.hex(v.document.encoded) == PT.hex(PT.bytes(v.hex)))
    }

    @Test("decodes from the hand-written bytes", arguments: vectors)
    func decodes(_ v: BSONVector) throws {
        #expect(try BSONDocument(decoding: PT.bytes(v.hex)) == v.document)
    }

    /// Type bytes outside the subset: null, binary, datetime, ObjectId, regex, minKey, maxKey,
    /// decimal128, and one inside an array.
    static let unknownTypes: [BSONVector] = [
        BSONVector(name: "null 0x0A", hex: "08 00 00 00  0A 6E 00  00", document: [:]),
        BSONVector(name: "binary 0x05", hex: "0E 00 00 00  05 62 00 01 00 00 00 00 FF  00", document: [:]),
        BSONVector(name: "datetime 0x09", hex: "10 00 00 00  09 74 00 00 00 00 00 00 00 00 00  00", document: [:]),
        BSONVector(name: "ObjectId 0x07", hex: "14 00 00 00  07 6F 00 01 02 03 04 05 06 07 08 09 0A 0B 0C  00", document: [:]),
        BSONVector(name: "timestamp 0x11", hex: "10 00 00 00  11 74 00 01 00 00 00 02 00 00 00  00", document: [:]),
        BSONVector(name: "minKey 0xFF", hex: "08 00 00 00  FF 6B 00  00", document: [:]),
        BSONVector(name: "maxKey 0x7F", hex: "08 00 00 00  7F 6B 00  00", document: [:]),
        BSONVector(name: "type 0x00 inside the elements", hex: "0A 00 00 00  00 6B 00 00 00  00", document: [:]),
        BSONVector(name: "null inside an array", hex: "10 00 00 00  04 61 00 08 00 00 00 0A 30 00 00  00", document: [:]),
        BSONVector(name: "valid keys before an unknown type", hex: "13 00 00 00  10 69 00 01 00 00 00  0A 6E 00  08 62 00 01  00", document: [:]),
    ]

    @Test("an unknown type byte fails the whole document", arguments: unknownTypes)
    func unknownTypeFails(_ v: BSONVector) {
        #expect(throws: BSONError.self) { try BSONDocument(decoding: PT.bytes(v.hex)) }
        #expect(ControlPayload(bytes: PT.bytes(v.hex)) == nil)
    }

    /// Lengths that lie or data that ends early; each must throw, never crash.
    static let lying: [BSONVector] = [
        BSONVector(name: "no bytes", hex: "", document: [:]),
        BSONVector(name: "3 bytes", hex: "05 00 00", document: [:]),
        BSONVector(name: "length 4 (below the minimum 5)", hex: "04 00 00 00", document: [:]),
        BSONVector(name: "length 0", hex: "00 00 00 00 00", document: [:]),
        BSONVector(name: "length 0xFFFFFFFF", hex: "FF FF FF FF 00", document: [:]),
        BSONVector(name: "length larger than the data", hex: "0D 00 00 00 10 69 00 FE FF FF FF 00", document: [:]),
        BSONVector(name: "length smaller than the elements", hex: "0B 00 00 00 10 69 00 FE FF FF FF 00", document: [:]),
        BSONVector(name: "missing terminating 0x00", hex: "0C 00 00 00 10 69 00 FE FF FF FF 01", document: [:]),
        BSONVector(name: "trailing byte after the document", hex: "05 00 00 00 00 00", document: [:]),
        BSONVector(name: "key without NUL", hex: "08 00 00 00 10 69 69 69", document: [:]),
        BSONVector(name: "string length beyond the data", hex: "0F 00 00 00 02 73 00 FF 00 00 00 C3 A9 00 00", document: [:]),
        BSONVector(name: "string length 0", hex: "0F 00 00 00 02 73 00 00 00 00 00 C3 A9 00 00", document: [:]),
        BSONVector(name: "string length negative", hex: "0F 00 00 00 02 73 00 FF FF FF FF C3 A9 00 00", document: [:]),
        BSONVector(name: "string without its NUL", hex: "0F 00 00 00 02 73 00 03 00 00 00 C3 A9 41 00", document: [:]),
        BSONVector(name: "nested length beyond its parent", hex: "14 00 00 00 03 6F 00 0D 00 00 00 10 69 00 01 00 00 00 00 00", document: [:]),
        BSONVector(name: "nested length 0xFFFFFFFF", hex: "14 00 00 00 03 6F 00 FF FF FF FF 10 69 00 01 00 00 00 00 00", document: [:]),
        BSONVector(name: "array length too small", hex: "15 00 00 00 04 61 00 06 00 00 00 08 30 00 01 08 31 00 00 00 00", document: [:]),
        BSONVector(name: "boolean byte 2", hex: "09 00 00 00 08 62 00 02 00", document: [:]),
        BSONVector(name: "int64 cut short", hex: "0C 00 00 00 12 6C 00 01 02 03 04 00", document: [:]),
        BSONVector(name: "double cut short", hex: "0A 00 00 00 01 64 00 01 02 00", document: [:]),
    ]

    @Test("truncated or lying lengths fail with an error", arguments: lying)
    func lyingLengthsFail(_ v: BSONVector) {
        #expect(throws: BSONError.self) { try BSONDocument(decoding: PT.bytes(v.hex)) }
    }

    /// Found by `scripts/fuzz bson`: a key with bytes that are not UTF-8 decoded to other
    /// text (U+FFFD), so the document handed on was not the one received. pymongo refuses it.
    @Test("a key or a string that is not valid UTF-8 fails with an error naming where")
    func invalidUTF8Fails() throws {
        // {"k\x8C": 1} and {"k": "\xC3("}
        let badKey = PT.bytes("0D 00 00 00 10 6B 8C 00 01 00 00 00 00")
        let badString = PT.bytes("0F 00 00 00 02 6B 00 03 00 00 00 C3 28 00 00")
        #expect(throws: BSONError(offset: 5, reason: "key is not valid UTF-8")) { try BSONDocument(decoding: badKey) }
        #expect(throws: BSONError(offset: 11, reason: "string is not valid UTF-8")) { try BSONDocument(decoding: badString) }
        let fuzzFinding = try #require(FileManager.default.contents(atPath: Self.fuzzInputs + "/finding-invalid-utf8-key"))
        #expect(throws: BSONError.self) { try BSONDocument(decoding: Array(fuzzFinding)) }
    }

    static let fuzzInputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SDLFuzzTests/Inputs/bson").path

    @Test("every proper prefix of every valid vector fails with an error")
    func prefixesFail() {
        for v in Self.vectors {
            let bytes = PT.bytes(v.hex)
            for n in 0..<bytes.count {
                #expect(throws: BSONError.self, "\(v.name) cut to \(n) bytes") { try BSONDocument(decoding: bytes[..<n]) }
            }
        }
    }

    @Test("random corruption of valid documents never crashes; what parses re-encodes to a parsable document")
    func corruptionNeverCrashes() {
        var rng = SeededRandom(seed: 42)
        let samples = Self.vectors.map { PT.bytes($0.hex) }
        for _ in 0..<5000 {
            var bytes = samples[Int(rng.next() % UInt64(samples.count))]
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes[i] ^= 0x80
                default: bytes.removeSubrange(i...)
                }
                if bytes.isEmpty { break }
            }
            if let doc = try? BSONDocument(decoding: bytes) {
                #expect((try? BSONDocument(decoding: doc.encoded)) != nil)
            }
        }
    }

    @Test("nesting deeper than the parser's limit fails with an error, not a stack overflow")
    func deepNesting() {
        // 1000 nested empty-key documents: 03 00 <doc> ... written with computed lengths.
        var inner = PT.bytes("05 00 00 00 00")
        for _ in 0..<1000 {
            let length = UInt32(4 + 2 + inner.count + 1)
            inner = [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)] + [0x03, 0x00] + inner + [0x00]
        }
        #expect(throws: BSONError.self) { try BSONDocument(decoding: inner) }
    }

    @Test("typed getters read a value of another type as absent; int64 accepts int32 (mtu leniency)")
    func typedGetters() {
        let doc: BSONDocument = ["a": .int32(7), "b": .int64(8), "c": .string("x"), "d": .bool(true), "e": .array([.string("s"), .int32(1)])]
        #expect(doc.int32("a") == 7)
        #expect(doc.int32("b") == nil)
        #expect(doc.int64("a") == 7)
        #expect(doc.int64("b") == 8)
        #expect(doc.string("a") == nil)
        #expect(doc.string("c") == "x")
        #expect(doc.bool("d") == true)
        #expect(doc.bool("a") == nil)
        #expect(doc.int32("missing") == nil)
        #expect(doc.strings("c") == nil)
    }

    @Test("key order carries no meaning: sameContent ignores it, including nested documents")
    func sameContent() {
        let a: BSONDocument = ["x": .int32(1), "y": .document(["p": .bool(true), "q": .string("s")])]
        let b: BSONDocument = ["y": .document(["q": .string("s"), "p": .bool(true)]), "x": .int32(1)]
        #expect(a.sameContent(as: b))
        #expect(!a.sameContent(as: ["x": .int32(1)]))
        #expect(!a.sameContent(as: ["x": .int64(1), "y": .document(["p": .bool(true), "q": .string("s")])]))
    }
}
