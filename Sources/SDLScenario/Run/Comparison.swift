public import SmartDeviceLink

/// Where two head units answered one scenario differently (`sdl-run compare`): the same
/// steps run on the embedded emulator and on a real sdl_core, step by step.
///
/// It lines up everything the app received in the two runs (responses with their result
/// codes, notifications, in order) and reports, under the
/// step each came in, a step whose verdict differs, a message one head unit sent and the other
/// did not, and parameters that differ in messages both sent. Values that differ on every run
/// (hash ids, correlation ids) are left out.
public struct ScenarioComparison: Sendable {
    /// What a comparison may leave out, for two head units configured apart on purpose.
    public enum Aspect: String, CaseIterable, Sendable {
        /// The capabilities of the RegisterAppInterface response.
        case capabilities
        /// OnPermissionsChange, the policy table's word.
        case permissions
    }

    /// One difference, under the step it belongs to.
    public struct Difference: Sendable, Equatable {
        /// The step's JSON path, or "registration" for what came before the first step.
        public var step: String
        /// The step in a few words.
        public var summary: String
        /// What was different, e.g. "AddCommand: resultCode SUCCESS ≠ DUPLICATE_NAME".
        public var detail: String
    }

    /// The scenario's name.
    public var scenario: String
    /// The run on the first head unit (the emulator, for `sdl-run compare`).
    public var left: ScenarioResult
    /// The run on the second head unit (sdl_core).
    public var right: ScenarioResult
    /// Where the two answered differently, in step order.
    public var differences: [Difference]
    /// Steps that ran on one side only because the other cannot run them (a secondary
    /// transport over a TCP primary), each with the reason the side that skipped gave: not
    /// differences between the head units, and not compared.
    public var setAside: [Difference]

    /// Parameters whose values differ from run to run on any head unit (core makes a service id from a random number).
    static let volatileKeys: Set<String> = ["hashID", "correlationID", "fullAppID", "appID", "spaceAvailable", "serviceID"]

    /// Compares two runs of one scenario, leaving out the aspects in `ignored`.
    public init(left: ScenarioResult, right: ScenarioResult, ignoring ignored: Set<Aspect> = []) {
        self.scenario = left.name
        self.left = left
        self.right = right
        var differences: [Difference] = []
        if left.status != right.status, left.steps.isEmpty || right.steps.isEmpty {
            differences.append(Difference(step: "scenario", summary: "", detail: "\(left.status.rawValue) ≠ \(right.status.rawValue): "
                                          + (left.message ?? right.message ?? "")))
        }
        // The registration answers with the head unit's capabilities, which differ by design:
        // one line naming the keys that differ, then the verdicts step by step.
        let registration = Self.parameterDifferences("RegisterAppInterface", Self.registration(left), Self.registration(right), depth: 1)
        if !registration.isEmpty, !ignored.contains(.capabilities) {
            let keys = registration.map { $0.split(separator: ":")[0].dropFirst("RegisterAppInterface.".count) }
            differences.append(Difference(step: "registration", summary: "RegisterAppInterface", detail: "differs in " + keys.joined(separator: ", ")))
        }
        let steps = min(left.steps.count, right.steps.count)
        var details = [[String]](repeating: [], count: steps)
        var setAside: [Difference] = []
        for (index, pair) in zip(left.steps, right.steps).enumerated() where pair.0.status != pair.1.status {
            let skipped = [pair.0, pair.1].first { $0.status == .skipped }
            if let skipped, let reason = skipped.message, reason != ScenarioRunner.earlierStepFailed {
                setAside.append(Difference(step: pair.0.path, summary: pair.0.summary, detail: reason))
                continue
            }
            details[index].append("step \(pair.0.status.rawValue) ≠ \(pair.1.status.rawValue)" + (pair.1.message ?? pair.0.message).map { ": \($0)" }.orEmpty)
        }
        self.setAside = setAside
        func timeline(_ result: ScenarioResult, of app: String?) -> [(step: Int, envelope: RPCEnvelope)] {
            Self.timeline(result, of: app).filter { !ignored.contains(.permissions) || $0.envelope.functionName != "OnPermissionsChange" }
        }
        // Each app's messages are lined up with the same app's: apps' messages interleave as they will.
        let apps = Set((left.messages + right.messages).map(\.app)).sorted { ($0 ?? "") < ($1 ?? "") }
        for app in apps {
            for (step, detail) in Self.messageDifferences(timeline(left, of: app), timeline(right, of: app)) where step < steps {
                // A step that ran on one side only already says so.
                guard left.steps[step].status != .skipped && right.steps[step].status != .skipped else { continue }
                details[step].append(appTag(app) + detail)
            }
        }
        for index in 0..<steps {
            differences += details[index].map { Difference(step: left.steps[index].path, summary: left.steps[index].summary, detail: $0) }
        }
        self.differences = differences
    }

