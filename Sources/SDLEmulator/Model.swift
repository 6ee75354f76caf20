public import SmartDeviceLink

/// Why a driver action or emulator call could not be done.
public enum EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No app is registered to act on.
    case noAppRegistered
    /// No registered app has this appID.
    case unknownApp(String)
    /// The app has no command with this cmdID.
    case unknownCommand(Int)
    /// No PerformInteraction is waiting for the driver.
    case noPendingInteraction
    /// The open PerformInteraction offers no choice with this id.
    case unknownChoice(Int)
    /// No soft button with this id is on the screen.
    case noAlertOrSoftButton(Int)
    /// No PerformAudioPassThru is running.
    case noAudioPassThru
    /// The app did not subscribe to this button.
    case notSubscribed(button: String)
    /// Not a vehicle data item of the spec.
    case unknownVehicleData(String)
    /// The emulator could not listen where it was asked to.
    case listenFailed(String)
    /// The action or its parameters are wrong; the text says how.
    case invalidAction(String)
    /// No keyboard is shown.
    case noKeyboard
    /// The app made no window with this id (CreateWindow).
    case unknownWindow(Int)

    public var description: String {
        switch self {
        case .noAppRegistered: return "no app registered"
        case .unknownApp(let id): return "no registered app with appID \"\(id)\""
        case .unknownCommand(let id): return "the app has no command with cmdID \(id)"
        case .noPendingInteraction: return "no pending PerformInteraction"
        case .unknownChoice(let id): return "the pending PerformInteraction offers no choiceID \(id)"
        case .noAlertOrSoftButton(let id): return "no soft button \(id) is shown (Alert, Show, ScrollableMessage)"
        case .noAudioPassThru: return "no PerformAudioPassThru is running"
        case .notSubscribed(let button): return "the app is not subscribed to button \(button)"
        case .unknownVehicleData(let name):
            let hint = closest(to: name, in: VehicleDataNames.dataTypes.keys).map { "; did you mean \"\($0)\"?" } ?? ""
            return "unknown vehicle data item \"\(name)\"\(hint)"
        case .listenFailed(let why): return "cannot listen: \(why)"
        case .invalidAction(let why): return why
        case .noKeyboard: return "no keyboard is shown (a PerformInteraction with a KEYBOARD or search layout)"
        case .unknownWindow(let id): return "the app has no window \(id): it makes widgets with CreateWindow"
        }
    }
}

/// Something the emulator did or saw, for logs and for tests to await.
public enum EmulatorEvent: Sendable, Hashable, CustomStringConvertible {
    /// A link was accepted (its description: "TCP 127.0.0.1:53012").
    case connectionOpened(connection: Int, description: String)
    /// A link closed, and why.
    case connectionClosed(connection: Int, reason: String)
    /// An app's RPC session started on a link, at this protocol version.
    case sessionStarted(connection: Int, sessionID: UInt8, protocolVersion: String)
    /// RegisterAppInterface answered (SUCCESS, or why not).
    case appRegistered(appID: String, appName: String, sessionID: UInt8, resultCode: String)
    /// An app left: UnregisterAppInterface, a dropped link, or the head unit's doing.
    case appUnregistered(appID: String, reason: String)
    /// A request arrived (appID nil before registration).
    case rpcReceived(appID: String?, name: String, correlationID: Int32)
    /// A request was answered with this result code.
    case rpcAnswered(appID: String?, name: String, correlationID: Int32, resultCode: String)
    /// A notification went to an app.
    case notificationSent(appID: String, name: String, parameters: JSONObject)
    /// Bytes that are not SDL arrived on a link.
    case malformed(connection: Int, reason: String)
    /// A phone was sent the AOA switch; its accessory arrival follows.
    case usbSwitched(device: String)
    /// A USB device could not be switched or served.
    case usbDeviceFailed(device: String, reason: String)
    /// A Bluetooth device could not be found, asked for the SDL service, or connected.
    case bluetoothDeviceFailed(device: String, reason: String)
    /// A connection was registered as the secondary transport of a session (protocol spec §4.6).
    case secondaryRegistered(connection: Int, sessionID: UInt8)
    /// TransportEventUpdate sent: the TCP endpoint offered to a session, "" when withdrawn.
    case secondaryAnnounced(sessionID: UInt8, address: String)
    /// Audio or video started (or ended) on a connection.
    case streamStarted(connection: Int, sessionID: UInt8, service: String)
    /// See ``streamStarted(connection:sessionID:service:)``.
    case streamEnded(connection: Int, sessionID: UInt8, service: String, reason: String)
    /// A service was started protected: its frames are TLS records from now on.
    case serviceProtected(connection: Int, sessionID: UInt8, service: String)
    /// A session's handshake or a protected frame failed (this side's TLS, or the app's error).
    case securityFailed(connection: Int, sessionID: UInt8, reason: String)
    /// What sdl_core would have sent its HMI for an app's request (see ``HMIView``).
    case hmiMessage(appID: String, method: String, parameters: JSONObject)
    /// A policy table update came back: applied, or refused as core refuses a table it cannot read.
    case policyUpdate(applied: Bool)

