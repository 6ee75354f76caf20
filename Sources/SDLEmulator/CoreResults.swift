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
