/// The message type of an RPC, as carried in the RPC binary header's top nibble.
public enum RPCMessageType: UInt8, Sendable, Hashable, CaseIterable {
    /// A request: the app asks.
    case request = 0
    /// A response: the answer to a request.
    case response = 1
    /// A notification: no answer.
    case notification = 2

    /// The spelling MOBILE_API.xml uses in `messagetype`.
    public var specName: String {
        switch self {
        case .request: return "request"
        case .response: return "response"
        case .notification: return "notification"
        }
    }
}

/// Why a JSON payload could not be turned into a typed RPC value.
///
/// Decoding is lenient where the spec allows it (unknown keys are kept, unknown enum
/// values are kept); it fails only when a value has the wrong JSON kind or a mandatory
/// parameter is missing.
public struct RPCDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the message, e.g. `Show.softButtons[2].type`.
    public var path: String
    /// What is wrong there.
    public var reason: String
    /// An error at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "cannot decode \(path): \(reason)" }
}

/// A value of the RPC spec that travels as JSON: every generated struct, enum and message.
public protocol RPCValue: Sendable, Hashable {
    /// Decodes from a JSON value; `path` names the location for errors. It is an
    /// autoclosure: built only for an error, not for every field of every message.
    init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError)
    /// The JSON form, exactly as on the wire.
    var json: JSONValue { get }
}

/// An enum of the RPC spec. Values a newer head unit sends that this spec does not know are
/// kept as they are and sent back unchanged, so a newer head unit never breaks decoding.
public protocol RPCEnum: RPCValue, RawRepresentable, CustomStringConvertible, ExpressibleByStringLiteral
where RawValue == String {
    /// Every value the spec defines, in spec order.
    static var knownValues: [Self] { get }
}

extension RPCEnum {
    /// Whether the spec defines this value (false for values from a newer head unit).
    public var isKnown: Bool { Self.knownValues.contains(self) }
    /// The value as the spec spells it.
    public var description: String { rawValue }
    /// The value as a JSON string.
    public var json: JSONValue { .string(rawValue) }
    /// Reads the value from a JSON string; any string is taken (see ``isKnown``).
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard case .string(let raw) = json else {
            throw RPCDecodingError(path: path(), reason: "expected a string, found \(json.kindName)")
        }
        self.init(rawValue: raw)!
    }
    /// The value spelt as in the spec: `let level: HMILevel = "FULL"`.
    public init(stringLiteral value: String) { self.init(rawValue: value)! }
    /// The value spelt as in the spec, from a one-character literal.
    public init(extendedGraphemeClusterLiteral value: String) { self.init(stringLiteral: value) }
    /// The value spelt as in the spec, from a one-scalar literal.
    public init(unicodeScalarLiteral value: String) { self.init(stringLiteral: value) }
}

/// A struct of the RPC spec (or the parameter object of a function).
public protocol RPCStruct: RPCValue {
    /// Keys the head unit sent that this spec version does not define; sent back unchanged.
    var additionalParameters: JSONObject { get set }
}

/// A function of the RPC spec: request, response or notification.
public protocol RPCMessage: RPCStruct {
    /// The function name as in MOBILE_API.xml (`Show`, `OnHMIStatus`).
    static var functionName: String { get }
    /// The 28-bit function id of the RPC binary header.
    static var functionID: UInt32 { get }
    /// Request, response or notification.
    static var messageType: RPCMessageType { get }
    /// Binary data that follows the JSON (PutFile, OnAudioPassThru, SystemRequest...).
    var bulkData: [UInt8]? { get set }
}

/// A request. Its `Response` type is what `send` returns.
public protocol RPCRequest: RPCMessage {
    /// The response the head unit answers this request with.
    associatedtype Response: RPCResponse
}

