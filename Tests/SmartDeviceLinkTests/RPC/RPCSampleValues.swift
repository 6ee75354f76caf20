import SmartDeviceLink

/// Builds JSON parameter objects from the spec digest with every parameter set to a valid
/// value: strings and numbers within their limits, the first allowed enum value, nested
/// structs filled recursively, arrays of max(1, minsize) items.
enum RPCSampleValues {
    /// Below this struct depth only mandatory parameters are filled, so self-referencing
    /// structs (VideoStreamingCapability) stay finite.
    static let fullDepth = 4

    static func object(_ params: [RPCSpec.Param], spec: RPCSpec = .shared, depth: Int = 0) -> JSONObject {
        var object: JSONObject = [:]
        for param in params where param.isMandatory || depth < fullDepth {
            object[param.name] = value(param, spec: spec, depth: depth)
        }
        return object
    }

    static func value(_ param: RPCSpec.Param, spec: RPCSpec, depth: Int) -> JSONValue {
        guard param.isArray else { return scalar(param, spec: spec, depth: depth) }
        let count = max(1, param.minSize ?? 0)
        return .array((0..<count).map { _ in scalar(param, spec: spec, depth: depth) })
    }

    static func scalar(_ param: RPCSpec.Param, spec: RPCSpec, depth: Int) -> JSONValue {
        switch param.kind {
        case .string:
            var length = max(1, param.minLength ?? 0)
            if let max = param.maxLength { length = min(length, max) }
            return .string(String(repeating: "a", count: length))
        case .integer:
            return .int(Int64(clamp(7, param)))
        case .float:
            return .double(clamp(2.5, param))
        case .boolean:
            return .bool(true)
        case .enumeration(let name):
            return .string(param.allowedValues?.first ?? spec.enumeration(named: name)!.elements[0].name)
        case .structure(let name):
            return .object(object(spec.structure(named: name)!.params, spec: spec, depth: depth + 1))
        }
    }

    static func clamp(_ value: Double, _ param: RPCSpec.Param) -> Double {
        var result = value
        if let min = param.minValue, result < min { result = min.rounded(.up) }
        if let max = param.maxValue, result > max { result = max.rounded(.down) }
        return result
    }
}
