// Cross-check of our BSON against pymongo's `bson`, an independent implementation
// (installed by scripts/setup). One python process handles every document: documents go in
// as tagged JSON lines (strings, keys and doubles as hex so nothing is re-interpreted), and
// pymongo's encoding comes back as one hex line per document.
import Foundation
import SDLTestSupport
import Testing
@testable import SmartDeviceLink

enum PTPymongo {
    static let script = #"""
import sys, json, struct
try:
    import bson
    from bson.int64 import Int64
    from bson.son import SON
except ImportError as e:
    sys.stderr.write("cannot import pymongo's bson: %s\n" % e)
    sys.exit(3)
def value(v):
    t, x = v
    if t == "i32": return int(x)
    if t == "i64": return Int64(int(x))
    if t == "f": return struct.unpack("<d", bytes.fromhex(x))[0]
    if t == "b": return bool(x)
    if t == "s": return bytes.fromhex(x).decode("utf-8")
    if t == "d": return doc(x)
    if t == "a": return [value(i) for i in x]
    raise ValueError(t)
def doc(items):
    return SON([(bytes.fromhex(k).decode("utf-8"), value(v)) for k, v in items])
out = []
for line in sys.stdin.read().splitlines():
    out.append(bson.encode(doc(json.loads(line))).hex())
sys.stdout.write("\n".join(out) + "\n")
"""#

    /// Runs the script once for all documents, off the pool; nil (with a recorded issue) when
    /// python3 or pymongo is missing.
    static func encode(_ documents: [BSONDocument]) async -> [String]? {
        let input = documents.map(tagged).joined(separator: "\n") + "\n"
        let outcome: ChildProcessResult
        do {
            // Debian's python3 with Debian's python3-bson (scripts/setup), whatever python3 comes first on PATH.
            outcome = try await runChildProcess("/usr/bin/python3", ["-c", script], input: Data(input.utf8))
        } catch {
            Issue.record("cannot run python3 (\(error)); run scripts/setup to install python3 and pymongo's bson")
            return nil
        }
        guard outcome.status == 0 else {
            Issue.record("""
                python3 with pymongo's bson failed (exit \(outcome.status)): \
                \(String(decoding: outcome.errors, as: UTF8.self)) — run scripts/setup to install python3 and pymongo's bson
                """)
            return nil
        }
        return String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func tagged(_ doc: BSONDocument) -> String {
        "[" + doc.elements.map { "[\"\(PT.hex($0.key.utf8))\",\(tagged($0.value))]" }.joined(separator: ",") + "]"
    }

    static func tagged(_ value: BSONValue) -> String {
        switch value {
        case .int32(let i): return "[\"i32\",\(i)]"
        case .int64(let i): return "[\"i64\",\"\(i)\"]"
        case .double(let d):
            let bits = d.bitPattern
            return "[\"f\",\"\(PT.hex((0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }))\"]"
        case .bool(let b): return "[\"b\",\(b)]"
        case .string(let s): return "[\"s\",\"\(PT.hex(s.utf8))\"]"
        case .document(let d): return "[\"d\",\(tagged(d))]"
        case .array(let items): return "[\"a\",[" + items.map(tagged).joined(separator: ",") + "]]"
        }
    }
}

/// Deterministic pseudo-random documents over the whole subset.
struct PTDocumentGenerator {
    var rng: SeededRandom
    static let characters: [String] = ["a", "b", "Z", "0", "9", " ", ".", "_", "é", "ß", "€", "中", "键", "𝄞", "😀", "\u{7F}", "\u{1}", "\"", "\\", "\n"]
    static let specialDoubles: [Double] = [0, -0.0, 1, -1, 1.5, .pi, .infinity, -.infinity, .greatestFiniteMagnitude,
                                           .leastNonzeroMagnitude, .leastNormalMagnitude, Double(bitPattern: 0x0000_0123_4567_89AB), 123_456.789]

    mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    mutating func string(maxLength: Int) -> String {
        String((0..<int(maxLength + 1)).map { _ in Self.characters[int(Self.characters.count)] }.joined())
    }

    mutating func double() -> Double {
        if int(3) == 0 { return Self.specialDoubles[int(Self.specialDoubles.count)] }
        while true {
            let d = Double(bitPattern: rng.next())
            if !d.isNaN { return d }  // NaN != NaN would defeat the decode comparison
        }
    }

    mutating func value(depth: Int) -> BSONValue {
        switch int(depth < 3 ? 9 : 7) {
        case 0: return .string(string(maxLength: 12))
        case 1:
            let edges: [Int32] = [0, 1, -1, .max, .min]
            return .int32(int(2) == 0 ? edges[int(edges.count)] : Int32(truncatingIfNeeded: rng.next()))
        case 2:
            let edges: [Int64] = [0, 1, -1, .max, .min, 131_072]
            return .int64(int(2) == 0 ? edges[int(edges.count)] : Int64(bitPattern: rng.next()))
        case 3: return .double(double())
        case 4: return .bool(int(2) == 0)
        case 5: return .string(string(maxLength: 3))
        case 6: return .int32(Int32(int(100)))
        case 7: return .document(document(depth: depth + 1))
        default: return .array((0..<int(5)).map { _ in value(depth: depth + 1) })
        }
    }

    mutating func document(depth: Int = 0) -> BSONDocument {
        let count = int(depth == 0 ? 8 : 4)
        // Keys are unique within a document (the index is part of the key) and never hold NUL.
        return BSONDocument((0..<count).map { i in
            BSONElement(string(maxLength: 4) + "\(i)", value(depth: depth))
        })
    }
}

@Suite("Protocol: BSON cross-check with pymongo")
struct ProtocolBSONPymongoTests {
    @Test("our encoding equals pymongo's for 300 generated documents, and we decode pymongo's bytes to the same documents")
    func crossCheck() async throws {
        var generator = PTDocumentGenerator(rng: SeededRandom(seed: 2024))
        var documents: [BSONDocument] = [[:], ControlPayload(protocolVersion: "5.4.1").document]
        for _ in 0..<300 { documents.append(generator.document()) }
        guard let theirs = await PTPymongo.encode(documents) else { return }
        try #require(theirs.count == documents.count, "pymongo returned \(theirs.count) lines for \(documents.count) documents")
        var mismatches = 0
        for (doc, hex) in zip(documents, theirs) {
            let ours = PT.hex(doc.encoded)
            if ours != hex {
                mismatches += 1
                if mismatches <= 3 { Issue.record("encoding differs for \(doc)\n ours:    \(ours)\n pymongo: \(hex)") }
            }
            do {
                let decoded = try BSONDocument(decoding: PT.bytes(hex))
                #expect(decoded == doc)
            } catch {
                Issue.record("cannot decode pymongo's bytes \(hex): \(error)")
            }
        }
        #expect(mismatches == 0)
    }
}
