import SmartDeviceLink

/// The car's modules behind this HMI's RC interface: what each reads (sdl_hmi's values at
/// start, recorded), and the consent question core put to the driver.
struct InteriorModules: Sendable {
    /// Module data by "TYPE:moduleId", as RC.GetInteriorVehicleData answers it.
    var data: [String: JSONObject] = [:]
    /// core's RC.GetInteriorVehicleDataConsent waiting for the driver: its id and how many modules it asks for.
    var consent: (id: Int64, count: Int)?

    static let dataKeys = ["CLIMATE": "climateControlData", "RADIO": "radioControlData", "SEAT": "seatControlData",
                           "AUDIO": "audioControlData", "LIGHT": "lightControlData", "HMI_SETTINGS": "hmiSettingsControlData"]

    func values(_ type: String, _ id: String) -> JSONObject {
        data["\(type):\(id)"] ?? SDLHMIStartup.interiorVehicleData[type]?[Self.dataKeys[type] ?? ""]?.objectValue ?? [:]
    }

    mutating func change(_ type: String, _ id: String, _ changes: JSONObject) {
        data["\(type):\(id)"] = values(type, id).merging(changes) { $1 }
    }

    /// What a climate or radio button changes, as sdl_hmi's RC controller does it (a switch
    /// flips, a speed, temperature or volume moves by one).
    func pressed(_ button: String, climate: JSONObject, audio: JSONObject) -> (type: String, changes: JSONObject) {
        let flips = ["AC_MAX": "acMaxEnable", "AC": "acEnable", "RECIRCULATE": "circulateAirEnable"]
        if let key = flips[button] { return ("CLIMATE", [key: .bool(climate[key]?.boolValue != true)]) }
        switch button {
        case "FAN_UP", "FAN_DOWN":
            let speed = (climate["fanSpeed"]?.intValue ?? 0) + (button == "FAN_UP" ? 1 : -1)
            return ("CLIMATE", (0...100).contains(speed) ? ["fanSpeed": .int(speed)] : [:])
        case "TEMP_UP", "TEMP_DOWN":
            guard var desired = climate["desiredTemperature"]?.objectValue else { return ("CLIMATE", [:]) }
            desired["value"] = .double((desired["value"]?.doubleValue ?? 0) + (button == "TEMP_UP" ? 1 : -1))
            return ("CLIMATE", ["desiredTemperature": .object(desired)])
        case "VOLUME_UP", "VOLUME_DOWN":
            let volume = (audio["volume"]?.intValue ?? 0) + (button == "VOLUME_UP" ? 1 : -1)
            return ("AUDIO", (0...100).contains(volume) ? ["volume": .int(volume)] : [:])
        default:
            return ("CLIMATE", [:])
        }
    }
}

extension CoreHMI {
    /// Answers core's RC requests and Buttons.ButtonPress; false for any other method.
    func answerRemoteControl(_ id: Int64, _ method: String, _ params: JSONObject) async throws -> Bool {
        switch method {
        case "RC.GetInteriorVehicleData":
            let type = params["moduleType"]?.stringValue ?? "", moduleID = params["moduleId"]?.stringValue ?? ""
            var result: JSONObject = ["moduleData": moduleData(type, moduleID, interior.values(type, moduleID))]
            if let subscribe = params["subscribe"] { result["isSubscribed"] = subscribe }
            try await answer(id, method, .success, result)
        case "RC.SetInteriorVehicleData":
            let data = params["moduleData"]?.objectValue ?? [:]
            let type = data["moduleType"]?.stringValue ?? "", moduleID = data["moduleId"]?.stringValue ?? ""
            let changes = data[InteriorModules.dataKeys[type] ?? ""]?.objectValue ?? [:]
            // sdl_hmi tells core what changed before it answers.
            try await interiorChanged(type, moduleID, changes)
            try await answer(id, method, .success, ["moduleData": moduleData(type, moduleID, changes)])
        case "Buttons.ButtonPress":
            let type = params["moduleType"]?.stringValue ?? ""
            let effect = interior.pressed(params["buttonName"]?.stringValue ?? "", climate: interior.values("CLIMATE", defaultModule("CLIMATE")),
                                          audio: interior.values("AUDIO", defaultModule("AUDIO")))
            let moduleID = effect.type == type ? params["moduleId"]?.stringValue ?? defaultModule(type) : defaultModule(effect.type)
            if !effect.changes.isEmpty { try await interiorChanged(effect.type, moduleID, effect.changes) }
            try await answer(id, method)
        case "RC.GetInteriorVehicleDataConsent":
            // The question waits on the screen for the driver (answerConsent).
            interior.consent = (id, params["moduleIds"]?.arrayValue?.count ?? 1)
        default:
            return false
        }
        return true
    }

    /// The RC driver steps: the driver turns a knob, answers the consent question, or changes the RC settings.
    func performRemoteControl(_ name: String, _ arguments: JSONObject) async throws -> Bool {
        switch name {
        case "setInteriorVehicleData":
            guard let data = arguments["moduleData"]?.objectValue, let type = data["moduleType"]?.stringValue,
                  let key = InteriorModules.dataKeys[type], let changes = data[key]?.objectValue else {
                throw Failure(description: "setInteriorVehicleData needs moduleData with a moduleType and its data")
            }
            try await interiorChanged(type, data["moduleId"]?.stringValue ?? defaultModule(type), changes)
        case "answerConsent":
            guard let allowed = arguments["allowed"]?.boolValue else { throw Failure(description: "answerConsent needs a boolean \"allowed\"") }
            // The request that makes core ask may still be on its way.
            let deadline = ContinuousClock.now + .seconds(5)
            while interior.consent == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            guard let consent = interior.consent else { throw Failure(description: "answerConsent: core asked the driver nothing") }
            interior.consent = nil
            try await answer(consent.id, "RC.GetInteriorVehicleDataConsent", .success,
                             ["allowed": .array(Array(repeating: .bool(allowed), count: consent.count))])
        case "rcSettings":
            var settings: JSONObject = [:]
            for key in ["allowed", "accessMode"] { settings[key] = arguments[key] }
            guard !settings.isEmpty else { throw Failure(description: "rcSettings needs \"allowed\" or \"accessMode\"") }
            try await notify("RC.OnRemoteControlSettings", settings)
        default:
            return false
        }
        return true
    }

    private func interiorChanged(_ type: String, _ moduleID: String, _ changes: JSONObject) async throws {
        interior.change(type, moduleID, changes)
        try await notify("RC.OnInteriorVehicleData", ["moduleData": moduleData(type, moduleID, changes)])
    }

    private func moduleData(_ type: String, _ moduleID: String, _ values: JSONObject) -> JSONValue {
        var data: JSONObject = ["moduleType": .string(type), "moduleId": .string(moduleID)]
        data[InteriorModules.dataKeys[type] ?? type] = .object(values)
        return .object(data)
    }

    /// The first module of the type in the capabilities this HMI gave core (core's default module).
    private func defaultModule(_ type: String) -> String {
        let capabilities = SDLHMIStartup.answers["RC.GetCapabilities"]?["remoteControlCapability"]
        let key = ["CLIMATE": "climateControlCapabilities", "AUDIO": "audioControlCapabilities", "RADIO": "radioControlCapabilities",
                   "SEAT": "seatControlCapabilities", "LIGHT": "lightControlCapabilities", "HMI_SETTINGS": "hmiSettingsControlCapabilities"][type] ?? ""
        let entry = capabilities?[key]
        return (entry?.arrayValue?.first ?? entry)?["moduleInfo"]?["moduleId"]?.stringValue ?? ""
    }
}
