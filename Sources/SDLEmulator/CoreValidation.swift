import Foundation
import SmartDeviceLink

/// A request's parameters checked against the spec the way sdl_core 8.2's smart objects check
/// them, with core's words: the INVALID_DATA a mistake gets, or the warning a request that
/// goes on carries (an enum value core does not know, dropped).
///
/// Core does it in two passes over the message (attachSchema, then validate):
/// 1. Enum values it does not know are removed, each reported as "Ignored invalid value - X"
///    (an array loses the element; a struct or array that is optional and then broken
///    goes too).
/// 2. The rest is validated member by member in name order (its schema is a `std::map`),
///    stopping at the first problem: "Missing mandatory parameter: x", "Incorrect type,
///    expected: String, got: Integer", "Value too small, got: -5, minimum allowed: 0",
///    "Got array of size: 0, minimum allowed: 1", "Got string of size: …".
/// Each report line is the path from the message's root, `RPC.msg_params.a.0.b: …`, the
/// lines of the first pass first. Parameters the spec does not name are ignored, as core
/// removes them before it validates. (smart_objects' *_schema_item.cc, rpc_base's
/// validation_report.h, rpc_handler_impl.cc.)
struct CoreValidation {
    /// INVALID_DATA's info when the request is refused; nil when it may go on.
    var refusal: String?
    /// What the first pass dropped, for a request that goes on: core then answers WARNINGS
    /// with these lines as info (request_from_mobile_impl.cc).
    var warnings: String?
    /// The parameters with the dropped values removed.
    var parameters: JSONObject

    private let spec = RPCSpec.shared
    private var lines: [String] = []

    init(function: String, parameters: JSONObject) {
        self.parameters = parameters
        guard let params = spec.function(named: function, messageType: .request)?.params else { return }
        var filtered = parameters
        _ = filter(&filtered, params: params, path: "RPC.msg_params")
        self.parameters = filtered
        let dropped = lines
        if let problem = validate(filtered, params: params, path: "RPC.msg_params") {
            refusal = (dropped + [problem]).joined(separator: "\n")
        } else if !dropped.isEmpty {
            warnings = dropped.joined(separator: "\n")
        }
    }

    // MARK: - Pass 1: unknown enum values

    /// Removes unknown enum values below `object`; true when a mandatory member broke.
    private mutating func filter(_ object: inout JSONObject, params: [RPCSpec.Param], path: String) -> Bool {
        var broken = false
        for key in object.keys.sorted() {
            guard let param = Self.param(key, in: params), var value = object[key] else { continue }
            guard filterValue(&value, param: param, path: "\(path).\(key)") else {
                object[key] = value
                continue
            }
            if param.isMandatory { broken = true }
            // A leaf enum value goes; a broken struct or array goes only when optional.
            if (param.kind.isEnumeration && !param.isArray) || !param.isMandatory { object[key] = nil } else { object[key] = value }
        }
        return broken
    }

    /// Filters one member's value; true when it is now invalid.
    private mutating func filterValue(_ value: inout JSONValue, param: RPCSpec.Param, path: String) -> Bool {
        if param.isArray {
            guard case .array(let items) = value else { return false }
            var kept: [JSONValue] = []
            for (index, item) in items.enumerated() {
                var item = item
                if !filterElement(&item, param: param, path: "\(path).\(index)") { kept.append(item) }
            }
            value = .array(kept)
            return kept.count < items.count && kept.count < (param.minSize ?? 0)
        }
        return filterElement(&value, param: param, path: path)
    }

    private mutating func filterElement(_ value: inout JSONValue, param: RPCSpec.Param, path: String) -> Bool {
        switch param.kind {
        case .enumeration(let name):
            guard case .string(let text) = value, let enumeration = spec.enumeration(named: name), !enumeration.contains(text) else { return false }
            lines.append("\(path): Ignored invalid value - \(text)")
            return true
        case .structure(let name):
            guard case .object(var object) = value, let structure = spec.structure(named: name) else { return false }
            let broken = filter(&object, params: structure.params, path: path)
            value = .object(object)
            return broken
        default:
            return false
        }
    }

