/// How sdl_core 8.2 turns the HMI's answer into the app's: the HMI speaks HMI API result
/// codes (`Common.Result`), and the app gets a mobile API `Result`. Read from core's
/// `RequestFromMobileImpl::GetMobileResultCode` (request_from_mobile_impl.cc): every code maps
/// to the mobile code of the same name except three, and a code the switch does not name
/// (`TRUNCATED_DATA`) becomes GENERIC_ERROR.
public enum CoreResults {
    /// The HMI API's `Common.Result` (HMI_API.xml of core 8.2), in its order.
    public static let hmiResultCodes = [
        "SUCCESS", "UNSUPPORTED_REQUEST", "UNSUPPORTED_RESOURCE", "DISALLOWED", "REJECTED", "ABORTED", "IGNORED", "RETRY",
        "IN_USE", "DATA_NOT_AVAILABLE", "TIMED_OUT", "INVALID_DATA", "CHAR_LIMIT_EXCEEDED", "INVALID_ID", "DUPLICATE_NAME",
        "APPLICATION_NOT_REGISTERED", "WRONG_LANGUAGE", "OUT_OF_MEMORY", "TOO_MANY_PENDING_REQUESTS", "NO_APPS_REGISTERED",
        "NO_DEVICES_CONNECTED", "WARNINGS", "GENERIC_ERROR", "USER_DISALLOWED", "TRUNCATED_DATA", "SAVED", "READ_ONLY",
    ]

    /// The HMI codes whose app code has another name.
    static let renamed = [
        "DATA_NOT_AVAILABLE": "VEHICLE_DATA_NOT_AVAILABLE",
        "NO_APPS_REGISTERED": "APPLICATION_NOT_REGISTERED",
        "NO_DEVICES_CONNECTED": "APPLICATION_NOT_REGISTERED",
    ]

    /// What the app gets when the HMI answers `hmiResult`; nil when it is no HMI API code.
    public static func appResult(forHMIResult hmiResult: String) -> String? {
        guard hmiResultCodes.contains(hmiResult) else { return nil }
        if let other = renamed[hmiResult] { return other }
        return hmiResult == "TRUNCATED_DATA" ? "GENERIC_ERROR" : hmiResult
    }

    /// What smartdevicelink/generic_hmi answers, with IGNORED, a CancelInteraction that finds
    /// nothing to cancel (RpcFactory.UICancelInteractionIgnoredResponse); core passes it on.
    public static let cancelIgnoredInfo = "Request is ignored, because the intended result is already in effect."

    /// What smartdevicelink/generic_hmi answers a UI.Show whose templateConfiguration asks
    /// for a template the display lacks (RpcFactory.UIShowResponse; a non-media app never has
    /// MEDIA): nil when it has it; UNSUPPORTED_REQUEST when the request asked for nothing
    /// else (as SetDisplayLayout's does), WARNINGS when the rest was shown. core passes the
    /// code and the message on to the app.
    public static func templateAnswer(template: String, isMedia: Bool, templates: [String],
                                      onlyTemplate: Bool) -> (code: String, info: String)? {
        let available = isMedia ? templates : templates.filter { $0 != "MEDIA" }
        if available.contains(template) { return nil }
        guard onlyTemplate else { return ("WARNINGS", "Unsupported Template. Remaining data in request was processed.") }
        return ("UNSUPPORTED_REQUEST", template == "MEDIA" ? "Only MEDIA apps may use the MEDIA template"
                                                           : "The requested layout is not supported on this HMI")
    }

    /// The one line for a driver step that names no HMI API result code.
    static func notAnHMIResult(_ code: String) -> EmulatorError {
        .invalidAction("\(code) is not a result code of the HMI API (Common.Result), e.g. REJECTED, DATA_NOT_AVAILABLE, GENERIC_ERROR")
    }
}

extension HeadUnitEmulator {
    /// core's check of an app's text (CommandRequestImpl::CheckSyntax): no tab or newline,
    /// neither as a character nor written as `\t` or `\n`, and not only spaces.
    static func passesCoreSyntax(_ text: String) -> Bool {
        guard !text.contains(where: { $0 == "\t" || $0 == "\n" }), !text.contains("\\t"), !text.contains("\\n") else { return false }
        return text.contains { $0 != " " }
    }
}
