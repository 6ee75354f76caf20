public import SmartDeviceLink

/// Where two head units answered one scenario differently (`sdl-run compare`): the same
/// steps run on the embedded emulator and on a real sdl_core, step by step.
///
/// For each step it lines up what the app received while the step ran (responses with their
/// result codes, notifications, in order) and reports a step whose verdict differs, a message
/// one head unit sent and the other did not, and parameters that differ in messages both
/// sent. Values that differ on every run (hash ids, correlation ids) are left out.
public struct ScenarioComparison: Sendable {
    /// One difference, under the step it belongs to.
    public struct Difference: Sendable, Equatable {
        /// The step's JSON path, or "registration" for what came before the first step.
        public var step: String
        public var summary: String
        /// What was different, e.g. "AddCommand: resultCode SUCCESS ≠ DUPLICATE_NAME".
        public var detail: String
    }

    public var scenario: String
    public var left: ScenarioResult
    public var right: ScenarioResult
    public var differences: [Difference]

    /// Parameters whose values differ from run to run on any head unit.
    static let volatileKeys: Set<String> = ["hashID", "correlationID", "fullAppID", "appID", "spaceAvailable"]

    public init(left: ScenarioResult, right: ScenarioResult) {
        self.scenario = left.name
        self.left = left
        self.right = right
        var differences: [Difference] = []
        if left.status != right.status, left.steps.isEmpty || right.steps.isEmpty {
            differences.append(Difference(step: "scenario", summary: "", detail: "\(left.status.rawValue) ≠ \(right.status.rawValue): "
                                          + (left.message ?? right.message ?? "")))
        }
        let leftWindows = Self.windows(left), rightWindows = Self.windows(right)
        // The registration answers with the head unit's capabilities, which differ by design:
        // one line naming the keys that differ, then the verdicts step by step.
        let registration = Self.parameterDifferences("RegisterAppInterface", Self.registration(left), Self.registration(right), depth: 1)
        if !registration.isEmpty {
            let keys = registration.map { $0.split(separator: ":")[0].dropFirst("RegisterAppInterface.".count) }
            differences.append(Difference(step: "registration", summary: "RegisterAppInterface", detail: "differs in " + keys.joined(separator: ", ")))
        }
        // A message just before or after a step boundary may fall in the neighbouring step on
        // the other head unit: what one side alone sent is matched across adjacent steps first.
        let steps = min(left.steps.count, right.steps.count)
        var compared = (0..<steps).map { index -> MessageDifferences in
            let ran = left.steps[index].status != .skipped && right.steps[index].status != .skipped
            return ran ? Self.messageDifferences(leftWindows[index], rightWindows[index]) : MessageDifferences()
        }
        for index in compared.indices.dropLast() {
            for label in compared[index].onlyFirst {
                if let other = compared[index + 1].onlySecond.firstIndex(of: label) {
                    compared[index + 1].onlySecond.remove(at: other)
                    compared[index].onlyFirst.removeAll { $0 == label }
                }
            }
            for label in compared[index].onlySecond {
                if let other = compared[index + 1].onlyFirst.firstIndex(of: label) {
                    compared[index + 1].onlyFirst.remove(at: other)
                    compared[index].onlySecond.removeAll { $0 == label }
                }
            }
        }
        for index in 0..<steps {
            let step = left.steps[index], other = right.steps[index]
            var details: [String] = []
            if step.status != other.status {
                details.append("step \(step.status.rawValue) ≠ \(other.status.rawValue)" + (other.message ?? step.message).map { ": \($0)" }.orEmpty)
            }
            details += compared[index].all
            differences += details.map { Difference(step: step.path, summary: step.summary, detail: $0) }
        }
        self.differences = differences
    }

    /// The messages the app received while each step ran (from its start to the next one's;
    /// the first step's also has what came with the registration, which may end before or after it starts).
    static func windows(_ result: ScenarioResult) -> [[RPCEnvelope]] {
        result.steps.indices.map { index in
            let start = index == 0 ? -.infinity : result.steps[index].startMS
            let end = index + 1 < result.steps.count ? result.steps[index + 1].startMS : .infinity
            return result.messages.filter { $0.timeMS >= start && $0.timeMS < end && !isRegistration($0.envelope) }.map(\.envelope)
        }
    }

