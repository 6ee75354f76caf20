public import SmartDeviceLink
import Foundation

/// One problem in a scenario file: where (a JSON path such as `steps[2].params.mainField1`),
/// what is wrong, and a suggestion when a name looks misspelt.
public struct ScenarioIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where in the file, as a JSON path.
    public var path: String
    /// What is wrong, with a suggestion where a name looks misspelt.
    public var message: String
    /// An issue at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A scenario that cannot run, with every problem found.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    /// The file, or what stood for it.
    public var source: String
    /// Every problem found, in the file's order.
    public var issues: [ScenarioIssue]
    public var description: String {
        issues.map { "\(source): \($0)" }.joined(separator: "\n")
    }
}

/// Reads scenario files: JSON syntax, structure, and every RPC, parameter and enum value
/// against the RPC spec, before anything is sent.
public enum ScenarioParser {
    /// Loads and checks a scenario file. `variables` are defined before the first step
    /// (`sdl-run --var`); `${env.NAME}` reads the environment.
    public static func load(path: String, variables: [String: JSONValue] = [:]) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(source: path, issues: [ScenarioIssue(path: "$", message: "cannot read the file (does it exist?)")])
        }
        let baseDirectory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(Array(data), source: path, baseDirectory: baseDirectory, variables: variables)
    }

    /// Parses and checks scenario JSON text.
    public static func parse(_ bytes: [UInt8], source: String, baseDirectory: String = ".",
                             variables: [String: JSONValue] = [:]) throws(ScenarioError) -> Scenario {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            let (line, column) = lineAndColumn(of: error.offset, in: bytes)
            throw ScenarioError(source: source, issues: [ScenarioIssue(path: "line \(line), column \(column)", message: error.reason)])
        }
        var reader = ScenarioReader(baseDirectory: baseDirectory)
        reader.predefined = variables
        let scenario = reader.scenario(json, source: source)
        if !reader.issues.isEmpty || scenario == nil {
            throw ScenarioError(source: source, issues: reader.issues)
        }
        return scenario!
    }

    /// The step kinds, each a key of a step object.
    public static let stepKinds = [
        "send", "notify", "expect", "expectInOrder", "expectAnyOrder", "show", "menu", "alert",
        "subscribe", "unsubscribe", "getVehicleData", "audioPassThru", "putFile", "setAppIcon",
        "wait", "repeat", "prompt", "driver", "stream", "exec", "streamVideo", "streamAudio", "showManeuver", "protect", "answer",
    ]
    static let stepModifiers = ["name", "params", "bulkFile", "response", "timeout", "capture", "background", "unchecked", "as",
                                "resultCode", "request"]
    /// The kinds whose `timeout` is how long each of their requests waits for its response.
    static let requestingKinds: Set = ["send", "show", "menu", "alert", "subscribe", "unsubscribe", "getVehicleData",
                                       "audioPassThru", "putFile", "setAppIcon", "showManeuver"]
}

/// Walks the JSON, collecting issues instead of stopping at the first.
struct ScenarioReader {
    var issues: [ScenarioIssue] = []
    let baseDirectory: String
    let spec = ScenarioSpecCheck()
    /// Variables defined before the first step, and the `env.` ones the scenario reads.
    var predefined: [String: JSONValue] = [:]
    /// The `as` names of the scenario's apps (empty with a single `app`).
    var appNames: [String] = []

    init(baseDirectory: String) { self.baseDirectory = baseDirectory }

    mutating func issue(_ path: String, _ message: String) { issues.append(ScenarioIssue(path: path, message: message)) }

    mutating func objectValue(_ value: JSONValue?, _ path: String) -> JSONObject? {
        guard let value else { return nil }
        guard case .object(let object) = value else {
            issue(path, "expected an object, found \(value.kindName)")
            return nil
        }
        return object
    }