/// A response: every response carries `success`, `resultCode` and optionally `info`.
public protocol RPCResponse: RPCMessage {
    /// Whether the head unit did what was asked (true also for WARNINGS and some other codes).
    var success: Bool { get }
    /// The result code.
    var resultCode: ResultCode { get }
    /// The head unit's words on the result, if any.
    var info: String? { get }
}

/// A notification, from the head unit (or, for a few, from the app).
public protocol RPCNotification: RPCMessage {}

// MARK: - Helpers the generated code uses

/// Decoding and encoding helpers for generated code. Not meant for direct use.
public enum RPCCoding {
    /// The object `json` holds; throws when it is another kind.
    @inlinable
    public static func object(_ json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) -> JSONObject {
        guard case .object(let object) = json else {
            throw RPCDecodingError(path: path(), reason: "expected an object, found \(json.kindName)")
        }
        return object
    }

    // Each takes the value found under `key`: generated decoders scan the object once and
    // match its keys by comparison, with no hashing.

    /// A mandatory value decoded from `found`; throws when it is missing or null.
    public static func required<T: RPCValue>(_ found: JSONValue?, _ key: String, path: @autoclosure () -> String) throws(RPCDecodingError) -> T {
        guard let value = found, !value.isNull else {
            throw RPCDecodingError(path: "\(path()).\(key)", reason: "mandatory parameter is missing")
        }
        return try T(json: value, path: "\(path()).\(key)")
    }

    /// A mandatory array that is missing reads as empty instead of failing the whole message:
    /// head units leave some out (sdl_core 8.2's stock HMI capabilities list image fields
    /// without `imageTypeSupported`, in every RegisterAppInterface response), and an empty
    /// list tells the app no more and no less than a missing one. The spec check reports it.
    public static func requiredArray<Element: RPCValue>(_ found: JSONValue?, _ key: String, path: @autoclosure () -> String) throws(RPCDecodingError) -> [Element] {
        guard let value = found, !value.isNull else { return [] }
        return try [Element](json: value, path: "\(path()).\(key)")
    }

    /// An optional value decoded from `found`; nil when it is missing or null.
    public static func optional<T: RPCValue>(_ found: JSONValue?, _ key: String, path: @autoclosure () -> String) throws(RPCDecodingError) -> T? {
        guard let value = found, !value.isNull else { return nil }
        return try T(json: value, path: "\(path()).\(key)")
    }
}

// MARK: - Primitive types of the spec

extension String: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard case .string(let s) = json else {
            throw RPCDecodingError(path: path(), reason: "expected a string, found \(json.kindName)")
        }
        self = s
    }
    public var json: JSONValue { .string(self) }
}

extension Bool: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard case .bool(let b) = json else {
            throw RPCDecodingError(path: path(), reason: "expected a boolean, found \(json.kindName)")
        }
        self = b
    }
    public var json: JSONValue { .bool(self) }
}

/// The spec's `Integer`: a 64-bit signed value (some parameters exceed 32 bits).
extension Int: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard let i = json.intValue, let value = Int(exactly: i) else {
            throw RPCDecodingError(path: path(), reason: "expected an integer, found \(json.kindName)")
        }
        self = value
    }
    public var json: JSONValue { .int(Int64(self)) }
}

/// The spec's `Float`: any JSON number.
extension Double: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard let d = json.doubleValue else {
            throw RPCDecodingError(path: path(), reason: "expected a number, found \(json.kindName)")
        }
        self = d
    }
    public var json: JSONValue { .double(self) }
}

extension Array: RPCValue where Element: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) throws(RPCDecodingError) {
        guard case .array(let items) = json else {
            throw RPCDecodingError(path: path(), reason: "expected an array, found \(json.kindName)")
        }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try Element(json: item, path: "\(path())[\(index)]"))
        }
        self = result
    }
    public var json: JSONValue { .array(map(\.json)) }
}

extension JSONValue: RPCValue {
    public init(json: JSONValue, path: @autoclosure () -> String) { self = json }
    public var json: JSONValue { self }
}
