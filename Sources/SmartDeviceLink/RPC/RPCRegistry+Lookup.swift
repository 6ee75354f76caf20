/// Lookups over the generated tables, used by the dispatcher and the scenario runner.
extension RPCRegistry {
    private struct IDKey: Hashable {
        var functionID: UInt32
        var messageType: RPCMessageType
    }

    private struct NameKey: Hashable {
        var functionName: String
        var messageType: RPCMessageType
    }

    private static let typesByID: [IDKey: any RPCMessage.Type] = {
        var table: [IDKey: any RPCMessage.Type] = [:]
        for type in messageTypes {
            table[IDKey(functionID: type.functionID, messageType: type.messageType)] = type
        }
        return table
    }()

    private static let typesByName: [NameKey: any RPCMessage.Type] = {
        var table: [NameKey: any RPCMessage.Type] = [:]
        for type in messageTypes {
            table[NameKey(functionName: type.functionName, messageType: type.messageType)] = type
        }
        return table
    }()

    private static let functionIDsByName: [String: UInt32] = {
        var table: [String: UInt32] = [:]
        for (id, name) in functionNamesByID { table[name] = id }
        return table
    }()

    /// The generated type for a function id and message type (`13, .request` → `Show`).
    public static func messageType(functionID: UInt32, messageType: RPCMessageType) -> (any RPCMessage.Type)? {
        typesByID[IDKey(functionID: functionID, messageType: messageType)]
    }

    /// The generated type for a spec function name and message type
    /// (`"Show", .response` → `ShowResponse`).
    public static func messageType(functionName: String, messageType: RPCMessageType) -> (any RPCMessage.Type)? {
        typesByName[NameKey(functionName: functionName, messageType: messageType)]
    }

    /// The function id of a spec function name (`"OnHMIStatus"` → 32768).
    public static func functionID(forName name: String) -> UInt32? {
        functionIDsByName[name]
    }

    /// The spec function name of a function id (32768 → `"OnHMIStatus"`).
    public static func functionName(forID functionID: UInt32) -> String? {
        functionNamesByID[functionID]
    }

    /// Decodes a message into its generated type; see ``decodeRPCMessage(functionID:messageType:json:bulk:)``.
    public static func decode(
        functionID: UInt32, messageType: RPCMessageType, json: JSONValue, bulk: [UInt8]?
    ) throws(RPCDecodingError) -> any RPCMessage {
        guard let type = Self.messageType(functionID: functionID, messageType: messageType) else {
            let name = functionName(forID: functionID).map { "\($0) (function id \(functionID))" }
                ?? "function id \(functionID)"
            throw RPCDecodingError(path: name, reason: "no \(messageType.specName) type is generated for it")
        }
        var message = try type.init(json: json, path: type.functionName)
        message.bulkData = bulk
        return message
    }
}

/// Turns an incoming message into its generated type (`OnHMIStatus`, `ShowResponse`...).
///
/// - Parameters:
///   - functionID: The function id from the RPC binary header.
///   - messageType: Request, response or notification, from the same header.
///   - json: The JSON parameters object.
///   - bulk: Binary data that followed the JSON, if any.
/// - Throws: ``RPCDecodingError`` when the id has no generated type for that message type,
///   a mandatory parameter is missing or a value has the wrong JSON kind.
public func decodeRPCMessage(
    functionID: UInt32, messageType: RPCMessageType, json: JSONValue, bulk: [UInt8]?
) throws(RPCDecodingError) -> any RPCMessage {
    try RPCRegistry.decode(functionID: functionID, messageType: messageType, json: json, bulk: bulk)
}