    public var description: String {
        switch self {
        case .connectionOpened(let c, let d): return "connection \(c) opened (\(d))"
        case .connectionClosed(let c, let r): return "connection \(c) closed: \(r)"
        case .sessionStarted(let c, let s, let v): return "connection \(c): session \(s) started, protocol \(v)"
        case .appRegistered(let id, let name, let s, let code): return "app \(id) \"\(name)\" registered in session \(s): \(code)"
        case .appUnregistered(let id, let reason): return "app \(id) unregistered: \(reason)"
        case .rpcReceived(let id, let name, let corr): return "\(id ?? "-") → \(name) #\(corr)"
        case .rpcAnswered(let id, let name, let corr, let code): return "\(id ?? "-") ← \(name) #\(corr) \(code)"
        case .notificationSent(let id, let name, _): return "\(id) ← \(name)"
        case .malformed(let c, let r): return "connection \(c): malformed data: \(r)"
        case .usbSwitched(let d): return "\(d) switched to accessory mode"
        case .usbDeviceFailed(let d, let r): return "USB \(d): \(r)"
        case .bluetoothDeviceFailed(let d, let r): return "Bluetooth \(d): \(r)"
        case .secondaryRegistered(let c, let s): return "connection \(c): secondary transport of session \(s)"
        case .secondaryAnnounced(let s, let a): return "session \(s): TransportEventUpdate " + (a.isEmpty ? "(TCP withdrawn)" : a)
        case .streamStarted(let c, let s, let service): return "connection \(c): session \(s) started \(service)"
        case .streamEnded(let c, let s, let service, let r): return "connection \(c): session \(s) ended \(service): \(r)"
        case .serviceProtected(let c, let s, let service): return "connection \(c): session \(s) protected \(service)"
        case .securityFailed(let c, let s, let r): return "connection \(c): session \(s) protection failed: \(r)"
        case .hmiMessage(let id, let method, _): return "HMI ← \(method) for \(id)"
        case .policyUpdate(let applied): return applied ? "policy table update applied" : "policy table update refused: not a policy table core reads"
        }
    }

