/// Function id ⇄ name of the RPC spec 8.0.0 (`MOBILE_API.xml`, enum FunctionID), for the
/// emulator's dynamic dispatch until the generated registry lands.
enum FunctionIDs {
    static let names: [UInt32: String] = [
        1: "RegisterAppInterface", 2: "UnregisterAppInterface", 3: "SetGlobalProperties", 4: "ResetGlobalProperties",
        5: "AddCommand", 6: "DeleteCommand", 7: "AddSubMenu", 8: "DeleteSubMenu", 9: "CreateInteractionChoiceSet",
        10: "PerformInteraction", 11: "DeleteInteractionChoiceSet", 12: "Alert", 13: "Show", 14: "Speak",
        15: "SetMediaClockTimer", 16: "PerformAudioPassThru", 17: "EndAudioPassThru", 18: "SubscribeButton",
        19: "UnsubscribeButton", 20: "SubscribeVehicleData", 21: "UnsubscribeVehicleData", 22: "GetVehicleData",
        23: "ReadDID", 24: "GetDTCs", 25: "ScrollableMessage", 26: "Slider", 27: "ShowConstantTBT", 28: "AlertManeuver",
        29: "UpdateTurnList", 30: "ChangeRegistration", 31: "GenericResponse", 32: "PutFile", 33: "DeleteFile",
        34: "ListFiles", 35: "SetAppIcon", 36: "SetDisplayLayout", 37: "DiagnosticMessage", 38: "SystemRequest",
        39: "SendLocation", 40: "DialNumber", 41: "ButtonPress", 43: "GetInteriorVehicleData",
        44: "SetInteriorVehicleData", 45: "GetWayPoints", 46: "SubscribeWayPoints", 47: "UnsubscribeWayPoints",
        48: "GetSystemCapability", 49: "SendHapticData", 50: "SetCloudAppProperties", 51: "GetCloudAppProperties",
        52: "PublishAppService", 53: "GetAppServiceData", 54: "GetFile", 55: "PerformAppServiceInteraction",
        56: "UnpublishAppService", 57: "CancelInteraction", 58: "CloseApplication", 59: "ShowAppMenu",
        60: "CreateWindow", 61: "DeleteWindow", 62: "GetInteriorVehicleDataConsent", 63: "ReleaseInteriorVehicleDataModule",
        64: "SubtleAlert",
        32768: "OnHMIStatus", 32769: "OnAppInterfaceUnregistered", 32770: "OnButtonEvent", 32771: "OnButtonPress",
        32772: "OnVehicleData", 32773: "OnCommand", 32774: "OnTBTClientState", 32775: "OnDriverDistraction",
        32776: "OnPermissionsChange", 32777: "OnAudioPassThru", 32778: "OnLanguageChange", 32779: "OnKeyboardInput",
        32780: "OnTouchEvent", 32781: "OnSystemRequest", 32782: "OnHashChange", 32783: "OnInteriorVehicleData",
        32784: "OnWayPointChange", 32785: "OnRCStatus", 32786: "OnAppServiceData", 32787: "OnSystemCapabilityUpdated",
        32788: "OnSubtleAlertPressed", 32789: "OnUpdateFile", 32790: "OnUpdateSubMenu", 32791: "OnAppCapabilityUpdated",
        65536: "EncodedSyncPData", 65537: "SyncPData", 98304: "OnEncodedSyncPData", 98305: "OnSyncPData",
    ]

    static let ids: [String: UInt32] = Dictionary(uniqueKeysWithValues: names.map { ($1, $0) })

    static func id(_ name: String) -> UInt32 { ids[name] ?? 0 }
}

/// Vehicle data parameter names and their `VehicleDataType` (the `dataType` of a
/// VehicleDataResult), as the spec pairs them.
enum VehicleDataNames {
    static let dataTypes: [String: String] = [
        "gps": "VEHICLEDATA_GPS", "speed": "VEHICLEDATA_SPEED", "rpm": "VEHICLEDATA_RPM",
        "fuelLevel": "VEHICLEDATA_FUELLEVEL", "fuelLevel_State": "VEHICLEDATA_FUELLEVEL_STATE",
        "instantFuelConsumption": "VEHICLEDATA_FUELCONSUMPTION", "fuelRange": "VEHICLEDATA_FUELRANGE",
        "climateData": "VEHICLEDATA_CLIMATEDATA", "externalTemperature": "VEHICLEDATA_EXTERNTEMP",
        "turnSignal": "VEHICLEDATA_TURNSIGNAL", "vin": "VEHICLEDATA_VIN", "gearStatus": "VEHICLEDATA_GEARSTATUS",
        "prndl": "VEHICLEDATA_PRNDL", "tirePressure": "VEHICLEDATA_TIREPRESSURE", "odometer": "VEHICLEDATA_ODOMETER",
        "beltStatus": "VEHICLEDATA_BELTSTATUS", "bodyInformation": "VEHICLEDATA_BODYINFO",
        "deviceStatus": "VEHICLEDATA_DEVICESTATUS", "driverBraking": "VEHICLEDATA_BRAKING",
        "wiperStatus": "VEHICLEDATA_WIPERSTATUS", "headLampStatus": "VEHICLEDATA_HEADLAMPSTATUS",
        "engineTorque": "VEHICLEDATA_ENGINETORQUE", "accPedalPosition": "VEHICLEDATA_ACCPEDAL",
        "steeringWheelAngle": "VEHICLEDATA_STEERINGWHEEL", "engineOilLife": "VEHICLEDATA_ENGINEOILLIFE",
        "electronicParkBrakeStatus": "VEHICLEDATA_ELECTRONICPARKBRAKESTATUS",
        "cloudAppVehicleID": "VEHICLEDATA_CLOUDAPPVEHICLEID", "stabilityControlsStatus": "VEHICLEDATA_STABILITYCONTROLSSTATUS",
        "eCallInfo": "VEHICLEDATA_ECALLINFO", "airbagStatus": "VEHICLEDATA_AIRBAGSTATUS",
        "emergencyEvent": "VEHICLEDATA_EMERGENCYEVENT", "clusterModeStatus": "VEHICLEDATA_CLUSTERMODESTATUS",
        "myKey": "VEHICLEDATA_MYKEY", "windowStatus": "VEHICLEDATA_WINDOWSTATUS",
        "handsOffSteering": "VEHICLEDATA_HANDSOFFSTEERING", "seatOccupancy": "VEHICLEDATA_SEATOCCUPANCY",
    ]
    /// Items GetVehicleData may read but no one may subscribe to (the spec has no subscribe parameter for them).
    static let readOnly: Set<String> = ["vin"]
}

/// Edit distance, for "did you mean" in configuration errors.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// The closest candidate within a small distance, for "did you mean".
func closest(to word: String, in candidates: some Sequence<String>) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
    return best
}
