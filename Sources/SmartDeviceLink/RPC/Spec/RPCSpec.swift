/// The RPC spec as data: every enum, struct and function of MOBILE_API.xml with its
/// parameters, types, limits and versions (no descriptions).
///
/// ``shared`` is read once, on first use, from the digest embedded in the library, so no
/// bundle resources are needed. The same digest produced the generated types, so the two
/// always agree. Use it to validate outgoing messages (`validate(function:messageType:parameters:direction:)`),
/// to handle messages in their dynamic form, and to suggest names for misspellings
/// (``suggestions(for:among:)``).
public struct RPCSpec: Sendable {
    /// The spec embedded in the library.
    public static let shared: RPCSpec = {
        do {
            return try RPCSpec(digestJSON: rpcSpecDigestJSON)
        } catch {
            fatalError("the embedded RPC spec digest is invalid: \(error)")
        }
    }()

    /// The interface version of the spec, e.g. `8.0.0`.
    public let interfaceVersion: String
    /// Every enum, in spec order.
    public let enums: [Enum]
    /// Every struct, in spec order.
    public let structs: [Struct]
    /// Every function (requests, responses and notifications), in spec order.
    public let functions: [Function]

    private let enumIndex: [String: Int]
    private let structIndex: [String: Int]
    private let functionIndex: [FunctionKey: Int]

    private struct FunctionKey: Hashable {
        var name: String
        var messageType: RPCMessageType
    }

    /// What a parameter holds, resolved from its spec type name.
    public enum Kind: Sendable, Hashable {
        /// The spec's `String`.
        case string
        /// The spec's `Integer`.
        case integer
        /// The spec's `Float`.
        case float
        /// The spec's `Boolean`.
        case boolean
        /// A spec enum, by spec name.
        case enumeration(String)
        /// A spec struct, by spec name.
        case structure(String)
    }

    /// A parameter of a struct or function.
    public struct Param: Sendable, Hashable {
        /// The name, as on the wire.
        public let name: String
        /// The spec type name (`String`, `Integer`, `Float`, `Boolean`, or an enum or struct name).
        public let type: String
        /// What the type resolves to.
        public let kind: Kind
        /// Whether the parameter is a JSON array of `type`.
        public let isArray: Bool
        /// Whether the parameter must be present.
        public let isMandatory: Bool
        /// The smallest allowed number (`minvalue`).
        public let minValue: Double?
        /// The largest allowed number (`maxvalue`).
        public let maxValue: Double?
        /// The shortest allowed string, in Unicode scalars (`minlength`).
        public let minLength: Int?
        /// The longest allowed string, in Unicode scalars (`maxlength`).
        public let maxLength: Int?
        /// The fewest array items (`minsize`).
        public let minSize: Int?
        /// The most array items (`maxsize`).
        public let maxSize: Int?
        /// The spec's `defvalue`, as written in the spec.
        public let defaultValue: String?
        /// For an enum parameter that allows only some elements: those elements.
        public let allowedValues: [String]?
        /// The spec version that introduced the parameter.
        public let since: String?
        /// The spec version from which the parameter no longer exists in this shape.
        public let until: String?
        /// Whether the spec marks the parameter deprecated.
        public let isDeprecated: Bool
        /// The spec's `platform` attribute, if any.
        public let platform: String?
    }

    /// An element of an enum.
    public struct Element: Sendable, Hashable {
        /// The name, which is the value on the wire.
        public let name: String
        /// The spec's numeric `value`, where it gives one (FunctionID, ...).
        public let value: Int?
        /// The spec's `hexvalue`, as written.
        public let hexValue: String?
        /// The spec version that introduced the element.
        public let since: String?
        /// The spec version from which the element no longer exists.
        public let until: String?
        /// Whether the spec marks the element deprecated.
        public let isDeprecated: Bool
    }

    /// An enum of the spec.
    public struct Enum: Sendable, Hashable {
        /// The spec name (`Result`, not the Swift name `ResultCode`).
        public let name: String
        /// The elements, in spec order.
        public let elements: [Element]
        /// The spec version that introduced the enum.
        public let since: String?
        /// The spec version from which the enum no longer exists.
        public let until: String?
        /// Whether the spec marks the enum deprecated.
        public let isDeprecated: Bool
        /// The element names, which are the wire values.
        public var values: [String] { elements.map(\.name) }
        /// Whether `value` is an element of this enum.
        public func contains(_ value: String) -> Bool { elements.contains { $0.name == value } }
    }

    /// A struct of the spec.
    public struct Struct: Sendable, Hashable {
        /// The spec name.
        public let name: String
        /// The parameters, in spec order.
        public let params: [Param]
        /// The spec version that introduced the struct.
        public let since: String?
        /// The spec version from which the struct no longer exists.
        public let until: String?
        /// Whether the spec marks the struct deprecated.
        public let isDeprecated: Bool
        /// The parameter called `name`.
        public func param(named name: String) -> Param? { params.first { $0.name == name } }
    }

    /// A function of the spec: one request, response or notification.
    public struct Function: Sendable, Hashable {
        /// The spec name (`Show`; responses share the request's name).
        public let name: String
        /// Request, response or notification.
        public let messageType: RPCMessageType
        /// The numeric function id of the RPC binary header.
        public let functionID: UInt32
        /// The parameters, in spec order.
        public let params: [Param]
        /// The spec version that introduced the function.
        public let since: String?
        /// The spec version from which the function no longer exists.
        public let until: String?
        /// Whether the spec marks the function deprecated.
        public let isDeprecated: Bool
        /// The parameter called `name`.
        public func param(named name: String) -> Param? { params.first { $0.name == name } }
    }

