import Foundation
public import SmartDeviceLink
import SDLEmulator

/// A declarative test: which app registers, optional emulator settings, and the steps.
public struct Scenario: Sendable {
    /// The scenario's `name`, else its file name.
    public var name: String
    /// The `description`, for reports.
    public var description: String?
    /// The app that registers (with several, the first: steps without `as` act as it).
    public var app: AppDescription
    /// With an `apps` section, every app by its `as` name, in the order they register; empty
    /// for a scenario of one `app`.
    public var apps: [ScenarioApp] = []
    /// Emulator configuration, used only when running against the embedded emulator.
    public var emulator: JSONObject?
    /// The policy server the run starts for a policy table update; nil: none, and the apps
    /// leave OnSystemRequest PROPRIETARY to the test (a test rig reaches out to no OEM's cloud).
    public var policyServer: PolicyServerSpec?
    /// Default time an expectation waits, in milliseconds.
    public var defaultTimeoutMS: Int
    /// The steps, in order.
    public var steps: [Step]
    /// Where the scenario came from, for messages.
    public var source: String
    /// Labels for choosing scenarios of a suite (`--include`, `--exclude`).
    public var tags: [String] = []
    /// Variables known before the first step: `--var` values and the `${env.NAME}` the
    /// scenario uses, read when it was loaded.
    public var variables: [String: JSONValue] = [:]
}

/// One app of a scenario with several: the name steps refer to it by (`"as": "player"`).
public struct ScenarioApp: Sendable {
    /// The name steps use in `as`.
    public var name: String
    /// What it registers as.
    public var app: AppDescription

    /// `app`, called `name` by the scenario's steps.
    public init(name: String, app: AppDescription) { (self.name, self.app) = (name, app) }
}

/// The app a scenario registers.
public struct AppDescription: Sendable {
    /// RegisterAppInterface's `appName`.
    public var appName: String
    /// RegisterAppInterface's `appID` and `fullAppID`.
    public var appID: String
    /// Whether it registers as a media app.
    public var isMedia: Bool
    /// AppHMIType names (`DEFAULT`, `NAVIGATION`, ...).
    public var appTypes: [String]
    /// The language it asks for (`EN-US`).
    public var language: String
    /// The display language it asks for.
    public var hmiLanguage: String
    /// Its spoken name, as one TEXT chunk.
    public var ttsName: String?
    /// Its voice recognition synonyms.
    public var vrSynonyms: [String]?
    /// Its short name (`ngnMediaScreenAppName`).
    public var shortName: String?
    /// Its certificate and key for protected services (the scenario's `app.security`).
    public var security: SecurityConfiguration?

    /// The lifecycle configuration registering this app over `transports`.
    public func configuration(transports: [TransportChoice]) -> SDLConfiguration {
        var configuration = SDLConfiguration(
            appName: appName, appID: appID, shortName: shortName, appTypes: appTypes.map { AppHMIType(rawValue: $0) },
            isMedia: isMedia, language: Language(rawValue: language), hmiDisplayLanguage: Language(rawValue: hmiLanguage),
            ttsName: ttsName.map { [TTSChunk(text: $0, type: .text)] }, voiceRecognitionSynonyms: vrSynonyms,
            transports: transports)
        // A test rig follows the lock screen's status but does not reach out to the web for
        // the head unit's icon (core's default policy names one on imgur.com).
        configuration.lockScreen.fetchIcon = false
        // On when the scenario has a policyServer: the update and the icons it names come from there.
        configuration.systemRequests.cloudAppIcons = false
        configuration.systemRequests.policyUpdates = false
        configuration.security = security
        return configuration
    }

