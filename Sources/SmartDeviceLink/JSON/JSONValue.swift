/// A JSON object as SDL carries it: keys are parameter names exactly as on the wire.
public typealias JSONObject = [String: JSONValue]

/// A JSON value, kept exact: integers stay integers (correlation ids, ranges) and
/// doubles stay doubles, so what a head unit sent can be compared and re-sent unchanged.
///
/// The library parses and writes JSON itself (`JSONValue.parse(_:)`,
/// ``JSONValue/serialized(sortedKeys:)``) instead of going through Foundation, because
/// RPC payloads need integer/double fidelity and deterministic key order for golden tests.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction.
    case int(Int64)
    /// A number with a fraction or an exponent.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its keys unordered.
    case object(JSONObject)
}

extension JSONValue {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer value; a double with no fractional part also counts.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    /// The numeric value of an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the JSON kind, for error messages ("expected a string, found an array").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Looks up `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer from a literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A number from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// The JSON text, keys sorted.
    public var description: String { serialized(sortedKeys: true) }
}

// MARK: - Equality that treats 1 and 1.0 alike

extension JSONValue {
    /// Equality for matching received values against expected ones: numbers compare by
    /// value (`5` equals `5.0`), everything else structurally.
    public func numericallyEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int, .double), (.double, .int), (.double, .double):
            return doubleValue == other.doubleValue
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.numericallyEquals($1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map(value.numericallyEquals) ?? false }
        default:
            return self == other
        }
    }
}