    /// Why a digest could not be loaded.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the digest.
        public let description: String
    }

    /// Loads a spec from digest JSON as written by `scripts/generate-rpc`.
    public init(digestJSON: String) throws(LoadError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(digestJSON)
        } catch {
            throw LoadError(description: "digest is not JSON: \(error)")
        }
        guard let version = root["interface"]?["version"]?.stringValue,
              let enumList = root["enums"]?.arrayValue,
              let structList = root["structs"]?.arrayValue,
              let functionList = root["functions"]?.arrayValue
        else { throw LoadError(description: "digest lacks interface.version, enums, structs or functions") }

        interfaceVersion = version
        var enums: [Enum] = []
        for item in enumList {
            guard let name = item["name"]?.stringValue, let elements = item["elements"]?.arrayValue else {
                throw LoadError(description: "an enum lacks name or elements")
            }
            enums.append(Enum(
                name: name,
                elements: elements.map { element in
                    Element(
                        name: element["name"]?.stringValue ?? "",
                        value: element["value"]?.intValue.map { Int($0) },
                        hexValue: element["hexvalue"]?.stringValue,
                        since: element["since"]?.stringValue,
                        until: element["until"]?.stringValue,
                        isDeprecated: element["deprecated"]?.boolValue ?? false)
                },
                since: item["since"]?.stringValue, until: item["until"]?.stringValue,
                isDeprecated: item["deprecated"]?.boolValue ?? false))
        }
        let enumNames = Set(enums.map(\.name))
        let structNames = Set(structList.compactMap { $0["name"]?.stringValue })

        func params(_ item: JSONValue, owner: String) throws(LoadError) -> [Param] {
            var result: [Param] = []
            for p in item["params"]?.arrayValue ?? [] {
                guard let name = p["name"]?.stringValue, let type = p["type"]?.stringValue else {
                    throw LoadError(description: "a parameter of \(owner) lacks name or type")
                }
                let kind: Kind
                switch type {
                case "String": kind = .string
                case "Integer": kind = .integer
                case "Float": kind = .float
                case "Boolean": kind = .boolean
                case _ where enumNames.contains(type): kind = .enumeration(type)
                case _ where structNames.contains(type): kind = .structure(type)
                default: throw LoadError(description: "\(owner).\(name) has unknown type \(type)")
                }
                result.append(Param(
                    name: name, type: type, kind: kind,
                    isArray: p["array"]?.boolValue ?? false,
                    isMandatory: p["mandatory"]?.boolValue ?? true,
                    minValue: p["minvalue"]?.doubleValue, maxValue: p["maxvalue"]?.doubleValue,
                    minLength: p["minlength"]?.intValue.map { Int($0) },
                    maxLength: p["maxlength"]?.intValue.map { Int($0) },
                    minSize: p["minsize"]?.intValue.map { Int($0) },
                    maxSize: p["maxsize"]?.intValue.map { Int($0) },
                    defaultValue: p["defvalue"]?.stringValue,
                    allowedValues: p["values"]?.arrayValue?.compactMap(\.stringValue),
                    since: p["since"]?.stringValue, until: p["until"]?.stringValue,
                    isDeprecated: p["deprecated"]?.boolValue ?? false,
                    platform: p["platform"]?.stringValue))
            }
            return result
        }

        var structs: [Struct] = []
        for item in structList {
            let name = item["name"]?.stringValue ?? ""
            structs.append(Struct(
                name: name, params: try params(item, owner: name),
                since: item["since"]?.stringValue, until: item["until"]?.stringValue,
                isDeprecated: item["deprecated"]?.boolValue ?? false))
        }
        var functions: [Function] = []
        for item in functionList {
            let name = item["name"]?.stringValue ?? ""
            guard let typeName = item["messagetype"]?.stringValue,
                  let messageType = RPCMessageType.allCases.first(where: { $0.specName == typeName }),
                  let id = item["functionID"]?.intValue, let functionID = UInt32(exactly: id)
            else { throw LoadError(description: "function \(name) lacks messagetype or functionID") }
            functions.append(Function(
                name: name, messageType: messageType, functionID: functionID,
                params: try params(item, owner: name),
                since: item["since"]?.stringValue, until: item["until"]?.stringValue,
                isDeprecated: item["deprecated"]?.boolValue ?? false))
        }
        self.enums = enums
        self.structs = structs
        self.functions = functions
        enumIndex = Dictionary(enums.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        structIndex = Dictionary(structs.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        functionIndex = Dictionary(
            functions.enumerated().map { (FunctionKey(name: $1.name, messageType: $1.messageType), $0) },
            uniquingKeysWith: { first, _ in first })
    }

    // MARK: - Lookups

    /// The function `name` of the given message type (`"Show", .request`).
    public func function(named name: String, messageType: RPCMessageType) -> Function? {
        functionIndex[FunctionKey(name: name, messageType: messageType)].map { functions[$0] }
    }

    /// The request, response and/or notification called `name`.
    public func functions(named name: String) -> [Function] {
        RPCMessageType.allCases.compactMap { function(named: name, messageType: $0) }
    }

    /// The struct called `name` (spec name).
    public func structure(named name: String) -> Struct? {
        structIndex[name].map { structs[$0] }
    }

    /// The enum called `name` (spec name, e.g. `Result`).
    public func enumeration(named name: String) -> Enum? {
        enumIndex[name].map { enums[$0] }
    }

    /// The parameters of a struct, or of a function of the given message type.
    public func params(of owner: String, messageType: RPCMessageType? = nil) -> [Param]? {
        if let messageType { return function(named: owner, messageType: messageType)?.params }
        return structure(named: owner)?.params
    }

    /// The names of every function of one message type, in spec order.
    public func functionNames(_ messageType: RPCMessageType) -> [String] {
        functions.filter { $0.messageType == messageType }.map(\.name)
    }
}