    static func registration(_ result: ScenarioResult) -> JSONObject {
        result.messages.first { isRegistration($0.envelope) }?.envelope.parameters ?? [:]
    }

    /// The registration's response, compared on its own (see ``init(left:right:)``).
    static func isRegistration(_ envelope: RPCEnvelope) -> Bool {
        envelope.messageType == .response && envelope.functionName == "RegisterAppInterface"
    }

    /// A message's name as the comparison lines it up: responses with their result code.
    static func label(_ envelope: RPCEnvelope) -> String {
        envelope.messageType == .response ? "\(envelope.functionName) \(envelope.resultCode ?? "?")" : envelope.functionName
    }

    /// What differs in one step: messages only one side sent, and differences in the ones both sent.
    struct MessageDifferences {
        var onlyFirst: [String] = []
        var onlySecond: [String] = []
        var details: [String] = []

        var all: [String] { details + onlyFirst.map { "only the first sent \($0)" } + onlySecond.map { "only the second sent \($0)" } }
    }

    /// Messages one side has and the other lacks (by name in order), then parameter
    /// differences in the ones both have.
    static func messageDifferences(_ left: [RPCEnvelope], _ right: [RPCEnvelope]) -> MessageDifferences {
        var result = MessageDifferences()
        var details: [String] = []
        var remaining = right
        for envelope in left {
            guard let match = remaining.firstIndex(where: { label($0) == label(envelope) }) else {
                if let other = remaining.firstIndex(where: { $0.functionName == envelope.functionName && $0.messageType == envelope.messageType }) {
                    details.append("\(envelope.functionName): resultCode \(envelope.resultCode ?? "?") ≠ \(remaining[other].resultCode ?? "?")"
                                   + (remaining[other].parameters["info"]?.stringValue).map { " (\"\($0)\")" }.orEmpty)
                    details += parameterDifferences(envelope.functionName, envelope.parameters, remaining[other].parameters, ignoring: ["resultCode", "success"])
                    remaining.remove(at: other)
                } else {
                    result.onlyFirst.append(label(envelope))
                }
                continue
            }
            details += parameterDifferences(envelope.functionName, envelope.parameters, remaining[match].parameters)
            remaining.remove(at: match)
        }
        result.onlySecond = remaining.map(label)
        result.details = details
        return result
    }

    /// Keys whose values differ, as `Function.key: a ≠ b`; `depth` 1 names differing keys only.
    static func parameterDifferences(_ function: String, _ left: JSONObject, _ right: JSONObject, depth: Int = 8,
                                     ignoring: Set<String> = []) -> [String] {
        var details: [String] = []
        func walk(_ path: String, _ a: JSONValue?, _ b: JSONValue?, _ level: Int) {
            guard a != b else { return }
            if level < depth, case .object(let x)? = a, case .object(let y)? = b {
                for key in Set(x.keys).union(y.keys).sorted() where !volatileKeys.contains(key) {
                    walk("\(path).\(key)", x[key], y[key], level + 1)
                }
                return
            }
            details.append("\(path): \(a.map(short) ?? "absent") ≠ \(b.map(short) ?? "absent")")
        }
        for key in Set(left.keys).union(right.keys).sorted() where !volatileKeys.contains(key) && !ignoring.contains(key) {
            walk("\(function).\(key)", left[key], right[key], 1)
        }
        return details
    }

    private static func short(_ value: JSONValue) -> String {
        let text = value.serialized()
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    /// The comparison as JSON, for `--json`.
    public var json: JSONValue {
        .object([
            "scenario": .string(scenario),
            "first": ["target": .string(left.target), "status": .string(left.status.rawValue)],
            "second": ["target": .string(right.target), "status": .string(right.status.rawValue)],
            "differences": .array(differences.map { .object(["step": .string($0.step), "summary": .string($0.summary), "detail": .string($0.detail)]) }),
        ])
    }
}

extension Optional where Wrapped == String {
    fileprivate var orEmpty: String { self ?? "" }
}
