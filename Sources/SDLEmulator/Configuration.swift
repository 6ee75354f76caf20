public import SmartDeviceLink
import Foundation

/// Why an emulator configuration was refused, with the JSON path of the problem.
public struct EmulatorConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the configuration, e.g. `$.vehicleData.timeline[2].atMs`.
    public var path: String
    /// What is wrong there, and what would be right.
    public var reason: String

    /// An error at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "emulator configuration \(path): \(reason)" }
}

/// Where the emulated microphone gets its sound for PerformAudioPassThru.
public enum MicrophoneSource: Sendable, Hashable {
    /// A sine tone of this frequency (Hz).
    case tone(frequency: Double)
    /// A PCM WAV file, converted to the requested rate and sample size (mono).
    case wavFile(path: String)
}

/// One point of the simulated vehicle: at `atMs` after the first registration, these
/// values become current and subscribed apps get OnVehicleData.
public struct VehicleDataPoint: Sendable, Hashable {
    /// Milliseconds after the first registration (scaled by ``EmulatorConfiguration/timeScale``).
    public var atMs: Int
    /// The values that become current, by vehicle data name.
    public var values: JSONObject
    /// A point of the timeline.
    public init(atMs: Int, values: JSONObject) {
        self.atMs = atMs
        self.values = values
    }
}

