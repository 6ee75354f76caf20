import SmartDeviceLink

/// The capabilities a head unit reports in the RegisterAppInterface response: by default
/// those sdl_core 8.2 reports.
enum Capabilities {
    /// Capability parameters of the RegisterAppInterface response a configuration may override.
    static let keys: [String] = [
        "displayCapabilities", "buttonCapabilities", "softButtonCapabilities", "presetBankCapabilities",
        "hmiZoneCapabilities", "speechCapabilities", "prerecordedSpeech", "vrCapabilities",
        "audioPassThruCapabilities", "pcmStreamCapabilities", "supportedDiagModes", "hmiCapabilities",
    ]

    /// What sdl_core 8.2 sends with the official sdl_hmi 5.8.0 as its HMI
    /// (recorded by scripts/record-core-capabilities into Generated/CoreCapabilities.swift).
    static var standard: JSONObject { core }

    /// One of core's recorded GetSystemCapability answers: `key` of the capability of `type`.
    static func coreSystemCapability(_ type: String, _ key: String) -> JSONObject? {
        coreSystemCapabilities[type]?[key]?.objectValue
    }

    /// A parked car with the engine idling.
    static var standardVehicleData: JSONObject {
        [
            "speed": 0.0, "rpm": 800, "fuelLevel": 60.0, "fuelLevel_State": "NORMAL", "instantFuelConsumption": 0.5,
            "externalTemperature": 20.0, "vin": "1SDLEMU0000000001", "prndl": "PARK", "odometer": 12345,
            "gps": ["longitudeDegrees": 13.4050, "latitudeDegrees": 52.5200, "compassDirection": "NORTH",
                    "actual": true, "satellites": 8, "dimension": "3D", "altitude": 34.0, "heading": 0.0, "speed": 0.0],
            "driverBraking": "NO", "headLampStatus": ["lowBeamsOn": false, "highBeamsOn": false, "ambientLightSensorStatus": "DAY"],
            "engineTorque": 20.0, "accPedalPosition": 0.0, "steeringWheelAngle": 0.0, "turnSignal": "OFF",
            "electronicParkBrakeStatus": "CLOSED", "engineOilLife": 80.0, "wiperStatus": "OFF",
            "gearStatus": ["userSelectedGear": "PARK", "actualGear": "PARK", "transmissionType": "AUTOMATIC"],
        ]
    }
}
