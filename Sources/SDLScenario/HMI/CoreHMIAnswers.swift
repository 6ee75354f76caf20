import SmartDeviceLink

/// What a generic HMI answers sdl_core's requests with (before `code` and `method`): SUCCESS
/// for everything, and values for the questions core asks at start-up and per app.
enum CoreHMIAnswers {
    static func result(for method: String, params: JSONObject) -> JSONObject {
        let name = method.split(separator: ".").last.map(String.init) ?? method
        switch (method, name) {
        case (_, "IsReady"): return ["available": true]
        case (_, "GetLanguage"): return ["language": "EN-US"]
        case (_, "GetSupportedLanguages"): return ["languages": ["EN-US"]]
        case ("VehicleInfo.GetVehicleType", _):
            return ["vehicleType": ["make": "SDL", "model": "sdl-run HMI", "modelYear": "2026", "trim": "SE"]]
        case ("BasicCommunication.GetSystemInfo", _):
            return ["ccpu_version": "sdl-run-hmi", "language": "EN-US", "wersCountryCode": "WAEGB"]
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
