import Foundation
public import SmartDeviceLink

/// `--json FILE`: the full result of every scenario.
public enum JSONResultWriter {
    /// The document for these results.
    /// - Parameters:
    ///   - results: the scenarios' results.
    ///   - fineTimes: times to a hundredth of a millisecond instead of whole ones
    ///     (the HTML report orders messages by them).
    public static func document(_ results: [ScenarioResult], fineTimes: Bool = false) -> JSONValue {
        let passed = results.filter { $0.status == .passed }.count
        return [
            "passed": .int(Int64(passed)),
            "failed": .int(Int64(results.count - passed)),
            "scenarios": .array(results.map { scenario($0, fineTimes: fineTimes) }),
        ]
    }

    static func scenario(_ result: ScenarioResult, fineTimes: Bool) -> JSONValue {
        func time(_ ms: Double) -> JSONValue { .double(fineTimes ? (ms * 100).rounded() / 100 : ms.rounded()) }
        var object: JSONObject = [
            "name": .string(result.name), "source": .string(result.source), "target": .string(result.target),
            "status": .string(result.status.rawValue), "exitCode": .int(Int64(result.status.exitCode)),
            "attempts": .int(Int64(result.attempts)), "flaky": .bool(result.isFlaky),
            "durationMS": .double(result.durationMS.rounded()),
            "steps": .array(result.steps.map { step in
                var entry: JSONObject = [
                    "path": .string(step.path), "summary": .string(step.summary), "status": .string(step.status.rawValue),
                    "startMS": time(step.startMS), "durationMS": time(step.durationMS),
                ]
                if let message = step.message { entry["message"] = .string(message) }
                if let output = step.output { entry["output"] = .string(output) }
                return .object(entry)
            }),
            "sent": .array(result.sent.map { message in
                var entry: JSONObject = ["timeMS": time(message.timeMS), "function": .string(message.function),
                                         "parameters": .object(message.parameters)]
                if let app = message.app { entry["app"] = .string(app) }
                if message.isResponse { entry["type"] = "response" }  // an answer to the head unit's request
                return .object(entry)
            }),
            "received": .array(result.messages.map { message in
                var entry: JSONObject = [
                    "timeMS": time(message.timeMS), "function": .string(message.envelope.functionName),
                    "type": .string(message.envelope.messageType.specName),
                    "correlationID": .int(Int64(message.envelope.correlationID)), "parameters": .object(message.envelope.parameters),
                ]
                if !message.envelope.bulkData.isEmpty { entry["bulkBytes"] = .int(Int64(message.envelope.bulkData.count)) }
                if let app = message.app { entry["app"] = .string(app) }
                return .object(entry)
            }),
        ]
        if !result.hmiMessages.isEmpty {
            object["hmi"] = .array(result.hmiMessages.map { message in
                ["timeMS": time(message.timeMS), "function": .string(message.envelope.functionName),
                 "type": .string(message.envelope.messageType.specName), "parameters": .object(message.envelope.parameters)]
            })
        }
        if !result.specViolations.isEmpty {
            object["specViolations"] = .array(result.specViolations.map { violation in
                ["received": .int(Int64(violation.messageIndex)), "function": .string(violation.function),
                 "type": .string(violation.messageType.specName), "path": .string(violation.path), "problem": .string(violation.problem)]
            })
        }
        if let message = result.message { object["message"] = .string(message) }
        return .object(object)
    }

    /// Writes the document for these results to `path`.
    public static func write(_ results: [ScenarioResult], to path: String) throws {
        try Data(document(results).serializedBytes()).write(to: URL(fileURLWithPath: path))
    }
}

