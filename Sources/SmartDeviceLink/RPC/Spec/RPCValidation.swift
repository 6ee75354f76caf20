/// Why a message does not satisfy the RPC spec: which RPC, which parameter, which limit,
/// and what was found. ``description`` is a sentence that says what to fix, e.g.
/// "Show.softButtons[1].text is 501 characters long, longer than the maximum length 500;
/// shorten it to at most 500 characters."
public struct RPCValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The limit that was not met.
    public enum Limit: Sendable, Hashable {
        /// A mandatory parameter is missing (or null).
        case mandatory
        /// The JSON kind is wrong; `expected` reads like "a string".
        case kind(expected: String)
        /// A number below the spec's `minvalue`.
        case minValue(Double)
        /// A number above the spec's `maxvalue`.
        case maxValue(Double)
        /// A string shorter than the spec's `minlength`.
        case minLength(Int)
        /// A string longer than the spec's `maxlength`.
        case maxLength(Int)
        /// An array with fewer items than the spec's `minsize`.
        case minSize(Int)
        /// An array with more items than the spec's `maxsize`.
        case maxSize(Int)
        /// A string that is not an element of the spec enum with this (spec) name.
        case enumValue(enumName: String, known: [String])
        /// An enum element this parameter does not allow (the spec lists the allowed ones).
        case allowedValues([String])
        /// A parameter name the spec does not define here.
        case knownParameter
        /// A function name the spec does not define for this message type.
        case knownFunction
    }

    /// The function name, e.g. `Show`.
    public var rpc: String
    /// Whether the function is a request, response or notification.
    public var messageType: RPCMessageType
    /// The parameter path, e.g. `Show.softButtons[1].text`; the RPC name alone for
    /// problems with the function itself.
    public var path: String
    /// Which rule of the spec the value breaks.
    public var limit: Limit
    /// What was found: the value, its length or count, or its JSON kind.
    public var found: String
    /// Names close to a misspelt parameter, function or enum value, best first.
    public var suggestions: [String]

    /// Creates an error; ``description`` is derived from the fields.
    public init(rpc: String, messageType: RPCMessageType, path: String, limit: Limit, found: String,
                suggestions: [String] = []) {
        self.rpc = rpc
        self.messageType = messageType
        self.path = path
        self.limit = limit
        self.found = found
        self.suggestions = suggestions
    }

    private var didYouMean: String {
        suggestions.isEmpty ? "" : " (did you mean \(suggestions.map { "\"\($0)\"" }.joined(separator: " or "))?)"
    }

    /// A sentence naming the parameter, the limit and what was found, and what to fix.
    public var description: String {
        let number = RPCValidationError.format
        switch limit {
        case .mandatory:
            return "\(path) is missing but mandatory in the \(rpc) \(messageType.specName); add it."
        case .kind(let expected):
            return "\(path) must be \(expected) but is \(found); send \(expected)."
        case .minValue(let min):
            return "\(path) is \(found), below the minimum value \(number(min)); use a value of at least \(number(min))."
        case .maxValue(let max):
            return "\(path) is \(found), above the maximum value \(number(max)); use a value of at most \(number(max))."
        case .minLength(let min):
            return "\(path) is \(found) characters long, shorter than the minimum length \(min); "
                + "make it at least \(min) characters long."
        case .maxLength(let max):
            return "\(path) is \(found) characters long, longer than the maximum length \(max); "
                + "shorten it to at most \(max) characters."
        case .minSize(let min):
            return "\(path) has \(found) items, fewer than the minimum array size \(min); send at least \(min)."
        case .maxSize(let max):
            return "\(path) has \(found) items, more than the maximum array size \(max); send at most \(max)."
        case .enumValue(let enumName, let known):
            return "\(path) is \(found), which is not a value of the enum \(enumName)\(didYouMean); "
                + "use one of \(RPCValidationError.list(known))."
        case .allowedValues(let allowed):
            return "\(path) is \(found), which this parameter does not allow; use one of \(RPCValidationError.list(allowed))."
        case .knownParameter:
            return "\(path) is not a parameter of the \(rpc) \(messageType.specName)\(didYouMean); "
                + "correct the name or remove it."
        case .knownFunction:
            return "\(rpc) is not a \(messageType.specName) of the RPC spec\(didYouMean); correct the function name."
        }
    }

    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func list(_ values: [String]) -> String {
        let shown = values.prefix(12).joined(separator: ", ")
        return values.count > 12 ? "\(shown), … (\(values.count) values)" : shown
    }
}

extension RPCSpec {
    /// Which way a message travels. Outgoing messages must use known enum values and
    /// known parameter names; incoming ones may carry values from a newer spec.
    public enum Direction: Sendable, Hashable {
        /// Sent by this app: unknown enum values and parameter names are errors.
        case outgoing
        /// Received from a head unit: unknown enum values and parameter names are accepted.
        case incoming
    }

