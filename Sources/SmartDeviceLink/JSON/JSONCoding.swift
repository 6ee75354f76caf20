/// Why a JSON text could not be parsed, with the byte offset of the problem.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset in the text where parsing stopped.
    public var offset: Int
    /// What was expected there, or what was wrong.
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses UTF-8 JSON text (RFC 8259). Integers without fraction or exponent that fit
    /// 64 bits become ``JSONValue/int(_:)``; other numbers ``JSONValue/double(_:)``.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        // An array is read where it is: no copy.
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// Parses UTF-8 JSON text from any collection of bytes.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        // One memcpy for contiguous input; a generic Array(bytes) would copy byte by byte.
        try parse(bytes.withContiguousStorageIfAvailable { Array($0) } ?? Array(bytes))
    }

    /// Parses a JSON text given as a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Writes compact JSON. With `sortedKeys` the output is deterministic.
    public func serialized(sortedKeys: Bool = true) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// Writes compact UTF-8 JSON bytes.
    public func serializedBytes(sortedKeys: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONWriter.write(self, into: &out, sortedKeys: sortedKeys)
        return out
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    /// Nesting guard: a hostile peer must not overflow the stack.
    var depth = 0
    static let maximumDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        // sdl_core appends a NUL after v1 JSON; tolerate trailing NULs.
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        let matches = literal.withUTF8Buffer { lit in
            (0..<count).allSatisfy { bytes[index + $0] == lit[$0] }
        }
        guard matches else { throw fail("invalid literal") }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting deeper than \(Self.maximumDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        // Room for three keys at once: most RPC objects are that small, and growing from
        // empty allocates at the first and again at the second key.
        var object = JSONObject(minimumCapacity: 3)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("lone high surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw fail("lone low surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid unicode escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("invalid escape")
                }
            default:
                if byte < 0x20 { throw fail("control character in string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw fail("expected a digit")
        }
        while index < bytes.count {
            let c = bytes[index]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) {
                index += 1
            } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
            {
                isInteger = false
                index += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let int = Int64(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else { throw JSONParseError(offset: start, reason: "invalid number") }
        return .double(double)
    }
}

private enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8], sortedKeys: Bool) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): writeInteger(i, into: &out)
        case .double(let d): writeDouble(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            // Pairs sorted by key, not keys sorted and each looked up again: no hashing.
            var first = true
            func member(_ key: String, _ value: JSONValue) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(value, into: &out, sortedKeys: sortedKeys)
            }
            if sortedKeys, object.count > 1 {
                for (key, value) in object.sorted(by: { $0.key < $1.key }) { member(key, value) }
            } else {
                for (key, value) in object { member(key, value) }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: "null".utf8)  // JSON has no NaN/Infinity
            return
        }
        if d.rounded() == d, abs(d) < 1e15 {
            // Keep the value a JSON number with a fraction so it reads back as a double.
            out.append(contentsOf: "\(Int64(d)).0".utf8)
        } else {
            out.append(contentsOf: "\(d)".utf8)
        }
    }

    /// Decimal digits straight into `out` (`String(i)` allocated a string per number).
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int64.min has 19 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: buffer[(24 - count)...])
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: one copy of the whole run.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
