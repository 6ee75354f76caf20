public import Foundation
public import SmartDeviceLink

/// The outcome of one step.
public struct StepResult: Sendable {
    public enum Status: String, Sendable { case passed, failed, skipped }
    /// JSON path of the step in the file (with `#n` for the n-th repetition).
    public var path: String
    public var summary: String
    public var status: Status
    /// Why it failed or was skipped.
    public var message: String?
    /// Milliseconds since the scenario started.
    public var startMS: Double
    public var durationMS: Double
    /// What an `exec` step's command printed (stdout and stderr).
    public var output: String?
}

/// The outcome of a scenario.
public struct ScenarioResult: Sendable {
    public enum Status: String, Sendable {
        case passed
        /// A step failed.
        case failed
        /// The scenario is not valid; nothing was sent.
        case invalid
        /// Could not connect, or the head unit refused the app.
        case connectionFailed = "connection failed"

        /// sdl-run's exit code for this outcome.
        public var exitCode: Int32 {
            switch self {
            case .passed: return 0
            case .failed: return 1
            case .invalid: return 2
            case .connectionFailed: return 3
            }
        }
    }

    public var name: String
    public var source: String
    public var target: String
    public var status: Status
    /// For `invalid` and `connectionFailed`: what went wrong.
    public var message: String?
    public var steps: [StepResult]
    public var durationMS: Double
    /// Every message received from the head unit.
    public var messages: [LoggedMessage]
    /// Every request and notification sent.
    public var sent: [SentMessage]
    /// What the head unit sent its HMI (core over its HMI WebSocket with `--hmi`, the
    /// emulator's own HMI), where the target shows it.
    public var hmiMessages: [LoggedMessage] = []
    /// Runs it took (`--retries`): more than one means the earlier ones did not pass.
    public var attempts = 1
    /// When the (last) run started, by the wall clock.
    public var startedAt = Date()

    /// Passed, but only on a retry.
    public var isFlaky: Bool { status == .passed && attempts > 1 }
}

extension [ScenarioResult] {
    /// One line for a whole run: how many scenarios passed (and of those, how many only on
    /// a retry), failed, were invalid, or could not connect.
    public var summaryLine: String {
        func number(_ status: ScenarioResult.Status) -> Int { filter { $0.status == status }.count }
        var parts = ["\(number(.passed)) passed"]
        let flaky = filter(\.isFlaky).count
        if flaky > 0 { parts[0] += " (\(flaky) flaky)" }
        parts.append("\(number(.failed)) failed")
        if number(.invalid) > 0 { parts.append("\(number(.invalid)) invalid") }
        if number(.connectionFailed) > 0 { parts.append("\(number(.connectionFailed)) could not connect") }
        let seconds = reduce(0) { $0 + $1.durationMS } / 1000
        return "\(count) scenario\(count == 1 ? "" : "s"): " + parts.joined(separator: ", ") + String(format: " in %.1f s", seconds)
    }
}

/// A request or notification the scenario sent.
public struct SentMessage: Sendable {
    public var timeMS: Double
    public var function: String
    public var correlationID: Int32?
    public var parameters: JSONObject

    public init(timeMS: Double, function: String, correlationID: Int32?, parameters: JSONObject) {
        (self.timeMS, self.function, self.correlationID, self.parameters) = (timeMS, function, correlationID, parameters)
    }
}