    /// The event as a JSON object, for logs and the control channel.
    public var json: JSONValue {
        switch self {
        case .connectionOpened(let c, let d): return ["event": "connectionOpened", "connection": .int(Int64(c)), "description": .string(d)]
        case .connectionClosed(let c, let r): return ["event": "connectionClosed", "connection": .int(Int64(c)), "reason": .string(r)]
        case .sessionStarted(let c, let s, let v):
            return ["event": "sessionStarted", "connection": .int(Int64(c)), "sessionID": .int(Int64(s)), "protocolVersion": .string(v)]
        case .appRegistered(let id, let name, let s, let code):
            return ["event": "appRegistered", "appID": .string(id), "appName": .string(name), "sessionID": .int(Int64(s)), "resultCode": .string(code)]
        case .appUnregistered(let id, let reason): return ["event": "appUnregistered", "appID": .string(id), "reason": .string(reason)]
        case .rpcReceived(let id, let name, let corr):
            return ["event": "rpcReceived", "appID": id.map(JSONValue.string) ?? .null, "name": .string(name), "correlationID": .int(Int64(corr))]
        case .rpcAnswered(let id, let name, let corr, let code):
            return ["event": "rpcAnswered", "appID": id.map(JSONValue.string) ?? .null, "name": .string(name),
                    "correlationID": .int(Int64(corr)), "resultCode": .string(code)]
        case .notificationSent(let id, let name, let parameters):
            return ["event": "notificationSent", "appID": .string(id), "name": .string(name), "parameters": .object(parameters)]
        case .malformed(let c, let r): return ["event": "malformed", "connection": .int(Int64(c)), "reason": .string(r)]
        case .usbSwitched(let d): return ["event": "usbSwitched", "device": .string(d)]
        case .usbDeviceFailed(let d, let r): return ["event": "usbDeviceFailed", "device": .string(d), "reason": .string(r)]
        case .bluetoothDeviceFailed(let d, let r): return ["event": "bluetoothDeviceFailed", "device": .string(d), "reason": .string(r)]
        case .secondaryRegistered(let c, let s): return ["event": "secondaryRegistered", "connection": .int(Int64(c)), "sessionID": .int(Int64(s))]
        case .secondaryAnnounced(let s, let a): return ["event": "secondaryAnnounced", "sessionID": .int(Int64(s)), "address": .string(a)]
        case .streamStarted(let c, let s, let service):
            return ["event": "streamStarted", "connection": .int(Int64(c)), "sessionID": .int(Int64(s)), "service": .string(service)]
        case .streamEnded(let c, let s, let service, let r):
            return ["event": "streamEnded", "connection": .int(Int64(c)), "sessionID": .int(Int64(s)), "service": .string(service),
                    "reason": .string(r)]
        case .serviceProtected(let c, let s, let service):
            return ["event": "serviceProtected", "connection": .int(Int64(c)), "sessionID": .int(Int64(s)), "service": .string(service)]
        case .securityFailed(let c, let s, let r):
            return ["event": "securityFailed", "connection": .int(Int64(c)), "sessionID": .int(Int64(s)), "reason": .string(r)]
        case .hmiMessage(let id, let method, let parameters):
            return ["event": "hmiMessage", "appID": .string(id), "method": .string(method), "parameters": .object(parameters)]
        case .policyUpdate(let applied):
            return ["event": "policyUpdate", "applied": .bool(applied)]
        }
    }
}

