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
}

/// A request or notification the scenario sent.
public struct SentMessage: Sendable {
    public var timeMS: Double
    public var function: String
    public var correlationID: Int32?
    public var parameters: JSONObject
}
