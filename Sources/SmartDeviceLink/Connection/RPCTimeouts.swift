/// How long requests that wait on the user may take beyond the default timeout.
///
/// A request such as PerformInteraction is answered only when the user chooses or its own
/// timeout runs out, so its response may legitimately arrive long after the default
/// 10 s. The extra time is the request's own duration parameter (or the spec default
/// when it is absent).
public enum RPCTimeouts {
    /// The extra wait for `function` with these parameters; zero for ordinary requests.
    public static func userWait(function: String, parameters: JSONObject) -> Duration {
        func millis(_ key: String, default value: Int64) -> Duration {
            .milliseconds(parameters[key]?.intValue ?? value)
        }
        switch function {
        case "Alert":
            // Shown for `duration` (default 5 s); with soft buttons it stays until pressed.
            let hasButtons = !(parameters["softButtons"]?.arrayValue?.isEmpty ?? true)
            return millis("duration", default: 5000) + (hasButtons ? .seconds(10) : .zero)
        case "PerformInteraction":
            return millis("timeout", default: 10_000)
        case "PerformAudioPassThru":
            return millis("maxDuration", default: 10_000)
        case "Slider":
            return millis("timeout", default: 10_000)
        case "ScrollableMessage":
            return millis("timeout", default: 30_000)
        case "AlertManeuver", "Speak":
            return .seconds(10)
        default:
            return .zero
        }
    }
}
