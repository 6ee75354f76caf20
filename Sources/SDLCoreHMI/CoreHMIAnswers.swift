import Foundation
import SmartDeviceLink

/// What a generic HMI answers sdl_core's requests with (before `code` and `method`): SUCCESS
/// for everything, and values for the questions core asks at start-up and per app.
enum CoreHMIAnswers {
    /// What smartdevicelink/generic_hmi answers, with IGNORED, a CancelInteraction that finds
    /// nothing to cancel (RpcFactory.UICancelInteractionIgnoredResponse); core passes it on.
    static let cancelIgnoredInfo = "Request is ignored, because the intended result is already in effect."

    /// What smartdevicelink/generic_hmi answers a UI.Show whose templateConfiguration asks
    /// for a template the display lacks (RpcFactory.UIShowResponse; a non-media app never has
    /// MEDIA): nil when it has it; UNSUPPORTED_REQUEST when the request asked for nothing
    /// else (as SetDisplayLayout's does), WARNINGS when the rest was shown. core passes the
    /// code and the message on to the app.
    static func templateAnswer(template: String, isMedia: Bool, templates: [String],
                                      onlyTemplate: Bool) -> (code: String, info: String)? {
        let available = isMedia ? templates : templates.filter { $0 != "MEDIA" }
        if available.contains(template) { return nil }
        guard onlyTemplate else { return ("WARNINGS", "Unsupported Template. Remaining data in request was processed.") }
        return ("UNSUPPORTED_REQUEST", template == "MEDIA" ? "Only MEDIA apps may use the MEDIA template"
                                                           : "The requested layout is not supported on this HMI")
    }


    static func result(for method: String, params: JSONObject) -> JSONObject {
        let name = method.split(separator: ".").last.map(String.init) ?? method
        switch (method, name) {
        case (_, "IsReady"): return ["available": true]
        case (_, "GetLanguage"): return ["language": "EN-US"]
        case (_, "GetSupportedLanguages"): return ["languages": ["EN-US"]]
        case ("VehicleInfo.GetVehicleType", _):
            return ["vehicleType": .object(CoreHMIIdentity.vehicleType)]
        case ("Buttons.GetCapabilities", _):
            // Core subscribes an app to CUSTOM_BUTTON at registration only when the HMI lists
            // it; without it no soft-button press ever reaches the app (core's
            // RegisterAppInterfaceRequest::CheckHMICapabilities, ButtonNotificationToMobile).
            let names = ["CUSTOM_BUTTON", "OK", "PLAY_PAUSE", "SEEKLEFT", "SEEKRIGHT", "TUNEUP", "TUNEDOWN", "SEARCH"]
                + (0...9).map { "PRESET_\($0)" }
            return ["capabilities": .array(names.map { name in
                ["name": .string(name), "shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true]
            }), "presetBankCapabilities": ["onScreenPresetsAvailable": true]]
        case ("BasicCommunication.GetSystemTime", _):
            // UTC, with the zone as generic_hmi gives it (here none).
            let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
            return ["systemTime": ["millisecond": .int(Int64((now.nanosecond ?? 0) / 1_000_000)), "second": .int(Int64(now.second ?? 0)),
                                   "minute": .int(Int64(now.minute ?? 0)), "hour": .int(Int64(now.hour ?? 0)), "day": .int(Int64(now.day ?? 1)),
                                   "month": .int(Int64(now.month ?? 1)), "year": .int(Int64(now.year ?? 2026)), "tz_hour": 0, "tz_minute": 0]]
        case ("BasicCommunication.GetSystemInfo", _):
            return ["ccpu_version": .string(CoreHMIIdentity.softwareVersion), "language": "EN-US", "wersCountryCode": "WAEGB"]
        case ("VehicleInfo.SubscribeVehicleData", _), ("VehicleInfo.UnsubscribeVehicleData", _):
            // Core wants a result per item it asked for.
            var items: JSONObject = [:]
            for (key, value) in params where value.boolValue == true {
                items[key] = ["dataType": .string(dataType(of: key)), "resultCode": "SUCCESS"]
            }
            return items
        default:
            return [:]
        }
    }

    /// Core's data type name of a vehicle data item (`speed` → VEHICLEDATA_SPEED).
    private static func dataType(of item: String) -> String {
        "VEHICLEDATA_" + item.uppercased()
    }
}