/// What the emulator knows about one registered app, at one moment.
public struct AppSnapshot: Sendable, Hashable {
    /// The `appID` it registered with.
    public var appID: String
    /// The name it registered with.
    public var appName: String
    /// Its RPC session.
    public var sessionID: UInt8
    /// Whether it registered as a media app.
    public var isMedia: Bool
    /// Its HMI level.
    public var hmiLevel: HMILevel
    /// Its audio streaming state.
    public var audioStreamingState: AudioStreamingState
    /// Its system context (MAIN, MENU, ALERT, ...).
    public var systemContext: SystemContext
    /// Its video streaming state.
    public var videoStreamingState: VideoStreamingState
    /// The AddCommand requests in force, by cmdID.
    public var commands: [Int: AddCommand]
    /// The AddSubMenu requests in force, by menuID.
    public var submenus: [Int: AddSubMenu]
    /// The CreateInteractionChoiceSet requests in force, by interactionChoiceSetID.
    public var choiceSets: [Int: CreateInteractionChoiceSet]
    /// The names of its files on the head unit.
    public var files: [String]
    /// The vehicle data it subscribed to.
    public var vehicleSubscriptions: Set<String>
    /// The buttons it subscribed to.
    public var buttonSubscriptions: Set<String>
    /// The fields of the last Show calls, merged.
    public var show: JSONObject
    /// What SetGlobalProperties set, merged.
    public var globalProperties: JSONObject
    /// The hash id given at registration, for resumption.
    public var hashID: String?
    /// The open menu: nil when closed, 0 for the top level, else the submenu's menuID.
    public var openMenuID: Int?
    /// Numbers DialNumber dialed, as the head unit kept them.
    public var dialedNumbers: [String]
    /// The SendLocation requests, in order.
    public var sentLocations: [SendLocation]
    /// Audio and video of this app by service name ("audio", "video").
    public var streams: [String: StreamSnapshot] = [:]
    /// What a navigation app put on the navigation screen: the last ShowConstantTBT
    /// ("maneuver"), the UpdateTurnList ("turnList") and the SendHapticData rects ("hapticRects").
    public var navigation: JSONObject = [:]
    /// Its widgets (CreateWindow), by windowID.
    public var windows: [Int: WindowSnapshot] = [:]

    /// The snapshot as the control channel's `snapshot` writes it.
    public var json: JSONValue {
        return [
            "appID": .string(appID), "appName": .string(appName), "sessionID": .int(Int64(sessionID)),
            "isMediaApplication": .bool(isMedia), "hmiLevel": hmiLevel.json,
            "audioStreamingState": audioStreamingState.json, "systemContext": systemContext.json,
            "videoStreamingState": videoStreamingState.json, "commands": byID(commands), "submenus": byID(submenus),
            "choiceSets": byID(choiceSets), "files": .array(files.sorted().map(JSONValue.string)),
            "vehicleSubscriptions": .array(vehicleSubscriptions.sorted().map(JSONValue.string)),
            "buttonSubscriptions": .array(buttonSubscriptions.sorted().map(JSONValue.string)),
            "show": .object(show), "globalProperties": .object(globalProperties),
            "hashID": hashID.map(JSONValue.string) ?? .null,
            "openMenuID": openMenuID.map { .int(Int64($0)) } ?? .null,
            "dialedNumbers": .array(dialedNumbers.map(JSONValue.string)), "sentLocations": .array(sentLocations.map(\.json)),
            "streams": .object(streams.mapValues(\.json)), "navigation": .object(navigation),
            "windows": .array(windows.keys.sorted().compactMap { windows[$0]?.json }),
        ]
    }
}

/// One audio or video service of an app as the head unit saw it.
public struct StreamSnapshot: Sendable, Hashable {
    /// Where it runs now ("primary", "secondary"); nil when it is not running.
    public var runningOn: String?
    /// Payload bytes received on each link over the registration.
    public var bytesOnPrimary = 0
    /// See ``bytesOnPrimary``.
    public var bytesOnSecondary = 0
    /// The file the stream is recorded to (see ``EmulatorConfiguration/recordingDirectory``).
    public var recording: String?
    /// Bytes written to the recording (video after RTP unpacking).
    public var recordedBytes = 0
    /// Video: the codec and protocol it started with ("H264/RTP").
    public var videoFormat: String?
    /// RTP video: access units received whole (marker bits).
    public var accessUnits: Int?

    /// The stream as the control channel's `snapshot` writes it.
    public var json: JSONValue {
        ["runningOn": runningOn.map(JSONValue.string) ?? .null,
         "bytesOnPrimary": .int(Int64(bytesOnPrimary)), "bytesOnSecondary": .int(Int64(bytesOnSecondary)),
         "recording": recording.map(JSONValue.string) ?? .null, "recordedBytes": .int(Int64(recordedBytes)),
         "videoFormat": videoFormat.map(JSONValue.string) ?? .null, "accessUnits": accessUnits.map { .int(Int64($0)) } ?? .null]
    }
}