/// Everything that makes one emulated head unit: capabilities, policy table, language,
/// storage, vehicle, microphone, protocol settings and the pace of time.
public struct EmulatorConfiguration: Sendable {
    /// Multiplies every emulated duration (alert duration, interaction timeouts, audio
    /// pass-thru pacing, vehicle timeline). 1 is real time; 0.01 runs 100 times faster.
    public var timeScale: Double
    /// The head unit's VR/TTS language and display language.
    public var language: String
    /// The display language (the HMI's `hmiDisplayLanguage`).
    public var hmiDisplayLanguage: String
    /// The RPC spec version the head unit implements (sdl_core 8.2: 8.0.0).
    public var rpcSpecVersion: ProtocolVersion
    /// Capabilities sent in the RegisterAppInterface response, by parameter name
    /// (`displayCapabilities`, `buttonCapabilities`, ...).
    public var capabilities: JSONObject
    /// Which RPCs each app may use in which HMI level.
    public var policy: PolicyTable
    /// Bytes each app may store (core: AppDirectoryQuota, 100 MiB).
    public var storageQuota: Int
    /// Where app files go, one folder per app id; nil: a fresh folder under the temporary directory.
    public var storageDirectory: String?
    /// Current vehicle data values, by parameter name.
    public var vehicleData: JSONObject
    /// Items that exist but answer VEHICLE_DATA_NOT_AVAILABLE.
    public var unavailableVehicleData: Set<String>
    /// Values that change over time, starting when the first app registers.
    public var vehicleTimeline: [VehicleDataPoint]
    /// What the microphone records for PerformAudioPassThru.
    public var microphone: MicrophoneSource
    /// The OnAudioPassThru period in (unscaled) milliseconds.
    public var audioPassThruChunkMs: Int
    /// How long a Speak "talks", in unscaled milliseconds.
    public var speakDurationMs: Int
    /// Secondary transports and which links may carry audio and video, as core's
    /// [MultipleTransports] and [ServicesMap] set them (off by default, as in core).
    public var multipleTransports = MultipleTransports()
    /// Heartbeat supervision once the app sent one (core: 7000 ms); nil disables it.
    public var heartbeatTimeoutMs: Int?
    /// Protocol settings of every connection (maximum version 5.4.0 as core, payload size...).
    public var protocolConfiguration: ProtocolConfiguration
    /// The security manager (sdl_core built with ENABLE_SECURITY); nil: none, as the default core.
    public var security: EmulatorSecurity?
    /// core's MalformedFrequencyCount/Time: more than `count` malformed runs within `ms` close the connection.
    public var malformedLimit: (count: Int, ms: Int)
    /// core's FrequencyCount/Time: more than `count` RPC messages within `ms` in one session unregister the app.
    public var floodLimit: (count: Int, ms: Int)
    /// Whether the hash id of an unexpectedly disconnected app restores its data (core: resumption).
    public var resumptionEnabled: Bool
    /// The vehicle that RegisterAppInterface's response and the StartServiceACK name: make, model, model year, trim.
    public var vehicleType: JSONObject
    /// The head unit's software version (StartServiceACK, protocol 5.4).
    public var systemSoftwareVersion: String
    /// What core takes from the HMI's BasicCommunication.GetSystemInfo for the
    /// StartServiceACK's `systemHardwareVersion` (protocol 5.4).
    public var systemHardwareVersion = "sdl-emulator-hw 1.0"
    /// core 8.2 keeps an app's soft-button subscriptions by function, not by request: any
    /// Alert, ScrollableMessage or AlertManeuver response (a REJECTED second alert's too) ends
    /// the soft buttons of every request of that function, so a later press of a button still
    /// on screen reaches no app (UnsubscribeAppFromSoftButtons, application_manager_impl.cc).
    /// That looks like a bug in core; true (the default) behaves as core does, false keeps each
    /// request's buttons until its own response.
    public var softButtonsPerFunction = true
    /// core's [FILESYSTEM RESTRICTIONS] (smartDeviceLink.ini): in HMI level NONE an app may
    /// add this many files, delete this many and list this many times; each count runs over
    /// the whole registration, in every level. Beyond it the request is REJECTED.
    public var inNoneLimits = FileRequestCounts(putFile: 5, deleteFile: 5, listFiles: 5)
    /// The languages the HMI supports for UI, VR and TTS (its GetSupportedLanguages): a
    /// ChangeRegistration to another is UNSUPPORTED_RESOURCE. sdl_hmi's 37 by default.
    public var supportedLanguages: [String] = HMIAnswers.supportedLanguages
    /// Menu layouts the main window offers (DISPLAYS capability, menuLayoutsAvailable); nil:
    /// the window does not say, as sdl_hmi's does not (an app then may use any).
    public var menuLayoutsAvailable: [String]? = nil
    /// GetSystemCapability PHONE_CALL and NAVIGATION: core 8.2's with sdl_hmi as its HMI,
    /// whatever hmiCapabilities' flags say; nil: the head unit has none (DATA_NOT_AVAILABLE, as core).
    public var phoneCapability: JSONObject? = Capabilities.coreSystemCapability("PHONE_CALL", "phoneCapability")
    /// See ``phoneCapability``.
    public var navigationCapability: JSONObject? = Capabilities.coreSystemCapability("NAVIGATION", "navigationCapability")
    /// The lock screen's icon URL and dismissal, as core's preloaded policy table has them.
    public var lockScreen = LockScreenPolicy()
    /// Remote control: allowed, the access mode and the modules (sdl_hmi's by default).
    public var remoteControl = RemoteControlSettings()
    /// Where policy table updates go (the policy server's URL).
    public var policyUpdate = PolicyUpdateSettings()