    /// The RegisterAppInterface parameters for this app.
    public var registrationParameters: JSONObject {
        var parameters: JSONObject = [
            "syncMsgVersion": ["majorVersion": 8, "minorVersion": 0, "patchVersion": 0],
            "appName": .string(appName),
            "isMediaApplication": .bool(isMedia),
            "languageDesired": .string(language),
            "hmiDisplayLanguageDesired": .string(hmiLanguage),
            "appID": .string(appID),
            "fullAppID": .string(appID),
            "appHMIType": .array(appTypes.map(JSONValue.string)),
        ]
        if let ttsName { parameters["ttsName"] = [["text": .string(ttsName), "type": "TEXT"]] }
        if let vrSynonyms { parameters["vrSynonyms"] = .array(vrSynonyms.map(JSONValue.string)) }
        if let shortName { parameters["ngnMediaScreenAppName"] = .string(shortName) }
        return parameters
    }
}

/// One step of a scenario, with its location in the file for reports.
public struct Step: Sendable {
    /// What the step does.
    public var kind: Kind
    /// JSON path of the step, e.g. `steps[3]` or `steps[2].repeat.steps[0]`.
    public var path: String
    /// An optional label the author gave (`"name"`).
    public var label: String?
    /// Values to capture from the step's message into variables: variable → parameter path.
    public var captures: [String: String]
    /// Send and go on without waiting for the response (e.g. an Alert the driver answers);
    /// a later `expect {"response": ...}` checks it.
    public var background: Bool = false
    /// The app the step acts as or expects for (`"as"`), in a scenario with several; nil: the first.
    public var app: String?

    /// Every kind of step the language has.
    public indirect enum Kind: Sendable {
        /// Send a request and check its response.
        case send(function: String, parameters: JSONObject, bulkFile: String?, expect: ResponseExpectation, timeoutMS: Int?)
        /// Send a notification to the head unit.
        case notify(function: String, parameters: JSONObject)
        /// Expect messages: one, several in order, or several in any order.
        case expect([MessageExpectation], order: ExpectationOrder)
        /// A high-level action, turned into RPCs; each gets `timeoutMS` for its response
        /// (the library's request timeout when nil).
        case action(Action, expect: ResponseExpectation, timeoutMS: Int? = nil)
        /// Wait this long.
        case wait(milliseconds: Int)
        /// Run `steps` this many times.
        case `repeat`(times: Int, steps: [Step])
        /// Ask the operator to do something on a real head unit.
        case prompt(message: String)
        /// Something a person or the car does; runs against the emulator only.
        case driver(DriverAction)
        /// Audio or video data, on whichever link the head unit prefers.
        case stream(StreamStep)
        /// A transport event: the secondary registered, a service moved...
        case expectTransport(TransportExpectation)
        /// A local command for a physical action on the bench (port power, a relay).
        case exec(ExecStep)
        /// Streams a video file or a WAV file through the streaming media manager.
        case media(MediaStep)
        /// Waits for a stream state or a touch gesture the app saw.
        case expectMedia(MediaExpectation)
        /// Starts a service protected (RPC again, audio or video).
        case protect(ProtectStep)
        /// Waits until a service runs protected (or checks that it runs unprotected).
        case expectProtected(ProtectedExpectation)
        /// Answers a request the head unit sent the app (an app-service provider's).
        case answer(AnswerStep)
    }

    /// The step in a few words, for reports: its label, else what it does.
    public var summary: String {
        if let label { return label }
        switch kind {
        case .send(let function, _, _, _, _): return "send \(function)"
        case .notify(let function, _): return "notify \(function)"
        case .answer(let step): return "answer \(step.function) \(step.resultCode)"
        case .expect(let expectations, let order):
            let names = expectations.map(\.summary).joined(separator: ", ")
            return expectations.count == 1 ? "expect \(names)" : "expect \(order.rawValue) [\(names)]"
        case .action(let action, _, _): return action.summary
        case .wait(let ms): return "wait \(ms) ms"
        case .repeat(let times, let steps): return "repeat \(times)× \(steps.count) steps"
        case .prompt(let message): return "prompt: \(message)"
        case .driver(let action): return "driver \(action.name)"
        case .stream(let stream): return "stream \(stream.bytes) bytes of \(stream.service)" + (stream.end ? ", then end it" : "")
        case .expectTransport(let expectation): return "expect transport \(expectation.summary)"
        case .exec(let step): return "exec \(step.display)"
        case .media(let step): return step.summary
        case .expectMedia(let expectation): return "expect \(expectation.summary)"
        case .protect(let step):
            return "protect \(ProtectStep.name(step.service))" + (step.refusal.map { " (refused: \($0))" } ?? "")
        case .expectProtected(let expectation):
            return "expect \(ProtectStep.name(expectation.service)) \(expectation.protected ? "protected" : "unprotected")"
        }
    }
}