/// The state of the whole emulated head unit, for assertions and the control channel.
public struct EmulatorSnapshot: Sendable, Hashable {
    /// Registered apps, in registration order.
    public var apps: [AppSnapshot]
    /// Current vehicle data values.
    public var vehicleData: JSONObject
    /// Links open now.
    public var connections: Int
    /// Remote control: `allowed`, `accessMode`, `allocated` ("TYPE:moduleId" → app id) and,
    /// while the driver is asked for consent, `askingDriver` (`appID`, `modules`).
    public var remoteControl: JSONObject = [:]

    /// The app with this id, if registered.
    public func app(_ appID: String) -> AppSnapshot? { apps.first { $0.appID == appID } }

    /// The snapshot as the control channel's `snapshot` writes it.
    public var json: JSONValue {
        ["apps": .array(apps.map(\.json)), "vehicleData": .object(vehicleData), "connections": .int(Int64(connections)),
         "remoteControl": .object(remoteControl)]
    }
}

/// Identifies one session of one connection.
struct SessionKey: Hashable, Sendable {
    var connection: Int
    var session: UInt8
}

/// A request from an app, as the handlers see it.
/// One request of one app session.
struct RequestKey: Hashable, Sendable {
    var session: SessionKey
    var correlationID: Int32
}

struct IncomingRequest: Sendable {
    var key: SessionKey
    var name: String
    var functionID: UInt32
    var correlationID: Int32
    var parameters: JSONObject
    /// A slice of the message's payload.
    var bulkData: ArraySlice<UInt8>
    /// It came encrypted: its response goes encrypted too (core's encryption-needed cache).
    var protected = false
    /// What core's check of the request dropped (unknown enum values): the answer says it.
    var warnings: String? = nil
}

/// A request answered later (Alert, PerformInteraction, Speak, ...).
struct PendingUI: Sendable {
    enum Kind: Sendable { case alert, subtleAlert, interaction, speak, scrollable, slider, audioPassThru }
    var kind: Kind
    var request: IncomingRequest
    var token: Int
    var softButtonIDs: [Int] = []
    /// The choice sets a PerformInteraction shows, and their choices' ids.
    var choiceSetIDs: [Int] = []
    var choiceIDs: [Int] = []
    /// The request's cancelID, which CancelInteraction may name.
    var cancelID: Int?
    var triggerSource = "MENU"
    /// What was typed so far, when the view shows a keyboard.
    var keyboardText: String?
}

/// A file an app stored.
struct StoredFile: Sendable, Hashable {
    var name: String
    var persistent: Bool
    var size: Int
    var fileType: String
}

/// One registered app.
struct AppState: Sendable {
    var key: SessionKey
    var appID: String
    var appName: String
    var vrSynonyms: [String]
    var isMedia: Bool
    var appHMITypes: [String]
    var registrationOrder: Int
    var syncMsgVersion: SyncMsgVersion
    var hmiLevel: HMILevel = .none
    var systemContext: SystemContext = .main
    var attenuated = false
    /// A phone call is on (the head unit's PHONE_CALL event): no app is audible meanwhile.
    var phoneCall = false
    var lastStatus: JSONObject?
    /// The OnDriverDistraction core keeps for an app not allowed it at its level.
    var postponedDriverDistraction: JSONObject?
    var commands: [Int: AddCommand] = [:]
    var submenus: [Int: AddSubMenu] = [:]
    var choiceSets: [Int: CreateInteractionChoiceSet] = [:]
    var globalProperties: JSONObject = [:]
    var show: JSONObject = [:]
    var vehicleSubscriptions: Set<String> = []
    var interiorSubscriptions: Set<RCModule> = []
    /// System capability types the app gets OnSystemCapabilityUpdated for (GetSystemCapability subscribe).
    var capabilitySubscriptions: Set<String> = []
    var wayPointsSubscribed = false
    var buttonSubscriptions: Set<String> = []
    var hashID: String?
    /// Modal UI (Alert, PerformInteraction, ScrollableMessage, Slider) and other pending requests.
    var modal: PendingUI?
    /// Soft-button ids a press is passed on for, by the function that showed them (core's
    /// CommandSoftButtonID: Show, Alert, ScrollableMessage...).
    var softButtons: [String: Set<Int>] = [:]
    var speak: PendingUI?
    var audioPassThru: PendingUI?
    var appIcon: String?
    var openMenuID: Int?
    var dialedNumbers: [String] = []
    var sentLocations: [SendLocation] = []
    /// Audio and video by service: where each runs and what it carried.
    var streams: [ServiceType: StreamSnapshot] = [:]
    /// The navigation screen: maneuver, turn list and haptic rects (``AppSnapshot/navigation``).
    var navigation: JSONObject = [:]
    /// Files added, deleted and listings made since registration (core's *_in_none_count).
    var fileRequests = FileRequestCounts()
    /// Its widgets (CreateWindow), by windowID.
    var windows: [Int: WindowSnapshot] = [:]
    /// The main window's template as the app last set it; nil: its kind's default.
    var template: String?

