import SmartDeviceLink
import Testing

@Suite("JSON: exact values, deterministic output")
struct JSONValueTests {
    @Test("integers stay integers, doubles stay doubles")
    func numberKinds() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":1.5,"c":-9223372036854775808,"d":1e3,"e":18446744073709551616}"#)
        #expect(value["a"] == .int(1))
        #expect(value["b"] == .double(1.5))
        #expect(value["c"] == .int(Int64.min))
        #expect(value["d"] == .double(1000))
        #expect(value["e"] == .double(18446744073709551616))  // beyond Int64: kept as a double, not an error
    }

    @Test("strings: escapes, surrogate pairs, UTF-8 passthrough")
    func strings() throws {
        let value = try JSONValue.parse(#"["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00", "é😀"]"#)
        #expect(value == .array(["a\"b\\c/\n\t", "é😀", "é😀"]))
        #expect(JSONValue.string("a\"\n\u{1}").serialized() == #""a\"\n\u0001""#)
    }

    @Test("serialization sorts keys and round-trips")
    func roundTrip() throws {
        let value: JSONValue = ["z": 1, "a": [true, nil, 2.5, "x"], "m": ["k": "v"]]
        let text = value.serialized()
        #expect(text == #"{"a":[true,null,2.5,"x"],"m":{"k":"v"},"z":1}"#)
        #expect(try JSONValue.parse(text) == value)
        #expect(JSONValue.double(3).serialized() == "3.0")
    }

    @Test("integers are written as String(describing:) writes them, at every edge")
    func integersWritten() throws {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator)) }
        for value in values {
            #expect(JSONValue.int(value).serialized() == String(value))
            #expect(try JSONValue.parse(JSONValue.int(value).serialized()) == .int(value))
        }
    }

    @Test("keys and strings with and without escapes, sorted or not, read back the same")
    func objectsWritten() throws {
        let value: JSONValue = ["plain": "text", "quote\"": "a\\b", "ünï": "çödé 😀", "ctl\u{1F}": "\u{7F}", "": ""]
        // DEL needs no escape in JSON: it goes out as it is.
        #expect(value.serialized() == #"{"":"","ctl\u001f":""# + "\u{7F}" + #"","plain":"text","quote\"":"a\\b","ünï":"çödé 😀"}"#)
        #expect(try JSONValue.parse(value.serialized(sortedKeys: false)) == value)
    }

    @Test("trailing NUL after v1 JSON is tolerated (core appends one)")
    func trailingNUL() throws {
        #expect(try JSONValue.parse(Array(#"{"a":1}"#.utf8) + [0]) == ["a": 1])
    }

    @Test("errors carry the offset", arguments: [
        (#"{"a":}"#, 5), (#"[1,2"#, 4), (#"{"a" 1}"#, 5), ("tru", 0), (#""\x""#, 3), ("01x", 2), ("{} {}", 3),
    ])
    func errors(text: String, offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        do {
            _ = try JSONValue.parse(text)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }

    @Test("numeric equality treats 5 and 5.0 alike")
    func numericEquality() {
        #expect(JSONValue.int(5).numericallyEquals(.double(5.0)))
        #expect(!JSONValue.int(5).numericallyEquals(.double(5.5)))
        #expect(JSONValue.object(["a": [1]]).numericallyEquals(["a": [1.0]]))
    }
}
