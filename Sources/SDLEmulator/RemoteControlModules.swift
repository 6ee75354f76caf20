public import SmartDeviceLink

/// One remote-control module: its ModuleType and the moduleId the HMI gave it.
struct RCModule: Hashable, Comparable, Sendable {
    var type: String
    var id: String

    static func < (a: RCModule, b: RCModule) -> Bool { (a.type, a.id) < (b.type, b.id) }

    var json: JSONValue { ["moduleType": .string(type), "moduleId": .string(id)] }
    /// How core names it in texts: `[CLIMATE:d38e…]`.
    var label: String { "\(type):\(id)" }
}

/// The car's remote control as the head unit's settings and the HMI describe it: whether the
/// driver allows it, the access mode, and the modules (RC.GetCapabilities).
public struct RemoteControlSettings: Sendable {
    /// The driver allows remote control (RC.OnRemoteControlSettings `allowed`; core starts with true).
    public var allowed = true
    /// AUTO_ALLOW (core's start), AUTO_DENY or ASK_DRIVER: what happens when an app asks for a
    /// module another app holds.
    public var accessMode = "AUTO_ALLOW"
    /// The RemoteControlCapabilities; nil: the HMI has no RC interface ("RC is not supported
    /// by system"). Default: sdl_hmi 5.8.0's, as core 8.2 reports it.
    public var capability: JSONObject? = Capabilities.coreSystemCapability("REMOTE_CONTROL", "remoteControlCapability")

    /// RC on, AUTO_ALLOW, sdl_hmi's modules.
    public init() {}

    static let accessModes = ["AUTO_ALLOW", "AUTO_DENY", "ASK_DRIVER"]

    /// Reads `"remoteControl": {...}` of an emulator configuration.
    static func read(_ value: JSONValue, over current: RemoteControlSettings, reader: ConfigReader) throws(EmulatorConfigurationError) -> RemoteControlSettings {
        let object = try reader.object(value, path: "$.remoteControl")
        try reader.checkKeys(object, allowed: ["allowed", "accessMode", "capability"], path: "$.remoteControl")
        var settings = current
        if let v = object["allowed"] {
            guard let allowed = v.boolValue else {
                throw EmulatorConfigurationError(path: "$.remoteControl.allowed", reason: "expected a boolean, found \(v.kindName)")
            }
            settings.allowed = allowed
        }
        if let v = object["accessMode"] {
            let mode = try reader.string(v, path: "$.remoteControl.accessMode")
            guard accessModes.contains(mode) else {
                throw EmulatorConfigurationError(path: "$.remoteControl.accessMode", reason: "is one of \(accessModes.joined(separator: ", ")), not \(mode)")
            }
            settings.accessMode = mode
        }
        if let v = object["capability"] { settings.capability = v == .null ? nil : try reader.object(v, path: "$.remoteControl.capability") }
        return settings
    }
}

/// What core reads from the RC capabilities (rc_capabilities_manager_impl.cc) and what the
/// HMI does with a module's data.
enum RCModel {
    /// The module types in the order core lists them (OnRCStatus' freeModules), each with the
    /// key of its capabilities and of its data.
    static let types: [(type: String, capability: String, data: String)] = [
        ("CLIMATE", "climateControlCapabilities", "climateControlData"),
        ("RADIO", "radioControlCapabilities", "radioControlData"),
        ("SEAT", "seatControlCapabilities", "seatControlData"),
        ("AUDIO", "audioControlCapabilities", "audioControlData"),
        ("LIGHT", "lightControlCapabilities", "lightControlData"),
        ("HMI_SETTINGS", "hmiSettingsControlCapabilities", "hmiSettingsControlData"),
    ]

    static func dataKey(_ type: String) -> String? { types.first { $0.type == type }?.data }

    /// Every module of the capabilities, in core's order, with whether several apps may use it.
    static func modules(_ capability: JSONObject) -> [(module: RCModule, multipleAccess: Bool)] {
        types.flatMap { entry -> [(module: RCModule, multipleAccess: Bool)] in
            let value = capability[entry.capability]
            let items = value?.arrayValue ?? value.map { [$0] } ?? []
            return items.compactMap { item in
                guard let info = item["moduleInfo"], let id = info["moduleId"]?.stringValue else { return nil }
                return (RCModule(type: entry.type, id: id), info["allowMultipleAccess"]?.boolValue ?? true)
            }
        }
    }

    /// The buttons core lets a ButtonPress of each module type name (RCHelpers).
    static let buttons: [String: [String]] = [
        "CLIMATE": ["AC_MAX", "AC", "RECIRCULATE", "FAN_UP", "FAN_DOWN", "TEMP_UP", "TEMP_DOWN", "DEFROST_MAX", "DEFROST",
                    "DEFROST_REAR", "UPPER_VENT", "LOWER_VENT"],
        "RADIO": ["VOLUME_UP", "VOLUME_DOWN", "EJECT", "SOURCE", "SHUFFLE", "REPEAT"],
    ]

