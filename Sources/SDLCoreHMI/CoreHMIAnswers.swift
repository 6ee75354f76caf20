import Foundation
import SmartDeviceLink

/// What sdl-run's HMI answers sdl_core's requests with (before `code` and `method`): at
/// start-up what the official sdl_hmi answers (so core presents apps the head unit the
/// emulator presents), then SUCCESS, as a generic HMI, with the values core needs per app.
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


    /// sdl_hmi's route at start (NavigationModel): four copies of one placeholder point, which
    /// it answers Navigation.GetWayPoints with until the driver sets another.
    static let wayPoints: [JSONValue] = Array(repeating: [
        "coordinate": ["latitudeDegrees": 0, "longitudeDegrees": 0], "locationName": "locationName", "addressLines": ["addressLines"],
        "locationDescription": "locationDescription", "phoneNumber": "phoneNumber",
        "locationImage": ["value": "images/common/defaultButtonImage.png", "imageType": "DYNAMIC"],
        "searchAddress": ["countryName": "countryName", "countryCode": "countryCode", "postalCode": "postalCode",
                          "administrativeArea": "administrativeArea", "subAdministrativeArea": "subAdministrativeArea",
                          "locality": "locality", "subLocality": "subLocality", "thoroughfare": "thoroughfare",
                          "subThoroughfare": "subThoroughfare"],
    ], count: 4)

    /// The result (without `code` and `method`) of `method` asked with `params`.
    static func result(for method: String, params: JSONObject) -> JSONObject {
        // The head unit is the one the official sdl_hmi presents: its answers to core's
        // start-up questions, recorded (capabilities with CUSTOM_BUTTON among the buttons, or
        // core would subscribe no app to soft-button presses; languages; vehicle; software).
        if let recorded = SDLHMIStartup.answers[method] { return recorded }
        let name = method.split(separator: ".").last.map(String.init) ?? method
        switch (method, name) {
        case (_, "IsReady"): return ["available": true]
        case ("BasicCommunication.GetSystemTime", _):
            // UTC, with the zone as generic_hmi gives it (here none).
            let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
            return ["systemTime": ["millisecond": .int(Int64((now.nanosecond ?? 0) / 1_000_000)), "second": .int(Int64(now.second ?? 0)),
                                   "minute": .int(Int64(now.minute ?? 0)), "hour": .int(Int64(now.hour ?? 0)), "day": .int(Int64(now.day ?? 1)),
                                   "month": .int(Int64(now.month ?? 1)), "year": .int(Int64(now.year ?? 2026)), "tz_hour": 0, "tz_minute": 0]]
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
