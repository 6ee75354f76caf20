import SmartDeviceLink

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

/// The closest candidate, for "did you mean".
func closest(to word: String, in candidates: some Sequence<String>) -> String? {
    RPCSpec.suggestions(for: word, among: Array(candidates)).first
}