    /// Every message the app (`app`, of a scenario with several) received after the
    /// registration's response, in order, with the step it came in (the last one started by
    /// then; what came before the first step counts as the first step's).
    static func timeline(_ result: ScenarioResult, of app: String? = nil) -> [(step: Int, envelope: RPCEnvelope)] {
        result.messages.filter { $0.app == app && !isRegistration($0.envelope) }.map { message in
            let step = result.steps.lastIndex { $0.startMS <= message.timeMS } ?? 0
            return (step, message.envelope)
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

    /// The two runs' messages lined up by name and result code in order (a common
    /// subsequence, so a message that came a little earlier or later on one head unit still
    /// pairs up), then: parameters that differ in each pair, a response whose result code
    /// differs, and what only one head unit sent. Each difference comes with its step.
    static func messageDifferences(_ left: [(step: Int, envelope: RPCEnvelope)],
                                   _ right: [(step: Int, envelope: RPCEnvelope)]) -> [(step: Int, detail: String)] {
        var found: [(step: Int, detail: String)] = []
        let pairs = commonSubsequence(left.map(\.envelope), right.map(\.envelope))
        for (i, j) in pairs {
            let function = left[i].envelope.functionName
            found += parameterDifferences(function, left[i].envelope.parameters, right[j].envelope.parameters).map { (left[i].step, $0) }
        }
        var onlyLeft = Set(left.indices).subtracting(pairs.map(\.0)).sorted()
        var onlyRight = Set(right.indices).subtracting(pairs.map(\.1)).sorted()
        // What is left of the same function in the same or the next step pairs up too: the
        // order crossed another message's, or a response came with another result code. A
        // response pairs up in whatever step it came: the library's managers ask in the
        // background (a cloud app's icon), and the answer's step is the time its HTTP fetch took.
        for i in onlyLeft {
            let mine = left[i]
            guard let k = onlyRight.firstIndex(where: { (abs(right[$0].step - mine.step) <= 1 || mine.envelope.messageType == .response)
                                                        && right[$0].envelope.messageType == mine.envelope.messageType
                                                        && right[$0].envelope.functionName == mine.envelope.functionName }) else { continue }
            let theirs = right[onlyRight[k]].envelope
            if mine.envelope.messageType == .response && mine.envelope.resultCode != theirs.resultCode {
                found.append((mine.step, "\(mine.envelope.functionName): resultCode \(mine.envelope.resultCode ?? "?") ≠ \(theirs.resultCode ?? "?")"
                              + (theirs.parameters["info"]?.stringValue).map { " (\"\($0)\")" }.orEmpty))
            }
            found += parameterDifferences(mine.envelope.functionName, mine.envelope.parameters, theirs.parameters,
                                          ignoring: ["resultCode", "success"]).map { (mine.step, $0) }
            onlyRight.remove(at: k)
            onlyLeft.removeAll { $0 == i }
        }
        found += onlyLeft.map { (left[$0].step, "only the first sent \(label(left[$0].envelope))") }
        found += onlyRight.map { (right[$0].step, "only the second sent \(label(right[$0].envelope))") }
        return found.enumerated().sorted { ($0.element.step, $0.offset) < ($1.element.step, $1.offset) }.map(\.element)
    }

    /// Index pairs of a common subsequence of `a` and `b` (the same name and result code),
    /// the best by weight: a pair whose parameters are the same counts twice, so of two
    /// alignments as long, the one that pairs equal messages wins (the OnHMIStatus NONE, FULL,
    /// ALERT of both runs pair up even when an OnPermissionsChange falls between them on one).
    static func commonSubsequence(_ a: [RPCEnvelope], _ b: [RPCEnvelope]) -> [(Int, Int)] {
        // Labels once, and each pair's weight once (0: no pair), for the table and the walk back.
        let labelsA = a.map(label), labelsB = b.map(label)
        var weight = [[Int8]](repeating: [Int8](repeating: 0, count: b.count), count: a.count)
        var best = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                if labelsA[i] == labelsB[j] {
                    weight[i][j] = parameterDifferences(a[i].functionName, a[i].parameters, b[j].parameters).isEmpty ? 2 : 1
                }
                let paired = Int(weight[i][j])
                best[i][j] = max(paired > 0 ? best[i + 1][j + 1] + paired : 0, best[i + 1][j], best[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var (i, j) = (0, 0)
        while i < a.count && j < b.count {
            let paired = Int(weight[i][j])
            if paired > 0 && best[i][j] == best[i + 1][j + 1] + paired {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if best[i + 1][j] >= best[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }

    /// Keys whose values differ, as `Function.key: a ≠ b`; `depth` 1 names differing keys only.
    static func parameterDifferences(_ function: String, _ left: JSONObject, _ right: JSONObject, depth: Int = 8,
                                     ignoring: Set<String> = []) -> [String] {
        var details: [String] = []
        func walk(_ path: String, _ a: JSONValue?, _ b: JSONValue?, _ level: Int) {
            // 0 and 0.0 are the same number to a JSON reader.
            guard a != b, a?.doubleValue == nil || a?.doubleValue != b?.doubleValue else { return }
            if level < depth, case .object(let x)? = a, case .object(let y)? = b {
                for key in Set(x.keys).union(y.keys).sorted() where !volatileKeys.contains(key) {
                    walk("\(path).\(key)", x[key], y[key], level + 1)
                }
                return
            }
            // Arrays of the same length element by element, so a volatile key inside one is left out too.
            if level < depth, case .array(let x)? = a, case .array(let y)? = b, x.count == y.count {
                for (index, pair) in zip(x, y).enumerated() { walk("\(path)[\(index)]", pair.0, pair.1, level + 1) }
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
            "setAside": .array(setAside.map { .object(["step": .string($0.step), "summary": .string($0.summary), "reason": .string($0.detail)]) }),
        ])
    }
}

extension Optional where Wrapped == String {
    fileprivate var orEmpty: String { self ?? "" }
}