    /// Parameters an app may read but not set (GetModuleReadOnlyParams).
    static let readOnly: [String: Set<String>] = [
        "CLIMATE": ["currentTemperature"],
        "RADIO": ["rdsData", "availableHDs", "availableHdChannels", "signalStrength", "signalChangeThreshold", "state", "sisData"],
        "LIGHT": ["lightStatus"],
    ]

    /// Each module's data at start: what sdl_hmi reports for its module of that type. sdl_hmi
    /// leaves out the seat's mandatory `id`; the emulator says DRIVER.
    static func initialData(_ type: String) -> JSONObject {
        guard let key = dataKey(type), var data = Capabilities.coreInteriorVehicleData[type]?[key]?.objectValue else { return [:] }
        if type == "SEAT", data["id"] == nil { data["id"] = "DRIVER" }
        return data
    }

    /// What sdl_hmi's RC controller does on a ButtonPress: the changed parameters of the
    /// climate (or audio, for the radio's volume and source) module; empty: nothing changed.
    static func press(_ button: String, climate: JSONObject, audio: JSONObject) -> (type: String, changes: JSONObject) {
        func toggled(_ key: String) -> JSONObject { [key: .bool(!(climate[key]?.boolValue ?? false))] }
        func stepped(_ key: String, by step: Int64, in range: ClosedRange<Int64>) -> JSONObject {
            let next = (climate[key]?.intValue ?? 0) + step
            return range.contains(next) ? [key: .int(next)] : [:]
        }
        func temperature(by step: Double) -> JSONObject {
            guard var desired = climate["desiredTemperature"]?.objectValue, let value = desired["value"]?.doubleValue else { return [:] }
            desired["value"] = .double(value + step)
            return ["desiredTemperature": .object(desired)]
        }
        // The defrost zone and the ventilation mode are two switches each (front/rear, upper/lower).
        let zone = climate["defrostZone"]?.stringValue ?? "NONE"
        var front = zone == "FRONT" || zone == "ALL", rear = zone == "REAR" || zone == "ALL"
        func defrost() -> JSONObject { ["defrostZone": .string(front && rear ? "ALL" : front ? "FRONT" : rear ? "REAR" : "NONE")] }
        let mode = climate["ventilationMode"]?.stringValue ?? "NONE"
        var upper = mode == "UPPER" || mode == "BOTH", lower = mode == "LOWER" || mode == "BOTH"
        func vents() -> JSONObject { ["ventilationMode": .string(upper && lower ? "BOTH" : upper ? "UPPER" : lower ? "LOWER" : "NONE")] }
        switch button {
        case "AC_MAX": return ("CLIMATE", toggled("acMaxEnable"))
        case "AC": return ("CLIMATE", toggled("acEnable"))
        case "RECIRCULATE": return ("CLIMATE", toggled("circulateAirEnable"))
        case "FAN_UP": return ("CLIMATE", stepped("fanSpeed", by: 1, in: 0...100))
        case "FAN_DOWN": return ("CLIMATE", stepped("fanSpeed", by: -1, in: 0...100))
        case "TEMP_UP": return ("CLIMATE", temperature(by: 1))
        case "TEMP_DOWN": return ("CLIMATE", temperature(by: -1))
        case "DEFROST": front.toggle(); return ("CLIMATE", defrost())
        case "DEFROST_REAR": rear.toggle(); return ("CLIMATE", defrost())
        case "DEFROST_MAX":
            if front == rear { front.toggle(); rear.toggle() } else { front = true; rear = true }
            return ("CLIMATE", defrost())
        case "UPPER_VENT": upper.toggle(); return ("CLIMATE", vents())
        case "LOWER_VENT": lower.toggle(); return ("CLIMATE", vents())
        case "VOLUME_UP", "VOLUME_DOWN":
            let next = (audio["volume"]?.intValue ?? 0) + (button == "VOLUME_UP" ? 1 : -1)
            return ("AUDIO", (0...100).contains(next) ? ["volume": .int(next)] : [:])
        case "SOURCE":
            let sources = ["RADIO_TUNER", "CD", "USB", "BLUETOOTH_STEREO_BTST"]
            let current = sources.firstIndex(of: audio["source"]?.stringValue ?? "") ?? -1
            return ("AUDIO", ["source": .string(sources[(current + 1) % sources.count])])
        default: return ("AUDIO", [:])  // EJECT, SHUFFLE, REPEAT: answered, nothing changes
        }
    }
}
