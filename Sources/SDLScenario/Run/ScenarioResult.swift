public import Foundation
public import SmartDeviceLink

/// The outcome of one step.
public struct StepResult: Sendable {
    /// What became of the step.
    public enum Status: String, Sendable {
        /// It did what it should, and what came was what was expected.
        case passed
        /// It could not be done, or what came was not what was expected (``StepResult/message`` says).
        case failed
        /// It was not run: an earlier step failed, or it needs what this head unit cannot do.
        case skipped
    }
    /// JSON path of the step in the file (with `#n` for the n-th repetition).
    public var path: String
    /// The step in a few words (its label, else what it does).
    public var summary: String
    /// Passed, failed or skipped.
    public var status: Status
    /// Why it failed or was skipped.
    public var message: String?
    /// Milliseconds since the scenario started.
    public var startMS: Double
    /// How long it took, in milliseconds.
    public var durationMS: Double
    /// What an `exec` step's command printed (stdout and stderr).
    public var output: String?
}

/// The outcome of a scenario.
public struct ScenarioResult: Sendable {
    /// What became of the scenario; each has its exit code.
    public enum Status: String, Sendable {
        /// No step failed.
        case passed
        /// A step failed.
        case failed
        /// The scenario is not valid; nothing was sent.
        case invalid
        /// Could not connect, or the head unit refused the app.
        case connectionFailed = "connection failed"
        /// Stopped before it ended (Ctrl-C, SIGTERM); the app unregistered, the steps not run are skipped.
        case stopped

        /// sdl-run's exit code for this outcome.
        public var exitCode: Int32 {
            switch self {
            case .passed: return 0
            case .failed: return 1
            case .invalid: return 2
            case .connectionFailed: return 3
            case .stopped: return 130  // the shell's code for a command ended by Ctrl-C
            }
        }
    }

    /// The scenario's name.
    public var name: String
    /// Its file.
    public var source: String
    /// Where it ran ("embedded emulator", "TCP 10.0.0.5:12345").
    public var target: String
    /// Passed, failed, invalid or could not connect.
    public var status: Status
    /// For `invalid` and `connectionFailed`: what went wrong.
    public var message: String?
    /// Each step's outcome, in order.
    public var steps: [StepResult]
    /// How long the run took, in milliseconds.
    public var durationMS: Double
    /// Every message received from the head unit.
    public var messages: [LoggedMessage]
    /// Every request and notification sent.
    public var sent: [SentMessage]
    /// What the head unit sent its HMI (core over its HMI WebSocket with `--hmi`, the
    /// emulator's own HMI), where the target shows it.
    public var hmiMessages: [LoggedMessage] = []
    /// Where the head unit's messages broke the RPC spec (a failure with `--strict`, else warnings).
    public var specViolations: [SpecViolation] = []
    /// Whether the run failed for `specViolations` alone (`--strict`): every step passed, so
    /// nothing else can have failed it.
    public var failedForSpec: Bool {
        status == .failed && !specViolations.isEmpty && !steps.contains { $0.status == .failed }
    }
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
        if number(.stopped) > 0 { parts.append("\(number(.stopped)) stopped") }
        let seconds = reduce(0) { $0 + $1.durationMS } / 1000
        return "\(count) scenario\(count == 1 ? "" : "s"): " + parts.joined(separator: ", ") + String(format: " in %.1f s", seconds)
    }
}

/// A request or notification the scenario sent, or its answer to a request of the head unit.
public struct SentMessage: Sendable {
    /// Milliseconds since the scenario started.
    public var timeMS: Double
    /// The function name.
    public var function: String
    /// A request's correlation id; nil for a notification.
    public var correlationID: Int32?
    /// The parameters as sent.
    public var parameters: JSONObject
    /// Which app sent it (its `as` name), in a scenario with several.
    public var app: String?
    /// It answers a request the head unit sent (an `answer` step), with the result code in `parameters`.
    public var isResponse = false

    /// A message sent `timeMS` into the scenario.
    public init(timeMS: Double, function: String, correlationID: Int32?, parameters: JSONObject) {
        (self.timeMS, self.function, self.correlationID, self.parameters) = (timeMS, function, correlationID, parameters)
    }
}