    /// Checks a message's parameters against the spec: mandatory parameters, JSON kind per
    /// type, enum values, numeric ranges, string lengths, array sizes, nested structs, and
    /// unknown parameter names. Throws the first problem found, in spec parameter order
    /// (unknown names last).
    public func validate(function: String, messageType: RPCMessageType, parameters: JSONObject,
                         direction: Direction = .outgoing) throws(RPCValidationError) {
        guard let spec = self.function(named: function, messageType: messageType) else {
            throw RPCValidationError(
                rpc: function, messageType: messageType, path: function, limit: .knownFunction, found: function,
                suggestions: RPCSpec.suggestions(for: function, among: functionNames(messageType)))
        }
        var context = Context(rpc: function, messageType: messageType, direction: direction)
        try validateObject(parameters, params: spec.params, path: function, context: &context)
    }

    /// Every way a message breaks the spec, in spec parameter order (unknown names last): the
    /// same checks as the instance `validate(function:messageType:parameters:direction:)`,
    /// which stops at the first. Empty when the message keeps the spec. For reporting what a
    /// head unit sent.
    public func violations(function: String, messageType: RPCMessageType, parameters: JSONObject,
                           direction: Direction = .outgoing) -> [RPCValidationError] {
        guard let spec = self.function(named: function, messageType: messageType) else {
            return [RPCValidationError(rpc: function, messageType: messageType, path: function, limit: .knownFunction, found: function,
                                       suggestions: RPCSpec.suggestions(for: function, among: functionNames(messageType)))]
        }
        var context = Context(rpc: function, messageType: messageType, direction: direction, collected: [])
        try? validateObject(parameters, params: spec.params, path: function, context: &context)
        return context.collected ?? []
    }

    /// Checks a typed message against the spec; see `validate(function:messageType:parameters:direction:)` on JSON parameters.
    /// Keys in `additionalParameters` count as unknown parameters of an outgoing message.
    public func validate(_ message: some RPCMessage, direction: Direction = .outgoing) throws(RPCValidationError) {
        let type = type(of: message)
        try validate(function: type.functionName, messageType: type.messageType,
                     parameters: message.json.objectValue ?? [:], direction: direction)
    }

    /// ``validate(function:messageType:parameters:direction:)`` against ``shared``.
    public static func validate(function: String, messageType: RPCMessageType, parameters: JSONObject,
                                direction: Direction = .outgoing) throws(RPCValidationError) {
        try shared.validate(function: function, messageType: messageType, parameters: parameters, direction: direction)
    }

    /// ``validate(_:direction:)`` against ``shared``.
    public static func validate(_ message: some RPCMessage, direction: Direction = .outgoing) throws(RPCValidationError) {
        try shared.validate(message, direction: direction)
    }

    private struct Context {
        var rpc: String
        var messageType: RPCMessageType
        var direction: Direction
        /// Every problem found, when the whole message is checked; nil: the first one is thrown.
        var collected: [RPCValidationError]?

        /// A problem at `path`: thrown at once, or kept when every problem is wanted. The
        /// caller then leaves the value that has it.
        mutating func fail(_ path: String, _ limit: RPCValidationError.Limit, found: String,
                           suggestions: [String] = []) throws(RPCValidationError) {
            let error = RPCValidationError(rpc: rpc, messageType: messageType, path: path, limit: limit, found: found,
                                           suggestions: suggestions)
            guard collected != nil else { throw error }
            collected?.append(error)
        }
    }

    // Paths are autoclosures: they are built only for an error message or a nested value,
    // not for every parameter of every message sent (measured: a third of the check's time).
    private func validateObject(_ object: JSONObject, params: [Param], path: @autoclosure () -> String,
                                context: inout Context) throws(RPCValidationError) {
        // The object's few keys are matched to their parameters by a scan, rather than
        // hashing every parameter name of the type (Show has 20, an app sets two or three);
        // then the parameters are checked in the spec's order, so the first error reported
        // does not depend on the dictionary's.
        var present: [(index: Int, value: JSONValue)] = []
        present.reserveCapacity(object.count)
        var unknown: String?
        for (key, value) in object {
            if let index = params.firstIndex(where: { $0.name == key }) {
                present.append((index, value))
            } else {
                unknown = minimum(unknown, key)
            }
        }
        present.sort { $0.index < $1.index }
        var nextPresent = 0
        for index in params.indices {
            var found: JSONValue?
            if nextPresent < present.count, present[nextPresent].index == index {
                found = present[nextPresent].value
                nextPresent += 1
            }
            guard let value = found, !value.isNull else {
                if params[index].isMandatory { try context.fail("\(path()).\(params[index].name)", .mandatory, found: "nothing") }
                continue
            }
            let param = params[index]
            func paramPath() -> String { "\(path()).\(param.name)" }
            if param.isArray {
                guard case .array(let items) = value else {
                    try context.fail(paramPath(), .kind(expected: "an array"), found: Self.describe(value))
                    continue
                }
                if let min = param.minSize, items.count < min {
                    try context.fail(paramPath(), .minSize(min), found: String(items.count))
                }
                if let max = param.maxSize, items.count > max {
                    try context.fail(paramPath(), .maxSize(max), found: String(items.count))
                }
                for (position, item) in items.enumerated() {
                    try validateValue(item, param: param, path: "\(paramPath())[\(position)]", context: &context)
                }
            } else {
                try validateValue(value, param: param, path: paramPath(), context: &context)
            }
        }
        guard context.direction == .outgoing else { return }
        if let key = unknown {
            try context.fail("\(path()).\(key)", .knownParameter, found: key,
                             suggestions: RPCSpec.suggestions(for: key, among: params.map(\.name)))
        }
    }