/// `--junit FILE`: JUnit XML, a scenario per `<testsuite>`, a step per `<testcase>`.
public enum JUnitWriter {
    /// The JUnit XML for these results.
    public static func document(_ results: [ScenarioResult]) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        // A run that never got to its steps (could not connect, invalid) is one test in error;
        // the totals are the sums of the suites' own counts, so the two levels always agree.
        // A head unit that broke the spec adds a test case of its own: failed under --strict
        // (the run failed for it), passed with the warnings as its output otherwise.
        // A stopped run (Ctrl-C, SIGTERM) is one more test in error, so a CI job never reads
        // it as passed for its skipped steps.
        func specCase(_ result: ScenarioResult) -> Int { result.specViolations.isEmpty ? 0 : 1 }
        func stopCase(_ result: ScenarioResult) -> Int { result.status == .stopped && !result.steps.isEmpty ? 1 : 0 }
        func failures(_ result: ScenarioResult) -> Int { result.steps.filter { $0.status == .failed }.count + (result.failedForSpec ? 1 : 0) }
        func errors(_ result: ScenarioResult) -> Int { (result.steps.isEmpty && result.status != .passed ? 1 : 0) + stopCase(result) }
        func count(_ result: ScenarioResult) -> Int { max(result.steps.count, 1) + specCase(result) + stopCase(result) }
        let tests = results.reduce(0) { $0 + count($1) }
        xml += "<testsuites name=\"sdl-run\" tests=\"\(tests)\" failures=\"\(results.map(failures).reduce(0, +))\" errors=\"\(results.map(errors).reduce(0, +))\">\n"
        let host = escape(ProcessInfo.processInfo.hostName)
        for result in results {
            let skipped = result.steps.filter { $0.status == .skipped }.count
            xml += "  <testsuite name=\"\(escape(result.name))\" tests=\"\(count(result))\" failures=\"\(failures(result))\" errors=\"\(errors(result))\" skipped=\"\(skipped)\" time=\"\(seconds(result.durationMS))\" timestamp=\"\(timestamp(result.startedAt))\" hostname=\"\(host)\">\n"
            xml += "    <properties><property name=\"source\" value=\"\(escape(result.source))\"/><property name=\"target\" value=\"\(escape(result.target))\"/><property name=\"attempts\" value=\"\(result.attempts)\"/><property name=\"flaky\" value=\"\(result.isFlaky)\"/></properties>\n"
            if result.steps.isEmpty {
                xml += "    <testcase name=\"connect and register\" classname=\"\(escape(result.name))\" time=\"\(seconds(result.durationMS))\">\n"
                if result.status != .passed {
                    xml += "      <error message=\"\(escape(result.message ?? result.status.rawValue))\" type=\"\(result.status.rawValue)\"/>\n"
                }
                xml += "    </testcase>\n"
            }
            for step in result.steps {
                xml += "    <testcase name=\"\(escape(step.path)): \(escape(step.summary))\" classname=\"\(escape(result.name))\" time=\"\(seconds(step.durationMS))\""
                let output = step.output.flatMap { $0.isEmpty ? nil : "      <system-out>\(escape($0))</system-out>\n" } ?? ""
                switch step.status {
                case .passed:
                    xml += output.isEmpty ? "/>\n" : ">\n\(output)    </testcase>\n"
                case .failed:
                    xml += ">\n      <failure message=\"\(escape(step.message ?? "failed"))\" type=\"step\"/>\n\(output)    </testcase>\n"
                case .skipped:
                    xml += ">\n      <skipped message=\"\(escape(step.message ?? "skipped"))\"/>\n    </testcase>\n"
                }
            }
            if specCase(result) == 1 {
                let lines = escape(HeadUnitSpecCheck.summary(result.specViolations).joined(separator: "\n"))
                xml += "    <testcase name=\"the head unit's messages keep the RPC spec\" classname=\"\(escape(result.name))\" time=\"0.000\">\n"
                if result.failedForSpec { xml += "      <failure message=\"\(escape(result.message ?? ""))\" type=\"spec\"/>\n" }
                xml += "      <system-out>\(lines)</system-out>\n    </testcase>\n"
            }
            if stopCase(result) == 1 {
                xml += "    <testcase name=\"the run ended\" classname=\"\(escape(result.name))\" time=\"0.000\">\n"
                xml += "      <error message=\"\(escape(result.message ?? "stopped"))\" type=\"stopped\"/>\n    </testcase>\n"
            }
            xml += "    <system-out>\(escape(log(of: result)))</system-out>\n"
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func seconds(_ ms: Double) -> String { String(format: "%.3f", ms / 1000) }

    /// JUnit's timestamp: ISO 8601 without a zone (UTC here).
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// The run's messages in time order, a line each, as the console shows them.
    static func log(of result: ScenarioResult) -> String {
        let sent = result.sent.map { message in
            (time: message.timeMS, line: appTag(message.app) + "→ \(message.function)" + (message.correlationID.map { " #\($0)" } ?? ""))
        }
        let received = result.messages.map { message -> (time: Double, line: String) in
            let envelope = message.envelope
            var line = appTag(message.app) + "← \(envelope.functionName)"
            if envelope.messageType == .response { line += " #\(envelope.correlationID) \(envelope.resultCode ?? "?")" }
            return (message.timeMS, line)
        }
        return (sent + received).sorted { $0.time < $1.time }
            .map { String(format: "%9.1f ms  ", $0.time) + $0.line }.joined(separator: "\n")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            default:
                // XML 1.0 forbids most control characters, even escaped.
                if scalar.value < 0x20 && scalar != "\t" { out += "?" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Writes the JUnit XML for these results to `path`.
    public static func write(_ results: [ScenarioResult], to path: String) throws {
        try Data(document(results).utf8).write(to: URL(fileURLWithPath: path))
    }
}

