public import SmartDeviceLink
import Foundation

/// One line typed at `sdl-run console`.
public enum ConsoleLine: Sendable {
    /// `Show mainField1=Hello alignment=CENTERED`, `Show {"mainField1": "Hello"}`,
    /// `AddCommand cmdID=1 menuParams.menuName=Play`.
    case request(function: String, parameters: JSONObject)
    /// `save FILE`: what was sent so far, as a scenario.
    case save(path: String)
    /// `driver activateApp`, `driver selectCommand cmdID=3`: against an emulator.
    case driver(DriverAction)
    /// `help`: the commands and how to write a request.
    case help
    /// `quit`: unregister and leave.
    case quit
    /// A blank line.
    case empty
}

/// A line that cannot be sent, with what to type instead.
public struct ConsoleInputError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// The RPC console's language: parsing a line, completing the word being typed from the RPC
/// spec (request names, parameter names, enum values), and writing a session as a scenario.
public enum ConsoleLanguage {
    /// The console's own words, beside the RPC names.
    public static let commands = ["help", "save", "quit", "driver"]

    /// Reads one typed line; throws with what to type instead when it cannot be sent.
    public static func parse(_ line: String) throws(ConsoleInputError) -> ConsoleLine {
        let words = split(line)
        guard let first = words.first else { return .empty }
        switch first {
        case "help", "?": return .help
        case "quit", "exit": return .quit
        case "save":
            guard words.count == 2 else { throw ConsoleInputError(description: "write save FILE, e.g. save session.json") }
            return .save(path: words[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        case "driver":
            guard words.count >= 2 else { throw ConsoleInputError(description: "write driver ACTION [NAME=VALUE...], e.g. driver activateApp") }
            if let problem = DriverAction.problem(withName: words[1]) { throw ConsoleInputError(description: problem) }
            var arguments: JSONObject = [:]
            for word in words.dropFirst(2) {
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                    throw ConsoleInputError(description: "\(word): write NAME=VALUE")
                }
                arguments[String(word[..<equals])] = value(String(word[word.index(after: equals)...]))
            }
            return .driver(DriverAction(name: words[1], arguments: arguments))
        default:
            break
        }
        let spec = RPCSpec.shared
        guard let function = spec.function(named: first, messageType: .request) else {
            throw ConsoleInputError(description: "\(first) is not a request of the RPC spec"
                                    + RPCSpec.didYouMean(first, among: spec.functionNames(.request) + commands))
        }
        var parameters: JSONObject = [:]
        let rest = words.dropFirst()
        if rest.count == 1, let only = rest.first, only.hasPrefix("{") {
            guard case .object(let object)? = try? JSONValue.parse(Array(only.utf8)) else {
                throw ConsoleInputError(description: "the parameters are not a JSON object: \(only)")
            }
            parameters = object
        } else {
            for word in rest {
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                    throw ConsoleInputError(description: "\(word): write NAME=VALUE (or the parameters as one JSON object)")
                }
                let path = word[..<equals].split(separator: ".").map(String.init)
                parameters = set(value(String(word[word.index(after: equals)...])), at: path, in: parameters)
            }
        }
        do {
            try spec.validate(function: function.name, messageType: .request, parameters: parameters)
        } catch {
            throw ConsoleInputError(description: error.description)
        }
        return .request(function: function.name, parameters: parameters)
    }

    /// A value as typed: JSON when it reads as JSON (`5`, `true`, `["a"]`, `{"x": 1}`), else text.
    static func value(_ text: String) -> JSONValue {
        if let parsed = try? JSONValue.parse(Array(text.utf8)) { return parsed }
        return .string(text)
    }

    private static func set(_ value: JSONValue, at path: [String], in object: JSONObject) -> JSONObject {
        var object = object
        guard let key = path.first else { return object }
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = .object(set(value, at: Array(path.dropFirst()), in: object[key]?.objectValue ?? [:]))
        }
        return object
    }

    /// Words separated by spaces outside quotes, braces and brackets (`text="two words"`);
    /// the quotes stay, so `"5"` is the text 5, not the number.
    static func split(_ line: String) -> [String] {
        var words: [String] = [], current = "", depth = 0, quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if quoted {
                current.append(character)
            } else if character == " " || character == "\t", depth == 0 {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                if character == "{" || character == "[" { depth += 1 }
                if character == "}" || character == "]" { depth -= 1 }
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    // MARK: - Completion

    /// The words that may replace the last word of `line` (typed up to the cursor): request
    /// names and commands first, then `name=` of the request's parameters not given yet,
    /// then, after `name=`, the values of an enum or boolean parameter.
    public static func completions(for line: String) -> [String] {
        let spec = RPCSpec.shared
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let partial = line.hasSuffix(" ") || line.isEmpty ? "" : (words.last ?? "")
        let earlier = line.hasSuffix(" ") ? words : Array(words.dropLast())
        guard let function = earlier.first else {
            return (spec.functionNames(.request) + commands).filter { $0.hasPrefix(partial) }.sorted()
        }
        if function == "driver" {
            return earlier.count == 1 ? DriverAction.names.filter { $0.hasPrefix(partial) }.sorted() : []
        }
        guard let params = spec.function(named: function, messageType: .request)?.params else { return [] }
        if let equals = partial.firstIndex(of: "=") {
            let name = String(partial[..<equals]), typed = String(partial[partial.index(after: equals)...])
            guard let param = params.first(where: { $0.name == name }) else { return [] }
            let values: [String]
            switch param.kind {
            case .enumeration(let enumName): values = param.allowedValues ?? spec.enumeration(named: enumName)?.values ?? []
            case .boolean: values = ["true", "false"]
            default: values = []
            }
            return values.filter { $0.hasPrefix(typed) }.map { "\(name)=\($0)" }
        }
        let given = Set(earlier.dropFirst().compactMap { $0.split(separator: "=").first.map(String.init) })
        return params.map(\.name).filter { !given.contains($0) && $0.hasPrefix(partial) }.sorted().map { "\($0)=" }
    }

    // MARK: - Saving

    /// What a console session did, for `save`.
    public enum Recorded: Sendable {
        /// A request sent, and the result code it got (nil: no answer).
        case request(function: String, parameters: JSONObject, resultCode: String?)
        /// A driver action performed.
        case driver(DriverAction)
    }

    /// A scenario that does `recorded` again, in order, each request expected to get the
    /// answer it got.
    public static func scenario(name: String, appName: String, appID: String, recorded: [Recorded]) -> JSONValue {
        .object([
            "name": .string(name), "description": "Recorded with sdl-run console.",
            "app": ["appName": .string(appName), "appID": .string(appID)],
            "steps": .array(recorded.map { entry in
                switch entry {
                case .request(let function, let parameters, let resultCode):
                    var step: JSONObject = ["send": .string(function)]
                    if !parameters.isEmpty { step["params"] = .object(parameters) }
                    if let resultCode { step["response"] = ["resultCode": .string(resultCode)] }
                    return .object(step)
                case .driver(let action):
                    return ["driver": action.arguments.isEmpty ? .string(action.name) : .object([action.name: .object(action.arguments)])]
                }
            }),
        ])
    }
}