    private func validateValue(_ value: JSONValue, param: Param, path: @autoclosure () -> String,
                               context: inout Context) throws(RPCValidationError) {
        switch param.kind {
        case .string:
            guard case .string(let string) = value else {
                try context.fail(path(), .kind(expected: "a string"), found: Self.describe(value))
                return
            }
            // A scalar takes one to four UTF-8 bytes, so the byte count (known at once)
            // bounds the length from both sides; the scalars are counted only when those
            // bounds leave it open, which text within its limits rarely does.
            let bytes = string.utf8.count
            let withinBounds = (param.minLength.map { bytes / 4 >= $0 } ?? true) && (param.maxLength.map { bytes <= $0 } ?? true)
            guard !withinBounds else { break }
            let length = string.unicodeScalars.count
            if let min = param.minLength, length < min {
                try context.fail(path(), .minLength(min), found: String(length))
                return
            }
            if let max = param.maxLength, length > max {
                try context.fail(path(), .maxLength(max), found: String(length))
                return
            }
        case .integer, .float:
            let number: Double
            if param.kind == .integer {
                guard let int = value.intValue, value.doubleValue != nil else {
                    try context.fail(path(), .kind(expected: "an integer"), found: Self.describe(value))
                    return
                }
                number = Double(int)
            } else {
                guard let double = value.doubleValue else {
                    try context.fail(path(), .kind(expected: "a number"), found: Self.describe(value))
                    return
                }
                number = double
            }
            if let min = param.minValue, number < min {
                try context.fail(path(), .minValue(min), found: RPCValidationError.format(number))
                return
            }
            if let max = param.maxValue, number > max {
                try context.fail(path(), .maxValue(max), found: RPCValidationError.format(number))
                return
            }
        case .boolean:
            guard case .bool = value else {
                try context.fail(path(), .kind(expected: "a boolean"), found: Self.describe(value))
                return
            }
        case .enumeration(let enumName):
            guard case .string(let string) = value else {
                try context.fail(path(), .kind(expected: "a string of the enum \(enumName)"), found: Self.describe(value))
                return
            }
            guard context.direction == .outgoing, let spec = enumeration(named: enumName) else { return }
            guard spec.contains(string) else {
                try context.fail(path(), .enumValue(enumName: enumName, known: spec.values), found: "\"\(string)\"",
                                 suggestions: RPCSpec.suggestions(for: string, among: spec.values))
                return
            }
            if let allowed = param.allowedValues, !allowed.contains(string) {
                try context.fail(path(), .allowedValues(allowed), found: "\"\(string)\"")
                return
            }
        case .structure(let structName):
            guard case .object(let object) = value else {
                try context.fail(path(), .kind(expected: "an object (\(structName))"), found: Self.describe(value))
                return
            }
            guard let spec = structure(named: structName) else { return }
            try validateObject(object, params: spec.params, path: path(), context: &context)
        }
    }

    /// A JSON value for an error message: its kind, and short values in full.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null, .array, .object: return value.kindName
        default:
            let text = value.serialized()
            return text.count <= 40 ? "\(value.kindName) (\(text))" : value.kindName
        }
    }
}

// MARK: - Suggestions

extension RPCSpec {
    /// `; did you mean "X"?` for the closest of `candidates` (see ``suggestions(for:among:)``),
    /// or nothing when none is close: the tail of an error message about a misspelt name.
    public static func didYouMean(_ name: String, among candidates: [String]) -> String {
        suggestions(for: name, among: candidates).first.map { "; did you mean \"\($0)\"?" } ?? ""
    }

    /// Names among `candidates` close to `name`, best first (at most three), for "did you
    /// mean" hints on misspelt function, parameter and enum names.
    ///
    /// Closeness is the edit distance ignoring case, where swapping two neighbouring
    /// characters counts as one edit. A candidate qualifies when the distance is at most a
    /// third of the longer name's length (at least 2); a candidate equal to `name` is not
    /// suggested, and when some candidates differ from `name` only in case, only those are.
    public static func suggestions(for name: String, among candidates: [String]) -> [String] {
        let target = Array(name.lowercased())
        var scored: [(distance: Int, name: String)] = []
        for candidate in candidates where candidate != name {
            let other = Array(candidate.lowercased())
            let limit = max(2, max(target.count, other.count) / 3)
            if abs(target.count - other.count) > limit { continue }
            let distance = editDistance(target, other)
            if distance <= limit { scored.append((distance, candidate)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        // A name that differs only in case is what was meant; nothing else is offered then.
        if scored.first?.distance == 0 { scored.removeAll { $0.distance > 0 } }
        var result: [String] = []
        for entry in scored where !result.contains(entry.name) {
            result.append(entry.name)
            if result.count == 3 { break }
        }
        return result
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours each cost one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