    /// The main display's templates (displayCapabilities.templatesAvailable).
    public var templatesAvailable: [String] {
        capabilities["displayCapabilities"]?["templatesAvailable"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
    /// The VideoStreamingCapability the head unit reports (GetSystemCapability VIDEO_STREAMING);
    /// its `supportedFormats` are also the formats the HMI's Navigation.SetVideoConfig accepts:
    /// a StartService(video) asking for another codec or protocol is refused with `rejectedParams`.
    /// The default is core 8.2's with sdl_hmi as its HMI (UI.GetCapabilities' systemCapabilities).
    public var videoStreaming: JSONObject = Capabilities.coreSystemCapability("VIDEO_STREAMING", "videoStreamingCapability") ?? [:]
    /// core's StopStreamingTimeout (smartDeviceLink.ini, 1000 ms): how long a stream of an app
    /// sent to BACKGROUND may run on before the head unit ends it with EndService.
    public var stopStreamingTimeoutMs = 1000
    /// Where received streams are recorded, one file per app and service
    /// (`APPID-video.h264`, `APPID-audio.wav`); nil: a new folder in the temporary directory,
    /// kept after the emulator stops (recordings are results).
    public var recordingDirectory: String?

    /// Defaults of sdl_core 8.2 with the official sdl_hmi 5.8.0 as its HMI, as recorded from them.
    public static var standard: EmulatorConfiguration {
        EmulatorConfiguration(
            timeScale: 1, language: "EN-US", hmiDisplayLanguage: "EN-US", rpcSpecVersion: ProtocolVersion(8, 0, 0),
            capabilities: Capabilities.standard, policy: PolicyTable(), storageQuota: 104_857_600, storageDirectory: nil,
            vehicleData: Capabilities.standardVehicleData, unavailableVehicleData: [], vehicleTimeline: [],
            microphone: .tone(frequency: 440), audioPassThruChunkMs: 1000, speakDurationMs: 1000,
            heartbeatTimeoutMs: 7000,
            protocolConfiguration: .headUnit, malformedLimit: (10, 1000), floodLimit: (1000, 1000),
            // The vehicle and software version core gives apps with the official sdl_hmi as its HMI.
            resumptionEnabled: true, vehicleType: Capabilities.coreVehicleType,
            systemSoftwareVersion: Capabilities.coreSystemSoftwareVersion)
    }

    private init(
        timeScale: Double, language: String, hmiDisplayLanguage: String, rpcSpecVersion: ProtocolVersion,
        capabilities: JSONObject, policy: PolicyTable, storageQuota: Int, storageDirectory: String?,
        vehicleData: JSONObject, unavailableVehicleData: Set<String>, vehicleTimeline: [VehicleDataPoint],
        microphone: MicrophoneSource, audioPassThruChunkMs: Int, speakDurationMs: Int, heartbeatTimeoutMs: Int?,
        protocolConfiguration: ProtocolConfiguration, malformedLimit: (count: Int, ms: Int), floodLimit: (count: Int, ms: Int),
        resumptionEnabled: Bool, vehicleType: JSONObject, systemSoftwareVersion: String
    ) {
        self.timeScale = timeScale
        self.language = language
        self.hmiDisplayLanguage = hmiDisplayLanguage
        self.rpcSpecVersion = rpcSpecVersion
        self.capabilities = capabilities
        self.policy = policy
        self.storageQuota = storageQuota
        self.storageDirectory = storageDirectory
        self.vehicleData = vehicleData
        self.unavailableVehicleData = unavailableVehicleData
        self.vehicleTimeline = vehicleTimeline
        self.microphone = microphone
        self.audioPassThruChunkMs = audioPassThruChunkMs
        self.speakDurationMs = speakDurationMs
        self.heartbeatTimeoutMs = heartbeatTimeoutMs
        self.protocolConfiguration = protocolConfiguration
        self.malformedLimit = malformedLimit
        self.floodLimit = floodLimit
        self.resumptionEnabled = resumptionEnabled
        self.vehicleType = vehicleType
        self.systemSoftwareVersion = systemSoftwareVersion
    }

    /// The keys a JSON configuration may have at the top level.
    static let topLevelKeys: [String] = [
        "timeScale", "language", "hmiDisplayLanguage", "supportedLanguages", "capabilities", "policy", "storage", "vehicleData",
        "microphone", "audioPassThruChunkMs", "speakDurationMs", "secondaryTransport", "heartbeatTimeoutMs",
        "protocol", "malformedLimit", "floodLimit", "resumption", "vehicleType", "systemSoftwareVersion", "systemHardwareVersion",
        "softButtonsPerFunction", "videoStreaming", "phoneCapability", "navigationCapability", "stopStreamingTimeoutMs", "recordings", "lockScreen",
        "security", "remoteControl", "policyUpdate",
    ]

    /// Reads a JSON configuration; every key is optional and defaults to ``standard``.
    ///
    /// ```json
    /// {"timeScale": 0.1, "language": "EN-US",
    ///  "capabilities": {"displayCapabilities": {...}},
    ///  "policy": {"default": {"Alert": ["FULL"]}, "apps": {"app-1": {"Show": ["FULL", "NONE"]}}},
    ///  "storage": {"quota": 1048576, "directory": "/tmp/hu", "inNone": {"putFile": 5, "deleteFile": 5, "listFiles": 5}},
    ///  "vehicleData": {"values": {"speed": 0}, "unavailable": ["rpm"],
    ///                  "timeline": [{"atMs": 1000, "values": {"speed": 50}}]},
    ///  "microphone": {"wav": "voice.wav"} | {"toneHz": 440},
    ///  "secondaryTransport": {"forUSB": ["WiFi"], "videoServiceTransports": ["TCP_WIFI", "AOA_USB"], "host": "192.168.1.10"},
    ///  "heartbeatTimeoutMs": 7000, "protocol": {"maximumVersion": "5.4.0", "maximumPayloadSize": 131072},
    ///  "malformedLimit": {"count": 10, "ms": 1000}, "floodLimit": {"count": 1000, "ms": 1000},
    ///  "resumption": true, "vehicleType": {"make": "SDL"}, "systemSoftwareVersion": "1.0",
    ///  "systemHardwareVersion": "1.0"}
    /// ```
    /// Unknown keys are errors that name the path and the closest known key.
    public init(json: JSONObject) throws(EmulatorConfigurationError) {
        var c = EmulatorConfiguration.standard
        let reader = ConfigReader()
        // "$schema" points editors at the schema (sdl-run schema --emulator-config).
        try reader.checkKeys(json, allowed: Self.topLevelKeys + ["$schema"], path: "$")
        if let v = json["timeScale"] {
            c.timeScale = try reader.double(v, path: "$.timeScale")
            guard c.timeScale > 0 else { throw EmulatorConfigurationError(path: "$.timeScale", reason: "must be greater than 0") }
        }
        if let v = json["language"] { c.language = try reader.string(v, path: "$.language") }
        if let v = json["hmiDisplayLanguage"] { c.hmiDisplayLanguage = try reader.string(v, path: "$.hmiDisplayLanguage") }
        if let v = json["supportedLanguages"] { c.supportedLanguages = try reader.strings(v, path: "$.supportedLanguages") }
        if let v = json["capabilities"] {
            let object = try reader.object(v, path: "$.capabilities")
            try reader.checkKeys(object, allowed: Capabilities.keys, path: "$.capabilities")
            c.capabilities.merge(object) { _, new in new }
        }
        if let v = json["policy"] {
            let object = try reader.object(v, path: "$.policy")
            try reader.checkKeys(object, allowed: ["default", "apps", "moduleTypes", "appServices"], path: "$.policy")
            if let d = object["default"] { c.policy.defaultPermissions = try reader.permissions(d, path: "$.policy.default") }
            if let a = object["apps"] {
                for (appID, map) in try reader.object(a, path: "$.policy.apps") {
                    c.policy.apps[appID] = try reader.permissions(map, path: "$.policy.apps.\(appID)")
                }
            }
            if let m = object["moduleTypes"] {
                for (appID, types) in try reader.object(m, path: "$.policy.moduleTypes") {
                    c.policy.moduleTypes[appID] = types == .null ? nil : try reader.strings(types, path: "$.policy.moduleTypes.\(appID)")
                }
            }
            if let s = object["appServices"] {
                for (appID, types) in try reader.object(s, path: "$.policy.appServices") {
                    c.policy.appServices[appID] = try reader.strings(types, path: "$.policy.appServices.\(appID)")
                }
            }
        }
        if let v = json["storage"] {
            let object = try reader.object(v, path: "$.storage")
            try reader.checkKeys(object, allowed: ["quota", "directory", "inNone"], path: "$.storage")
            if let q = object["quota"] { c.storageQuota = try reader.int(q, path: "$.storage.quota") }
            if let limits = object["inNone"] {
                let limits = try reader.object(limits, path: "$.storage.inNone")
                try reader.checkKeys(limits, allowed: ["putFile", "deleteFile", "listFiles"], path: "$.storage.inNone")
                if let v = limits["putFile"] { c.inNoneLimits.putFile = try reader.int(v, path: "$.storage.inNone.putFile") }
                if let v = limits["deleteFile"] { c.inNoneLimits.deleteFile = try reader.int(v, path: "$.storage.inNone.deleteFile") }
                if let v = limits["listFiles"] { c.inNoneLimits.listFiles = try reader.int(v, path: "$.storage.inNone.listFiles") }
            }
            if let d = object["directory"] { c.storageDirectory = try reader.string(d, path: "$.storage.directory") }
        }
        if let v = json["vehicleData"] {
            let object = try reader.object(v, path: "$.vehicleData")
            try reader.checkKeys(object, allowed: ["values", "unavailable", "timeline"], path: "$.vehicleData")
            if let values = object["values"] {
                let map = try reader.object(values, path: "$.vehicleData.values")
                try reader.checkKeys(map, allowed: Array(VehicleDataNames.dataTypes.keys), path: "$.vehicleData.values")
                c.vehicleData.merge(map) { _, new in new }
            }
            if let list = object["unavailable"] {
                let names = try reader.strings(list, path: "$.vehicleData.unavailable")
                for (i, name) in names.enumerated() where VehicleDataNames.dataTypes[name] == nil {
                    throw reader.unknown(name, allowed: Array(VehicleDataNames.dataTypes.keys), path: "$.vehicleData.unavailable[\(i)]")
                }
                c.unavailableVehicleData = Set(names)
            }
            if let timeline = object["timeline"] {
                guard case .array(let points) = timeline else {
                    throw EmulatorConfigurationError(path: "$.vehicleData.timeline", reason: "expected an array, found \(timeline.kindName)")
                }
                c.vehicleTimeline = try points.enumerated().map { (i, point) throws(EmulatorConfigurationError) in
                    let path = "$.vehicleData.timeline[\(i)]"
                    let object = try reader.object(point, path: path)
                    try reader.checkKeys(object, allowed: ["atMs", "values"], path: path)
                    guard let at = object["atMs"], let values = object["values"] else {
                        throw EmulatorConfigurationError(path: path, reason: "needs both atMs and values")
                    }
                    let map = try reader.object(values, path: path + ".values")
                    try reader.checkKeys(map, allowed: Array(VehicleDataNames.dataTypes.keys), path: path + ".values")
                    return VehicleDataPoint(atMs: try reader.int(at, path: path + ".atMs"), values: map)
                }.sorted { $0.atMs < $1.atMs }
            }
        }
        if let v = json["microphone"] {
            let object = try reader.object(v, path: "$.microphone")
            try reader.checkKeys(object, allowed: ["wav", "toneHz"], path: "$.microphone")
            if let wav = object["wav"] {
                c.microphone = .wavFile(path: try reader.string(wav, path: "$.microphone.wav"))
            } else if let tone = object["toneHz"] {
                c.microphone = .tone(frequency: try reader.double(tone, path: "$.microphone.toneHz"))
            }
        }
        if let v = json["audioPassThruChunkMs"] { c.audioPassThruChunkMs = max(1, try reader.int(v, path: "$.audioPassThruChunkMs")) }
        if let v = json["speakDurationMs"] { c.speakDurationMs = max(0, try reader.int(v, path: "$.speakDurationMs")) }
        if let v = json["secondaryTransport"] {
            c.multipleTransports = try MultipleTransports(json: try reader.object(v, path: "$.secondaryTransport"), reader: reader)
        }
        if let v = json["heartbeatTimeoutMs"] {
            c.heartbeatTimeoutMs = v.isNull ? nil : try reader.int(v, path: "$.heartbeatTimeoutMs")
            if c.heartbeatTimeoutMs == 0 { c.heartbeatTimeoutMs = nil }
        }
        if let v = json["protocol"] {
            let object = try reader.object(v, path: "$.protocol")
            try reader.checkKeys(object, allowed: ["maximumVersion", "maximumPayloadSize"], path: "$.protocol")
            if let m = object["maximumVersion"] {
                let text = try reader.string(m, path: "$.protocol.maximumVersion")
                guard let version = ProtocolVersion(text), (1...5).contains(version.major) else {
                    throw EmulatorConfigurationError(path: "$.protocol.maximumVersion", reason: "\"\(text)\" is not a version 1.0.0…5.4.0")
                }
                c.protocolConfiguration.maximumVersion = version
            }
            if let p = object["maximumPayloadSize"] {
                c.protocolConfiguration.maximumPayloadSize = max(1488, try reader.int(p, path: "$.protocol.maximumPayloadSize"))
            }
        }
        for key in ["malformedLimit", "floodLimit"] {
            guard let v = json[key] else { continue }
            let object = try reader.object(v, path: "$.\(key)")
            try reader.checkKeys(object, allowed: ["count", "ms"], path: "$.\(key)")
            let current = key == "malformedLimit" ? c.malformedLimit : c.floodLimit
            let count = try object["count"].map { v throws(EmulatorConfigurationError) in try reader.int(v, path: "$.\(key).count") } ?? current.count
            let ms = try object["ms"].map { v throws(EmulatorConfigurationError) in try reader.int(v, path: "$.\(key).ms") } ?? current.ms
            if key == "malformedLimit" { c.malformedLimit = (count, ms) } else { c.floodLimit = (count, ms) }
        }
        if let v = json["softButtonsPerFunction"] {
            guard let flag = v.boolValue else {
                throw EmulatorConfigurationError(path: "$.softButtonsPerFunction", reason: "expected a boolean, found \(v.kindName)")
            }
            c.softButtonsPerFunction = flag
        }
        if let v = json["videoStreaming"] { c.videoStreaming = try reader.object(v, path: "$.videoStreaming") }
        if let v = json["phoneCapability"] { c.phoneCapability = v == .null ? nil : try reader.object(v, path: "$.phoneCapability") }
        if let v = json["navigationCapability"] { c.navigationCapability = v == .null ? nil : try reader.object(v, path: "$.navigationCapability") }
        if let v = json["lockScreen"] { c.lockScreen = try LockScreenPolicy.read(v, over: c.lockScreen, reader: reader) }
        if let v = json["remoteControl"] { c.remoteControl = try RemoteControlSettings.read(v, over: c.remoteControl, reader: reader) }
        if let v = json["policyUpdate"] { c.policyUpdate = try PolicyUpdateSettings.read(v, over: c.policyUpdate, reader: reader) }
        if let v = json["security"] { c.security = try EmulatorSecurity.read(v, reader: reader) }
        if let v = json["stopStreamingTimeoutMs"] { c.stopStreamingTimeoutMs = max(0, try reader.int(v, path: "$.stopStreamingTimeoutMs")) }
        if let v = json["recordings"] { c.recordingDirectory = try reader.string(v, path: "$.recordings") }
        if let v = json["resumption"] {
            guard let flag = v.boolValue else { throw EmulatorConfigurationError(path: "$.resumption", reason: "expected a boolean, found \(v.kindName)") }
            c.resumptionEnabled = flag
        }
        if let v = json["vehicleType"] {
            let object = try reader.object(v, path: "$.vehicleType")
            try reader.checkKeys(object, allowed: ["make", "model", "modelYear", "trim"], path: "$.vehicleType")
            c.vehicleType = object
        }
        if let v = json["systemSoftwareVersion"] { c.systemSoftwareVersion = try reader.string(v, path: "$.systemSoftwareVersion") }
        if let v = json["systemHardwareVersion"] { c.systemHardwareVersion = try reader.string(v, path: "$.systemHardwareVersion") }
        self = c
    }

    /// Reads a JSON configuration file.
    public static func load(path: String) throws(EmulatorConfigurationError) -> EmulatorConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmulatorConfigurationError(path: path, reason: "cannot read the file; check the path and its permissions")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse([UInt8](data))
        } catch {
            throw EmulatorConfigurationError(path: path, reason: error.description)
        }
        guard case .object(let object) = value else {
            throw EmulatorConfigurationError(path: "$", reason: "expected an object, found \(value.kindName)")
        }
        return try EmulatorConfiguration(json: object)
    }