    // MARK: - Pass 2: the first problem, in name order

    private func validate(_ object: JSONObject, params: [RPCSpec.Param], path: String) -> String? {
        for name in Set(params.map(\.name)).sorted() {
            guard let param = Self.param(name, in: params) else { continue }
            guard let value = object[name], !value.isNull else {
                if param.isMandatory { return "\(path): Missing mandatory parameter: \(name)" }
                continue
            }
            if let problem = validateMember(value, param: param, path: "\(path).\(name)") { return problem }
        }
        return nil
    }

    private func validateMember(_ value: JSONValue, param: RPCSpec.Param, path: String) -> String? {
        guard param.isArray else { return validateElement(value, param: param, path: path) }
        guard case .array(let items) = value else { return "\(path): \(Self.incorrectType("Array", value))" }
        if let min = param.minSize, items.count < min { return "\(path): Got array of size: \(items.count), minimum allowed: \(min)" }
        if let max = param.maxSize, items.count > max { return "\(path): Got array of size: \(items.count), maximum allowed: \(max)" }
        for (index, item) in items.enumerated() {
            if let problem = validateElement(item, param: param, path: "\(path).\(index)") { return problem }
        }
        return nil
    }

    private func validateElement(_ value: JSONValue, param: RPCSpec.Param, path: String) -> String? {
        switch param.kind {
        case .string:
            guard case .string(let text) = value else { return "\(path): \(Self.incorrectType("String", value))" }
            let size = text.unicodeScalars.count
            if let min = param.minLength, size < min { return "\(path): Got string of size: \(size), minimum allowed: \(min)" }
            if let max = param.maxLength, size > max { return "\(path): Got string of size: \(size), maximum allowed: \(max)" }
        case .integer, .float:
            // Core names Integer as the expected type of every number (number_schema_item.h).
            guard let number = value.doubleValue, param.kind == .float || value.intValue != nil else {
                return "\(path): \(Self.incorrectType("Integer", value))"
            }
            let show = { (x: Double) in param.kind == .integer ? String(Int64(x)) : Self.streamed(x) }
            if let min = param.minValue, number < min { return "\(path): Value too small, got: \(show(number)), minimum allowed: \(show(min))" }
            if let max = param.maxValue, number > max { return "\(path): Value too large, got: \(show(number)), maximum allowed: \(show(max))" }
        case .boolean:
            guard case .bool = value else { return "\(path): \(Self.incorrectType("Boolean", value))" }
        case .enumeration:
            guard case .string(let text) = value else { return "\(path): Incorrect type, expected: Integer (enum), got: \(Self.typeName(value))" }
            if let allowed = param.allowedValues, !allowed.contains(text) { return "\(path): Invalid enum value: \(text)" }
        case .structure(let name):
            guard case .object(let object) = value else { return "\(path): \(Self.incorrectType("Object", value))" }
            guard let structure = spec.structure(named: name) else { return nil }
            return validate(object, params: structure.params, path: path)
        }
        return nil
    }

    // MARK: - Core's names and numbers

    /// The member of this name the current spec defines (the spec repeats a member for each
    /// version it changed in; the one without an end is today's).
    private static func param(_ name: String, in params: [RPCSpec.Param]) -> RPCSpec.Param? {
        let all = params.filter { $0.name == name }
        return all.last { $0.until == nil } ?? all.last
    }

    private static func incorrectType(_ expected: String, _ value: JSONValue) -> String {
        "Incorrect type, expected: \(expected), got: \(typeName(value))"
    }

    /// SmartObject::typeToString's names.
    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "Null"
        case .bool: "Boolean"
        case .int: "Integer"
        case .double: "Double"
        case .string: "String"
        case .array: "Array"
        case .object: "Object"
        }
    }

    /// A double as C++'s `ostream <<` writes it: six significant digits, no trailing zeros.
    private static func streamed(_ value: Double) -> String {
        String(format: "%g", value)
    }
}

extension RPCSpec.Kind {
    fileprivate var isEnumeration: Bool {
        if case .enumeration = self { return true }
        return false
    }
}
