/// A BSON value of the subset SDL control frames use. All integers are
/// little-endian, unlike the frame header.
package enum BSONValue: Sendable, Hashable {
    case double(Double)
    case string(String)
    case document(BSONDocument)
    case array([BSONValue])
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
}

/// One key and value of a document.
package struct BSONElement: Sendable, Hashable {
    package var key: String
    package var value: BSONValue
    package init(_ key: String, _ value: BSONValue) {
        self.key = key
        self.value = value
    }
}

/// Why bytes are not a BSON document of the supported subset.
package struct BSONError: Error, Sendable, Equatable, CustomStringConvertible {
    package var offset: Int
    package var reason: String
    package var description: String { "invalid BSON at byte \(offset): \(reason)" }
}

/// A BSON document: ordered elements. Key order carries no meaning to peers (bson_c_lib
/// keeps a hash map), so compare documents with ``BSONDocument/sameContent(as:)`` when
/// order may differ.
package struct BSONDocument: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    package var elements: [BSONElement]

    package init(_ elements: [BSONElement] = []) { self.elements = elements }

    package init(dictionaryLiteral elements: (String, BSONValue)...) {
        self.elements = elements.map { BSONElement($0.0, $0.1) }
    }

    package var isEmpty: Bool { elements.isEmpty }

    /// The value for `key`; setting nil removes it, setting a value replaces or appends it.
    package subscript(key: String) -> BSONValue? {
        get { elements.first { $0.key == key }?.value }
        set {
            if let index = elements.firstIndex(where: { $0.key == key }) {
                if let newValue { elements[index].value = newValue } else { elements.remove(at: index) }
            } else if let newValue {
                elements.append(BSONElement(key, newValue))
            }
        }
    }

    /// Same keys with the same values, in any order.
    package func sameContent(as other: BSONDocument) -> Bool {
        guard elements.count == other.elements.count else { return false }
        return elements.allSatisfy { element in
            switch (element.value, other[element.key]) {
            case (.document(let a), .document(let b)?): return a.sameContent(as: b)
            case (let a, let b?): return a == b
            default: return false
            }
        }
    }

    // MARK: Typed getters: a type mismatch reads as absent, as bson_c_lib's getters do.

    package func string(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        return nil
    }

    package func int32(_ key: String) -> Int32? {
        if case .int32(let i)? = self[key] { return i }
        return nil
    }

    /// An int64; an int32 is accepted too (`mtu` leniency).
    package func int64(_ key: String) -> Int64? {
        switch self[key] {
        case .int64(let i)?: return i
        case .int32(let i)?: return Int64(i)
        default: return nil
        }
    }

    package func bool(_ key: String) -> Bool? {
        if case .bool(let b)? = self[key] { return b }
        return nil
    }

    package func strings(_ key: String) -> [String]? {
        guard case .array(let items)? = self[key] else { return nil }
        return items.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
    }

    package func int32s(_ key: String) -> [Int32]? {
        guard case .array(let items)? = self[key] else { return nil }
        return items.compactMap { if case .int32(let i) = $0 { return i } else { return nil } }
    }

    // MARK: Encoding

    /// The wire form.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    func encode(into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0])  // length, patched below
        for element in elements {
            Self.encode(element.value, key: element.key, into: &out)
        }
        out.append(0)
        let length = UInt32(out.count - start)
        withUnsafeBytes(of: length.littleEndian) { bytes in
            for i in 0..<4 { out[start + i] = bytes[i] }
        }
    }

    private static func encode(_ value: BSONValue, key: String, into out: inout [UInt8]) {
        out.append(value.typeByte)
        out.append(contentsOf: key.utf8)
        out.append(0)
        switch value {
        case .double(let d): out.appendLittleEndian(d.bitPattern)
        case .string(let s):
            let utf8 = Array(s.utf8)
            out.appendLittleEndian(UInt32(utf8.count + 1))
            out.append(contentsOf: utf8)
            out.append(0)
        case .document(let doc): doc.encode(into: &out)
        case .array(let items):
            BSONDocument(items.enumerated().map { BSONElement(String($0.offset), $0.element) }).encode(into: &out)
        case .bool(let b): out.append(b ? 1 : 0)
        case .int32(let i): out.appendLittleEndian(UInt32(bitPattern: i))
        case .int64(let i): out.appendLittleEndian(UInt64(bitPattern: i))
        }
    }

    // MARK: Decoding

    /// Parses a whole document. Any type byte outside the subset fails the document, as in
    /// bson_c_lib, and so do lengths that disagree with the data.
    package init(decoding bytes: some Collection<UInt8>) throws(BSONError) {
        let data = bytes.withContiguousStorageIfAvailable { Array($0) } ?? Array(bytes)
        var reader = BSONReader(bytes: data, index: 0)
        self = try reader.document(depth: 0)
        guard reader.index == data.count else {
            throw BSONError(offset: reader.index, reason: "\(data.count - reader.index) bytes after the document")
        }
    }
}