    var isAudible: Bool {
        isMedia || appHMITypes.contains { ["MEDIA", "NAVIGATION", "COMMUNICATION"].contains($0) }
    }

    var isVideo: Bool { appHMITypes.contains { ["NAVIGATION", "PROJECTION"].contains($0) } }

    /// FULL or LIMITED: on screen or playing, where audio and video may stream.
    var isForeground: Bool { hmiLevel == .full || hmiLevel == .limited }

    var audioStreamingState: AudioStreamingState {
        guard isAudible, isForeground, !phoneCall else { return .notAudible }
        return attenuated ? .attenuated : .audible
    }

    var videoStreamingState: VideoStreamingState { isVideo && isForeground ? .streamable : .notStreamable }

    /// core 8.2 names the main window (windowID 0) in every OnHMIStatus (observed; on_hmi_status_notification.cc).
    var status: JSONObject { status(hmiLevel: hmiLevel, systemContext: systemContext, windowID: 0) }

    /// An OnHMIStatus of one of its windows: the window's level and context, the app's audio and video.
    func status(hmiLevel: HMILevel, systemContext: SystemContext, windowID: Int) -> JSONObject {
        ["hmiLevel": hmiLevel.json, "audioStreamingState": audioStreamingState.json,
         "systemContext": systemContext.json, "videoStreamingState": videoStreamingState.json, "windowID": .int(Int64(windowID))]
    }

    /// The data sdl_core keeps for resumption, whose change triggers OnHashChange.
    var resumptionData: JSONValue {
        var data: JSONObject = ["commands": byID(commands), "submenus": byID(submenus), "choiceSets": byID(choiceSets),
                                "globalProperties": .object(globalProperties),
                                "vehicleSubscriptions": .array(vehicleSubscriptions.sorted().map(JSONValue.string)),
                                "buttonSubscriptions": .array(buttonSubscriptions.sorted().map(JSONValue.string))]
        if !windows.isEmpty { data["windows"] = .array(windows.keys.sorted().map { .int(Int64($0)) }) }
        return .object(data)
    }
}

/// What resumption restores after an unexpected disconnect.
struct ResumptionRecord: Sendable {
    var hashID: String
    var hmiLevel: HMILevel
    var commands: [Int: AddCommand]
    var submenus: [Int: AddSubMenu]
    var choiceSets: [Int: CreateInteractionChoiceSet]
    var globalProperties: JSONObject
    var vehicleSubscriptions: Set<String>
    var buttonSubscriptions: Set<String>
}

/// Spec messages by id, as JSON in id order (snapshots and the resumption hash).
func byID<Message: RPCMessage>(_ map: [Int: Message]) -> JSONValue {
    .array(map.sorted { $0.key < $1.key }.map(\.value.json))
}