    mutating func string(_ value: JSONValue?, _ path: String, required: Bool = false) -> String? {
        guard let value else {
            if required { issue(path, "is required (a string)") }
            return nil
        }
        guard case .string(let text) = value else {
            issue(path, "expected a string, found \(value.kindName)")
            return nil
        }
        return text
    }

    mutating func int(_ value: JSONValue?, _ path: String, minimum: Int64 = 0) -> Int? {
        guard let value else { return nil }
        guard let number = value.intValue, number >= minimum else {
            issue(path, "expected an integer ≥ \(minimum), found \(value.description)")
            return nil
        }
        return Int(number)
    }

    mutating func bool(_ value: JSONValue?, _ path: String) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else {
            issue(path, "expected true or false, found \(value.kindName)")
            return nil
        }
        return flag
    }

    mutating func strings(_ value: JSONValue?, _ path: String) -> [String]? {
        guard let value else { return nil }
        if case .string(let single) = value { return [single] }
        guard case .array(let items) = value else {
            issue(path, "expected a string or an array of strings, found \(value.kindName)")
            return nil
        }
        return items.enumerated().compactMap { string($0.element, "\(path)[\($0.offset)]") }
    }

    mutating func unknownKeys(_ object: JSONObject, allowed: [String], _ path: String) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            issue("\(path).\(key)", "unknown key" + suggestion(key, allowed))
        }
    }

    func suggestion(_ name: String, _ candidates: [String]) -> String {
        let close = RPCSpec.suggestions(for: name, among: candidates)
        guard let best = close.first else { return "; expected one of: " + candidates.joined(separator: ", ") }
        return "; did you mean \"\(best)\"?"
    }

    // MARK: Scenario

    mutating func scenario(_ json: JSONValue, source: String) -> Scenario? {
        guard let root = objectValue(json, "$") else { return nil }
        unknownKeys(root, allowed: ["$schema", "name", "description", "tags", "app", "apps", "emulator", "policyServer", "defaults", "steps"], "$")
        let name = string(root["name"], "$.name") ?? URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let apps = root["apps"].map { self.apps($0, "$.apps", alsoApp: root["app"] != nil) } ?? []
        appNames = apps.map(\.name)
        let app = root["apps"] == nil ? appDescription(root["app"], "$.app") : apps.first?.app
        let emulator = objectValue(root["emulator"], "$.emulator")
        var timeout = 10_000
        if let defaults = objectValue(root["defaults"], "$.defaults") {
            unknownKeys(defaults, allowed: ["timeout"], "$.defaults")
            timeout = int(defaults["timeout"], "$.defaults.timeout", minimum: 1) ?? timeout
        }
        guard case .array(let rawSteps)? = root["steps"] else {
            issue("$.steps", root["steps"] == nil ? "is required: the list of steps" : "expected an array of steps")
            return nil
        }
        let steps = self.steps(rawSteps, "$.steps")
        checkVariables(rawSteps, "$.steps")
        let tags = strings(root["tags"], "$.tags") ?? []
        let policyServer = self.policyServer(root["policyServer"], "$.policyServer")
        guard let app else { return nil }
        return Scenario(name: name, description: string(root["description"], "$.description"), app: app, apps: apps,
                        emulator: emulator, policyServer: policyServer, defaultTimeoutMS: timeout, steps: steps, source: source,
                        tags: tags, variables: predefined)
    }

    mutating func steps(_ items: [JSONValue], _ path: String) -> [Step] {
        items.enumerated().compactMap { step($0.element, "\(path)[\($0.offset)]") }
    }

    // MARK: Steps

    mutating func step(_ json: JSONValue, _ path: String) -> Step? {
        guard let object = objectValue(json, path) else { return nil }
        let kinds = object.keys.filter { ScenarioParser.stepKinds.contains($0) }
        for key in object.keys.sorted() where !ScenarioParser.stepKinds.contains(key) && !ScenarioParser.stepModifiers.contains(key) {
            issue("\(path).\(key)", "unknown key" + suggestion(key, ScenarioParser.stepKinds + ScenarioParser.stepModifiers))
        }
        guard kinds.count == 1, let kindKey = kinds.first else {
            if kinds.isEmpty {
                if object.keys.allSatisfy({ ScenarioParser.stepModifiers.contains($0) }) {
                    issue(path, "a step needs one of: " + ScenarioParser.stepKinds.joined(separator: ", "))
                }
            } else {
                issue(path, "a step does one thing; found \(kinds.sorted().joined(separator: " and ")): split it into steps")
            }
            return nil
        }
        let kindPath = "\(path).\(kindKey)"
        let value = object[kindKey]!
        let captures = self.captures(object["capture"], "\(path).capture")
        let label = string(object["name"], "\(path).name")
        let response = responseExpectation(object["response"], "\(path).response")
        if object["timeout"] != nil, !ScenarioParser.requestingKinds.contains(kindKey) {
            issue("\(path).timeout", "only a step that sends requests waits for responses; an expectation waits \"within\" ms (default: defaults.timeout)")
        }
        if object["unchecked"] != nil, !["send", "notify"].contains(kindKey) {
            issue("\(path).unchecked", "only a send or notify step can leave its parameters unchecked")
        }
        let background = bool(object["background"], "\(path).background") ?? false
        if background, !["send", "show", "alert", "getVehicleData", "subscribe", "unsubscribe", "setAppIcon"].contains(kindKey) {
            issue("\(path).background", "only a step that sends one request can run in the background")
        }
        if background, object["response"] != nil || object["capture"] != nil || object["timeout"] != nil {
            issue("\(path).background", "a background request is checked by a later {\"expect\": {\"response\": ...}} step (which waits \"within\" ms), not by response/capture/timeout here")
        }
        let app = appName(object["as"], "\(path).as", kind: kindKey)
        func kind(_ kind: Step.Kind?) -> Step? {
            kind.map { Step(kind: $0, path: path, label: label, captures: captures, background: background, app: app) }
        }
        switch kindKey {
        case "send", "notify":
            guard let function = string(value, kindPath) else { return nil }
            let type: RPCMessageType = kindKey == "send" ? .request : .notification
            if let problem = spec.functionProblem(function, type) {
                issue(kindPath, problem)
                return nil
            }
            let parameters = objectValue(object["params"], "\(path).params") ?? [:]
            // "unchecked": true sends parameters the spec forbids, to see how a head unit refuses them.
            if bool(object["unchecked"], "\(path).unchecked") != true {
                for problem in spec.parameterProblems(function: function, type: type, parameters: parameters) {
                    issue("\(path).params\(problem.path.isEmpty ? "" : "." + problem.path)", problem.message)
                }
            }
            if kindKey == "notify" { return kind(.notify(function: function, parameters: parameters)) }
            var bulkFile = string(object["bulkFile"], "\(path).bulkFile")
            if let file = bulkFile { bulkFile = resolve(file) }
            let timeout = int(object["timeout"], "\(path).timeout", minimum: 1)
            return kind(.send(function: function, parameters: parameters, bulkFile: bulkFile, expect: response ?? .succeeds, timeoutMS: timeout))
        case "answer":
            return answerStep(object, path).flatMap { kind(.answer($0)) }
        case "expect":
            if case .object(let object) = value, object["transport"] != nil {
                if !captures.isEmpty { issue("\(path).capture", "a transport event has nothing to capture") }
                return transportExpectation(object, kindPath).flatMap { kind(.expectTransport($0)) }
            }
            if case .object(let object) = value, object["protected"] != nil {
                if !captures.isEmpty { issue("\(path).capture", "protection has nothing to capture") }
                return protectedExpectation(object, kindPath).flatMap { kind(.expectProtected($0)) }
            }
            if case .object(let object) = value, object["stream"] != nil || object["gesture"] != nil || object["lockScreen"] != nil {
                if !captures.isEmpty { issue("\(path).capture", "a stream state, gesture or lock screen has nothing to capture") }
                return mediaExpectation(object, kindPath).flatMap { kind(.expectMedia($0)) }
            }
            guard var expectation = messageExpectation(value, kindPath) else { return nil }
            // A step-level capture of a single expectation captures from the message it matched.
            expectation.captures.merge(captures) { inner, _ in inner }
            return kind(.expect([expectation], order: .inOrder))
        case "expectInOrder", "expectAnyOrder":
            guard case .array(let items) = value, !items.isEmpty else {
                issue(kindPath, "expected a non-empty array of expectations")
                return nil
            }
            if !captures.isEmpty {
                issue("\(path).capture", "in a group, put \"capture\" inside the expectation whose message it reads")
            }
            let expectations = items.enumerated().compactMap { messageExpectation($0.element, "\(kindPath)[\($0.offset)]") }
            guard expectations.count == items.count else { return nil }
            return kind(.expect(expectations, order: kindKey == "expectInOrder" ? .inOrder : .anyOrder))
        case "wait":
            return int(value, kindPath).flatMap { kind(.wait(milliseconds: $0)) }
        case "repeat":
            guard let body = objectValue(value, kindPath) else { return nil }
            unknownKeys(body, allowed: ["times", "steps"], kindPath)
            guard let times = int(body["times"], "\(kindPath).times", minimum: 1) else {
                if body["times"] == nil { issue("\(kindPath).times", "is required: how many times to repeat") }
                return nil
            }
            guard case .array(let inner)? = body["steps"] else {
                issue("\(kindPath).steps", "is required: the steps to repeat")
                return nil
            }
            return kind(.repeat(times: times, steps: steps(inner, "\(kindPath).steps")))
        case "prompt":
            return string(value, kindPath).flatMap { kind(.prompt(message: $0)) }
        case "driver":
            return driverAction(value, kindPath).flatMap { kind(.driver($0)) }
        case "stream":
            return streamStep(value, kindPath).flatMap { kind(.stream($0)) }
        case "protect":
            return protectStep(value, kindPath).flatMap { kind(.protect($0)) }
        case "exec":
            return execStep(value, kindPath).flatMap { kind(.exec($0)) }
        case "streamVideo", "streamAudio":
            return mediaStep(kindKey, value, kindPath).flatMap { kind(.media($0)) }
        default:
            let timeout = int(object["timeout"], "\(path).timeout", minimum: 1)
            return action(kindKey, value, kindPath).flatMap { kind(.action($0, expect: response ?? .succeeds, timeoutMS: timeout)) }
        }
    }

    mutating func captures(_ value: JSONValue?, _ path: String) -> [String: String] {
        guard let object = objectValue(value, path) else { return [:] }
        var result: [String: String] = [:]
        for (name, source) in object {
            if let source = string(source, "\(path).\(name)") { result[name] = source }
        }
        return result
    }

    mutating func responseExpectation(_ value: JSONValue?, _ path: String) -> ResponseExpectation? {
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["resultCode", "success", "params"], path)
        let codes = strings(object["resultCode"], "\(path).resultCode")
        for (index, code) in (codes ?? []).enumerated() {
            if let problem = spec.enumProblem(enumName: "Result", value: code) { issue("\(path).resultCode[\(index)]", problem) }
        }
        return ResponseExpectation(
            resultCodes: codes, success: bool(object["success"], "\(path).success") ?? (codes == nil ? true : nil),
            parameters: object["params"].map { matcher($0, "\(path).params") })
    }

    mutating func messageExpectation(_ value: JSONValue, _ path: String) -> MessageExpectation? {
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["notification", "response", "hmi", "params", "count", "atLeast", "never", "within", "capture"], path)
        let kind: MessageExpectation.Kind
        let function: String
        if let name = string(object["hmi"], "\(path).hmi") {
            guard let problem = Self.hmiMethodProblem(name) else {
                return MessageExpectation(kind: .hmi, function: name, parameters: object["params"].map { matcher($0, "\(path).params") },
                                          count: expectationCount(object, path), withinMS: int(object["within"], "\(path).within", minimum: 1),
                                          captures: captures(object["capture"], "\(path).capture"))
            }
            issue("\(path).hmi", problem)
            return nil
        } else if let name = string(object["notification"], "\(path).notification") {
            kind = .notification
            function = name
        } else if let name = string(object["response"], "\(path).response") {
            kind = .response
            function = name
        } else {
            issue(path, "name the message: {\"notification\": \"OnHMIStatus\"}, {\"response\": \"Show\"} or {\"hmi\": \"UI.Show\"}")
            return nil
        }
        let type: RPCMessageType = kind == .notification ? .notification : .response
        if let problem = spec.functionProblem(function, type) {
            issue("\(path).\(kind.rawValue)", problem)
            return nil
        }
        let count = expectationCount(object, path)
        let parameters = object["params"].map { matcher($0, "\(path).params") }
        if let parameters { checkMatcherKeys(parameters, function: function, type: type, path: "\(path).params") }
        return MessageExpectation(kind: kind, function: function, parameters: parameters, count: count,
                                  withinMS: int(object["within"], "\(path).within", minimum: 1),
                                  captures: captures(object["capture"], "\(path).capture"))
    }

    private mutating func expectationCount(_ object: JSONObject, _ path: String) -> MessageExpectation.Count {
        var count = MessageExpectation.Count.atLeast(1)
        if let exactly = int(object["count"], "\(path).count") { count = exactly == 0 ? .never : .exactly(exactly) }
        if let atLeast = int(object["atLeast"], "\(path).atLeast", minimum: 1) { count = .atLeast(atLeast) }
        if bool(object["never"], "\(path).never") == true { count = .never }
        return count
    }

    /// The HMI API's interfaces: an `hmi` expectation names `Interface.Function` of one of them.
    static let hmiInterfaces = ["BasicCommunication", "UI", "VR", "TTS", "VehicleInfo", "Navigation", "Buttons", "RC", "AppService", "SDL"]

    /// Why `name` is not an HMI API method, or nil.
    static func hmiMethodProblem(_ name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = parts[1].first, first.isUppercase else {
            return "'\(name)' is not an HMI API method: write Interface.Function, e.g. UI.Show or VehicleInfo.SubscribeVehicleData"
        }
        guard hmiInterfaces.contains(String(parts[0])) else {
            return "'\(parts[0])' is not an HMI API interface; use one of " + hmiInterfaces.joined(separator: ", ")
        }
        return nil
    }

    /// Flags matcher keys the message can never carry and enum values it can never have,
    /// in structs too (a typo would otherwise just time out).
    mutating func checkMatcherKeys(_ matcher: Matcher, function: String, type: RPCMessageType, path: String) {
        guard let params = spec.spec.function(named: function, messageType: type)?.params else { return }
        checkMatcher(matcher, params: params, owner: function, path: path)
    }

    private mutating func checkMatcher(_ matcher: Matcher, params: [RPCSpec.Param], owner: String, path: String) {
        guard case .subset(let keys) = matcher else { return }
        let known = params.map(\.name)
        for key in keys.keys.sorted() {
            guard let param = params.first(where: { $0.name == key }), let value = keys[key] else {
                issue("\(path).\(key)", "\(owner) has no parameter '\(key)'" + suggestion(key, known))
                continue
            }
            checkValue(value, kind: param.kind, isArray: param.isArray, path: "\(path).\(key)")
        }
    }

    /// An enum value an expectation compares with must be a value of the enum; a struct is
    /// checked key by key.
    private mutating func checkValue(_ matcher: Matcher, kind: RPCSpec.Kind, isArray: Bool, path: String) {
        switch (matcher, kind) {
        case (.equals(.string(let value)), .enumeration(let name)):
            if let problem = spec.enumProblem(enumName: name, value: value) { issue(path, problem) }
        case (.oneOf(let values), .enumeration(let name)):
            for case .string(let value) in values {
                if let problem = spec.enumProblem(enumName: name, value: value) { issue(path, problem) }
            }
        case (.elements(let items), _) where isArray:
            for (index, item) in items.enumerated() { checkValue(item, kind: kind, isArray: false, path: "\(path)[\(index)]") }
        case (.subset, .structure(let name)):
            guard let structure = spec.spec.structure(named: name) else { return }
            checkMatcher(matcher, params: structure.params, owner: name, path: path)
        default:
            break
        }
    }

    mutating func matcher(_ value: JSONValue, _ path: String) -> Matcher {
        switch value {
        case .string(let text) where text.hasPrefix("${") && text.hasSuffix("}"):
            return .variable(String(text.dropFirst(2).dropLast()))
        case .array(let items):
            return .elements(items.enumerated().map { matcher($0.element, "\(path)[\($0.offset)]") })
        case .object(let object):
            let operators = object.keys.filter { $0.hasPrefix("$") }
            guard !operators.isEmpty else {
                var keys: [String: Matcher] = [:]
                for (key, item) in object { keys[key] = matcher(item, "\(path).\(key)") }
                return .subset(keys)
            }
            guard object.count == 1, let op = operators.first else {
                issue(path, "an operator object has exactly one key, one of: " + Matcher.operators.joined(separator: ", "))
                return .present
            }
            let argument = object[op]!
            switch op {
            case "$eq": return .equals(argument)
            case "$regex":
                guard let pattern = string(argument, "\(path).$regex") else { return .present }
                if (try? Regex(pattern)) == nil { issue("\(path).$regex", "'\(pattern)' is not a valid regular expression") }
                return .regex(pattern)
            case "$range":
                guard case .array(let bounds) = argument, bounds.count == 2,
                      bounds.allSatisfy({ $0.isNull || $0.doubleValue != nil }) else {
                    issue("\(path).$range", "expected [min, max] with numbers or null for an open end")
                    return .present
                }
                return .range(min: bounds[0].doubleValue, max: bounds[1].doubleValue)
            case "$oneOf":
                guard case .array(let options) = argument, !options.isEmpty else {
                    issue("\(path).$oneOf", "expected a non-empty array of values")
                    return .present
                }
                return .oneOf(options)
            case "$absent": return .absent
            case "$any": return .present
            case "$contains": return .contains(matcher(argument, "\(path).$contains"))
            default:
                issue("\(path).\(op)", "unknown operator" + suggestion(op, Matcher.operators))
                return .present
            }
        default:
            return .equals(value)
        }
    }

    mutating func driverAction(_ value: JSONValue, _ path: String) -> DriverAction? {
        if case .string(let name) = value { return driverAction(.object([name: .object([:])]), path) }
        guard let object = objectValue(value, path), object.count == 1, let name = object.keys.first else {
            issue(path, "expected {\"<action>\": {arguments}}, with one of: " + DriverAction.names.joined(separator: ", "))
            return nil
        }
        guard DriverAction.names.contains(name) else {
            issue("\(path).\(name)", "unknown driver action" + suggestion(name, DriverAction.names))
            return nil
        }
        let arguments: JSONObject
        switch object[name]! {
        case .object(let args): arguments = args
        case .null: arguments = [:]
        case let scalar: arguments = ["value": scalar]
        }
        return DriverAction(name: name, arguments: arguments)
    }

    func resolve(_ file: String) -> String {
        file.hasPrefix("/") ? file : URL(fileURLWithPath: baseDirectory).appendingPathComponent(file).path
    }
}