extension BSONValue {
    var typeByte: UInt8 {
        switch self {
        case .double: return 0x01
        case .string: return 0x02
        case .document: return 0x03
        case .array: return 0x04
        case .bool: return 0x08
        case .int32: return 0x10
        case .int64: return 0x12
        }
    }
}

private struct BSONReader {
    let bytes: [UInt8]
    var index: Int

    func fail(_ reason: String) -> BSONError { BSONError(offset: index, reason: reason) }

    mutating func take(_ count: Int) throws(BSONError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - index >= count else { throw fail("truncated: needs \(count) more bytes") }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    mutating func uint32() throws(BSONError) -> UInt32 {
        let s = try take(4)
        return s.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) }
    }

    mutating func uint64() throws(BSONError) -> UInt64 {
        let s = try take(8)
        return s.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    mutating func cString() throws(BSONError) -> String {
        guard let end = bytes[index...].firstIndex(of: 0) else { throw fail("key without terminating NUL") }
        guard let key = String(validating: bytes[index..<end], as: UTF8.self) else { throw fail("key is not valid UTF-8") }
        index = end + 1
        return key
    }

    mutating func document(depth: Int) throws(BSONError) -> BSONDocument {
        guard depth < 32 else { throw fail("documents nested deeper than 32") }
        let start = index
        let length = Int(try uint32())
        guard length >= 5, start + length <= bytes.count else { throw BSONError(offset: start, reason: "document length \(length) does not fit the data") }
        let end = start + length
        var doc = BSONDocument()
        while index < end - 1 {
            let type = try take(1).first!
            let key = try cString()
            let value: BSONValue
            switch type {
            case 0x01: value = .double(Double(bitPattern: try uint64()))
            case 0x02:
                let size = Int(try uint32())
                guard size >= 1 else { throw fail("string length \(size)") }
                let raw = try take(size)
                guard raw.last == 0 else { throw fail("string without terminating NUL") }
                // Strict, as pymongo: a lossy decoding would hand on other text than was sent.
                guard let text = String(validating: raw.dropLast(), as: UTF8.self) else {
                    throw BSONError(offset: index - size, reason: "string is not valid UTF-8")
                }
                value = .string(text)
            case 0x03: value = .document(try document(depth: depth + 1))
            case 0x04: value = .array(try document(depth: depth + 1).elements.map(\.value))
            case 0x08:
                let b = try take(1).first!
                guard b <= 1 else { throw fail("boolean byte \(b)") }
                value = .bool(b == 1)
            case 0x10: value = .int32(Int32(bitPattern: try uint32()))
            case 0x12: value = .int64(Int64(bitPattern: try uint64()))
            default: throw BSONError(offset: index - key.utf8.count - 2, reason: "unsupported type byte 0x\(String(type, radix: 16))")
            }
            doc.elements.append(BSONElement(key, value))
        }
        guard index == end - 1, bytes[index] == 0 else { throw fail("document does not end where its length says") }
        index = end
        return doc
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func appendLittleEndian(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}

extension BSONDocument {
    /// The document as JSON, keys in wire order, for traces and reports.
    package var json: JSONValue {
        var object: JSONObject = [:]
        for element in elements { object[element.key] = element.value.json }
        return .object(object)
    }
}

extension BSONValue {
    package var json: JSONValue {
        switch self {
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .document(let document): return document.json
        case .array(let items): return .array(items.map(\.json))
        case .bool(let value): return .bool(value)
        case .int32(let value): return .int(Int64(value))
        case .int64(let value): return .int(value)
        }
    }
}