/// A command run on this machine: `uhubctl -a off -p 2`, a relay board's tool, `bluetoothctl
/// power off`. Its output goes into the report.
public struct ExecStep: Sendable {
    /// The program and its arguments; a string in the scenario runs through `/bin/sh -c`.
    public var arguments: [String]
    /// How long the command may run before it is stopped, with everything it started.
    public var timeoutMS: Int
    /// The exit code that passes (default 0).
    public var expectedExitCode: Int32

    var display: String { arguments.first == "/bin/sh" && arguments.count == 3 ? arguments[2] : arguments.joined(separator: " ") }
}

/// Streams synthetic data on audio or video, starting the service first if it is not running.
public struct StreamStep: Sendable {
    /// "audio" or "video".
    public var service: String
    /// How many bytes to send.
    public var bytes: Int
    /// Bytes per `SDLManager.sendServiceData(_:on:)` call.
    public var chunkSize: Int
    /// End the service after the data.
    public var end: Bool
    /// Start the service protected when it is not running yet.
    public var protected = false

    var serviceType: ServiceType { service == "audio" ? .audio : .video }
}

/// `{"protect": ...}`: a service started protected; `refusal` (a part of the head unit's
/// reason) when the head unit must refuse, or start audio or video unprotected.
public struct ProtectStep: Sendable {
    /// The service to start protected: RPC, audio or video.
    public var service: ServiceType
    /// A part of the reason the head unit must give for refusing; nil: it must not refuse.
    public var refusal: String?

    /// "rpc", "audio" or "video".
    static func name(_ service: ServiceType) -> String { service == .rpc ? "rpc" : service == .audio ? "audio" : "video" }
}

/// `{"expect": {"protected": "rpc"}}`.
public struct ProtectedExpectation: Sendable {
    /// The service: RPC, audio or video.
    public var service: ServiceType
    /// Whether it must run protected (waited for) or unprotected (checked at once).
    public var protected: Bool
    /// How long to wait, in milliseconds (nil: the scenario default).
    public var withinMS: Int?
}

/// An expected transport event (`TransportEvent`), in the order they happen.
public struct TransportExpectation: Sendable {
    /// The event's name, e.g. "secondaryRegistered".
    public var event: String
    /// For serviceMoved and serviceStopped: "audio" or "video".
    public var service: String?
    /// For serviceMoved: "primary" or "secondary".
    public var to: String?
    /// How long to wait, in milliseconds (nil: the scenario default).
    public var withinMS: Int?

