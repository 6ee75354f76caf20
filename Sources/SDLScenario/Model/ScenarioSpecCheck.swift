import SmartDeviceLink

/// The scenario checks that need the RPC spec: names of functions, parameters and enum
/// values, and the parameters of requests, with "did you mean" suggestions.
struct ScenarioSpecCheck {
    let spec = RPCSpec.shared

    /// The function id of `name` as `type`, or nil when the spec has no such function.
    static func functionID(_ name: String, _ type: RPCMessageType) -> UInt32? {
        RPCSpec.shared.function(named: name, messageType: type)?.functionID
    }

    /// Why `name` is not a function of `type`, or nil.
    func functionProblem(_ name: String, _ type: RPCMessageType) -> String? {
        if spec.function(named: name, messageType: type) != nil { return nil }
        let candidates = spec.functionNames(type)
        if spec.functions.contains(where: { $0.name == name }) {
            return "\(name) is not a \(type.specName) of the RPC spec"
        }
        return "unknown \(type.specName) '\(name)'" + RPCSpec.didYouMean(name, among: candidates)
    }

    /// The parameter names of a function, or nil when unknown.
    func parameterNames(function: String, type: RPCMessageType) -> [String]? {
        spec.function(named: function, messageType: type)?.params.map(\.name)
    }

    /// Why `value` is not an element of enum `enumName`, or nil.
    func enumProblem(enumName: String, value: String) -> String? {
        guard let enumeration = spec.enumeration(named: enumName) else { return nil }
        let names = enumeration.elements.map(\.name)
        if names.contains(value) { return nil }
        return "'\(value)' is not a value of \(enumName)" + RPCSpec.didYouMean(value, among: names)
    }

    /// Problems of the parameters of a message, each with its path below `params`.
    /// Values that are `${variable}` references are checked at run time, not here.
    func parameterProblems(function: String, type: RPCMessageType, parameters: JSONObject) -> [(path: String, message: String)] {
        let variableKeys = Set(parameters.filter { Self.containsVariable($0.value) }.map(\.key))
        let checked = parameters.filter { !variableKeys.contains($0.key) }
        do {
            try spec.validate(function: function, messageType: type, parameters: checked)
            return []
        } catch {
            let path = Self.relativePath(error.path, function: function)
            if let top = path.split(separator: ".").first.map({ String($0.split(separator: "[").first ?? "") }),
               variableKeys.contains(top) {
                return []  // a mandatory parameter supplied by a variable
            }
            return [(path, error.description)]
        }
    }

    static func containsVariable(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): return text.contains("${")
        case .array(let items): return items.contains(where: containsVariable)
        case .object(let object): return object.values.contains(where: containsVariable)
        default: return false
        }
    }

    /// `Show.softButtons[0].text` → `softButtons[0].text`.
    static func relativePath(_ path: String, function: String) -> String {
        path.hasPrefix(function + ".") ? String(path.dropFirst(function.count + 1)) : path == function ? "" : path
    }
}