    /// A duration of `ms` emulated milliseconds, scaled by ``timeScale``.
    func scaled(_ ms: Int) -> Duration {
        .microseconds(Int64((Double(ms) * 1000 * timeScale).rounded()))
    }
}

/// Typed getters that report the path of a wrong value.
struct ConfigReader {
    func checkKeys(_ object: JSONObject, allowed: [String], path: String) throws(EmulatorConfigurationError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw unknown(key, allowed: allowed, path: "\(path).\(key)")
        }
    }

    func unknown(_ key: String, allowed: [String], path: String) -> EmulatorConfigurationError {
        let hint = closest(to: key, in: allowed).map { "; did you mean \"\($0)\"?" } ?? "; known: \(allowed.sorted().joined(separator: ", "))"
        return EmulatorConfigurationError(path: path, reason: "unknown key \"\(key)\"\(hint)")
    }

    func object(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> JSONObject {
        guard case .object(let o) = v else { throw EmulatorConfigurationError(path: path, reason: "expected an object, found \(v.kindName)") }
        return o
    }

    func string(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> String {
        guard case .string(let s) = v else { throw EmulatorConfigurationError(path: path, reason: "expected a string, found \(v.kindName)") }
        return s
    }

    func bool(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> Bool {
        guard let b = v.boolValue else { throw EmulatorConfigurationError(path: path, reason: "expected a boolean, found \(v.kindName)") }
        return b
    }

    func int(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> Int {
        guard let i = v.intValue else { throw EmulatorConfigurationError(path: path, reason: "expected an integer, found \(v.kindName)") }
        return Int(i)
    }

    func double(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> Double {
        guard let d = v.doubleValue else { throw EmulatorConfigurationError(path: path, reason: "expected a number, found \(v.kindName)") }
        return d
    }

    func strings(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> [String] {
        guard case .array(let items) = v else { throw EmulatorConfigurationError(path: path, reason: "expected an array of strings, found \(v.kindName)") }
        var out: [String] = []
        for (i, item) in items.enumerated() { out.append(try string(item, path: "\(path)[\(i)]")) }
        return out
    }

    func permissions(_ v: JSONValue, path: String) throws(EmulatorConfigurationError) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        let levels = ["FULL", "LIMITED", "BACKGROUND", "NONE"]
        for (rpc, list) in try object(v, path: path) {
            guard RPCRegistry.functionID(forName: rpc) != nil else { throw unknown(rpc, allowed: Array(Set(RPCRegistry.functionNamesByID.values)), path: "\(path).\(rpc)") }
            let names = try strings(list, path: "\(path).\(rpc)")
            for (i, level) in names.enumerated() where !levels.contains(level) {
                throw unknown(level, allowed: levels, path: "\(path).\(rpc)[\(i)]")
            }
            out[rpc] = Set(names)
        }
        return out
    }
}

/// Counts of the file requests core limits in HMI level NONE.
public struct FileRequestCounts: Sendable, Hashable {
    /// PutFile requests.
    public var putFile: Int
    /// DeleteFile requests.
    public var deleteFile: Int
    /// ListFiles requests.
    public var listFiles: Int
    /// Counts; zero where not given.
    public init(putFile: Int = 0, deleteFile: Int = 0, listFiles: Int = 0) {
        self.putFile = putFile
        self.deleteFile = deleteFile
        self.listFiles = listFiles
    }
}