    /// The expectation in a few words, for reports.
    public var summary: String {
        [event, service, to.map { "to \($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    /// Whether `event` is the one expected.
    func matches(_ event: TransportEvent) -> Bool {
        guard event.name == self.event else { return false }
        switch event {
        case .serviceMoved(let service, let role):
            return self.service.map { $0 == StreamStep.name(service) } ?? true && to.map { $0 == role.rawValue } ?? true
        case .serviceStopped(let service, _):
            return self.service.map { $0 == StreamStep.name(service) } ?? true
        default:
            return true
        }
    }
}

extension StreamStep {
    static func name(_ service: ServiceType) -> String { service == .audio ? "audio" : "video" }
}

/// How several expected messages must arrive.
public enum ExpectationOrder: String, Sendable {
    /// In the order listed (`expectInOrder`).
    case inOrder = "in order"
    /// In any order (`expectAnyOrder`).
    case anyOrder = "any order"
}

/// What the response to a request must look like. The default expects `success: true`.
public struct ResponseExpectation: Sendable {
    /// Accepted result codes; nil means "success must be true".
    public var resultCodes: [String]?
    /// The `success` the response must have; nil: not checked.
    public var success: Bool?
    /// What the response's parameters must match.
    public var parameters: Matcher?

    /// Any response with `success: true`.
    public static let succeeds = ResponseExpectation(resultCodes: nil, success: true, parameters: nil)
}

/// An expected message from the head unit.
public struct MessageExpectation: Sendable {
    /// `hmi`: a message the head unit's HMI was sent (`UI.Show`), not one the app received.
    public enum Kind: String, Sendable {
        /// A notification from the head unit.
        case notification
        /// The response to a request sent in the background.
        case response
        /// A message the head unit's HMI was sent.
        case hmi
    }
    /// A notification, a response or an HMI message.
    public var kind: Kind
    /// Its function name (`OnHMIStatus`, `UI.Show`).
    public var function: String
    /// What its parameters must match; nil: anything.
    public var parameters: Matcher?
    /// How many must come.
    public var count: Count
    /// How long to wait, in milliseconds (nil: the scenario default).
    public var withinMS: Int?
    /// Values to keep for later steps: variable → parameter path.
    public var captures: [String: String]

    /// How many matching messages an expectation wants.
    public enum Count: Sendable, Equatable {
        /// At least this many.
        case atLeast(Int)
        /// Exactly this many, no more within the time.
        case exactly(Int)
        /// None within the time.
        case never
    }

    /// The expectation in a few words, for reports.
    public var summary: String {
        var text = function
        switch count {
        case .atLeast(let n) where n != 1: text += " ≥\(n)×"
        case .exactly(let n): text += " exactly \(n)×"
        case .never: text = "no " + text
        default: break
        }
        return text
    }
}

/// High-level actions.
public enum Action: Sendable {
    /// One Show with these fields (text, graphics, template, soft buttons).
    case show(JSONObject)
    /// The menu manager's menu.
    case menu([MenuItem])
    /// One Alert with these fields.
    case alert(JSONObject)
    /// One SubscribeVehicleData for these names.
    case subscribeVehicleData([String])
    /// One UnsubscribeVehicleData for these names.
    case unsubscribeVehicleData([String])
    /// One GetVehicleData for these names.
    case getVehicleData([String])
    /// A recording through the audio pass-thru manager, into a WAV file.
    case audioPassThru(AudioPassThruAction)
    /// An upload through the file manager.
    case putFile(PutFileAction)
    /// One SetAppIcon naming a file already on the head unit.
    case setAppIcon(String)
    /// ShowConstantTBT: `{"text", "secondaryText", "distance", "eta", "totalDistance"}`.
    case showManeuver(JSONObject)

    /// The action in a few words, for reports.
    public var summary: String {
        switch self {
        case .show: return "show"
        case .menu(let items): return "menu (\(items.count) items)"
        case .alert: return "alert"
        case .subscribeVehicleData(let names): return "subscribe \(names.joined(separator: ", "))"
        case .unsubscribeVehicleData(let names): return "unsubscribe \(names.joined(separator: ", "))"
        case .getVehicleData(let names): return "get \(names.joined(separator: ", "))"
        case .audioPassThru(let action): return "audio pass-thru → \(action.file)"
        case .putFile(let action): return "put file \(action.name)"
        case .setAppIcon(let name): return "set app icon \(name)"
        case .showManeuver(let maneuver): return "show maneuver \(maneuver["text"]?.stringValue ?? "")"
        }
    }
}

/// One cell of a `menu` step.
public struct MenuItem: Sendable {
    /// Ids are the menu manager's; the scenario refers to a cell as `${menu.<title>}`.
    public var title: String
    /// Its voice commands.
    public var voiceCommands: [String]?
    /// Non-empty for a submenu.
    public var items: [MenuItem]?
}

/// An `audioPassThru` step: what to record and where.
public struct AudioPassThruAction: Sendable {
    /// Where the WAV file goes: beside the scenario, unless the run has an output directory.
    public var file: String
    /// The file as the scenario names it, for the run's output directory.
    public var fileAsWritten: String
    /// How long the head unit records at most, in milliseconds.
    public var maxDurationMS: Int
    /// The sampling rate asked for (`16KHZ`).
    public var samplingRate: String
    /// The sample size asked for (`16_BIT`).
    public var bitsPerSample: String
    /// Lines shown while recording.
    public var text: [String]
    /// Spoken before recording.
    public var prompt: String?
}

/// A `putFile` step: which file, and under what name.
public struct PutFileAction: Sendable {
    /// The file on this machine.
    public var path: String
    /// Its name on the head unit.
    public var name: String
    /// Its FileType (`GRAPHIC_PNG`).
    public var fileType: String
    /// Whether it outlives the app's session on the head unit.
    public var persistent: Bool
    /// Bytes per PutFile; nil: the file manager's.
    public var chunkSize: Int?
}

/// An action of the emulator's driver: name and arguments.
public struct DriverAction: Sendable {
    /// The action's name (`selectCommand`).
    public var name: String
    /// Its parameters (`{"cmdID": 5}`).
    public var arguments: JSONObject
    /// An action, with no parameters unless given.
    public init(name: String, arguments: JSONObject = [:]) {
        self.name = name
        self.arguments = arguments
    }
    /// The driver actions a scenario can take: the emulator's table, less its control-only ones.
    public static var names: [String] { HeadUnitEmulator.driverActions.filter { !$0.controlOnly }.map(\.name) }
    /// Why `name` names no driver action, with the closest one; nil when it names one.
    public static func problem(withName name: String) -> String? {
        names.contains(name) ? nil : "\(name) is not a driver action" + RPCSpec.didYouMean(name, among: names)
    }
    /// Those a scenario may name bare (`{"driver": "activateApp"}`).
    public static var bareNames: [String] { HeadUnitEmulator.driverActions.filter { !$0.controlOnly && $0.canBeBare }.map(\.name) }
}

/// A file streamed through the library's `StreamingMediaManager`.
public enum MediaStep: Sendable {
    /// An H.264 Annex-B file at `fps` (or `timestampsMS`), for `durationMS` (looping) or once,
    /// as RAW or RTP (nil: the first the head unit lists).
    case video(file: String, fps: Double, timestampsMS: [Int]?, durationMS: Int?, protocol: String?)
    /// A WAV file in the head unit's PCM format, in real time.
    case audio(file: String)

    var summary: String {
        switch self {
        case .video(let file, let fps, _, let duration, let proto):
            return "stream video \((file as NSString).lastPathComponent)" + (proto.map { " as \($0)" } ?? "") + " at \(fps.clean) fps"
                + (duration.map { " for \($0) ms" } ?? "")
        case .audio(let file): return "stream audio \((file as NSString).lastPathComponent)"
        }
    }
}

/// `{"expect": {"stream": "video", "state": "streaming"}}` or `{"expect": {"gesture": "pinch"}}`.
public enum MediaExpectation: Sendable {
    /// The stream reaches this `StreamState` name (stopped, waitingForHMI, starting, streaming, refused).
    case stream(service: String, state: String, withinMS: Int?)
    /// The app recognised this gesture; "pinch" and "pan" match any of their events.
    case gesture(name: String, withinMS: Int?)
    /// The app's lock screen status (OFF, OPTIONAL, REQUIRED), and whether the driver may dismiss it.
    case lockScreen(status: String, dismissible: Bool?, withinMS: Int?)

    var summary: String {
        switch self {
        case .stream(let service, let state, _): return "\(service) \(state)"
        case .gesture(let name, _): return "gesture \(name)"
        case .lockScreen(let status, let dismissible, _):
            return "lock screen \(status)" + (dismissible.map { $0 ? ", dismissible" : ", not dismissible" } ?? "")
        }
    }

    static let states = ["stopped", "waitingForHMI", "starting", "streaming", "refused"]
    static let gestures = ["tap", "doubleTap", "pan", "panStarted", "panMoved", "panEnded", "pinch", "pinchStarted", "pinchMoved",
                           "pinchEnded", "cancelled"]
}
