import Foundation
public import SDLScenario
public import SmartDeviceLink

/// `sdl-run --hmi ws://HOST:8087`: sdl-run is the HMI of a real sdl_core, so the driver
/// steps of a scenario (activate the app, pick a command, press a button, type on the
/// keyboard) happen there as a person in the car would make them happen.
///
/// On connect it does what core waits for before it lets an app in (docs/sdl-core.md):
/// registers the HMI components, subscribes to core's notifications, and says
/// `BasicCommunication.OnReady`. It answers core's requests as a generic HMI does: at once
/// with SUCCESS for most, and for the views a person ends (an alert with buttons, a choice
/// or keyboard, a recording) when a driver step ends them or their time runs out. It keeps
/// the HMI app id core gives each registered app, and every message core sent it, for
/// expectations on what reached the screen.
public actor CoreHMI: ScenarioDriver {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    static let components = ["BasicCommunication", "UI", "VR", "TTS", "VehicleInfo", "Navigation", "Buttons", "RC", "AppService"]
    static let notifications = ["BasicCommunication.OnAppRegistered", "BasicCommunication.OnAppUnregistered",
                                "BasicCommunication.OnPutFile", "SDL.OnStatusUpdate"]

    private let host: String
    private let port: Int
    private let path: String
    private var socket: HMIWebSocket?
    private var reader: Task<Void, Never>?
    private var answers: [Int: CheckedContinuation<JSONObject, any Error>] = [:]
    private var nextID = 1
    /// Policy app id → the HMI app id core gave it, in registration order.
    private var apps: [(policyID: String, hmiID: Int64)] = []
    /// The HMI ids of the media apps: only they may have the MEDIA template.
    var mediaApps: Set<Int64> = []
    private var appWaiters: [CheckedContinuation<Void, Never>] = []
    private var closedReason: String?
    /// When core last asked this HMI something.
    private var lastRequestAt = ContinuousClock.now
    /// Requests core waits on until a person (a driver step) or a timeout ends them.
    var views = OpenViews()
    /// The car's remote-control modules and the driver's consent question.
    var interior = InteriorModules()
    /// The car's values as this HMI last reported them (VehicleInfo.GetVehicleData answers from here).
    var vehicleData: JSONObject = ["speed": 0, "rpm": 0]
    /// Answers for the next requests of a method instead of SUCCESS (`hmiResult`).
    var setResults: [String: [(code: HMIResult, info: String?)]] = [:]
    /// The driver's route: Navigation.GetWayPoints answers it, `setWayPoints` changes it.
    var wayPoints = CoreHMIAnswers.wayPoints
    /// Whether core's policy table updates get the HMI's part (see `playPolicyUpdates`).
    var playsPolicyUpdates = false
    /// Each app's template, its widgets on screen: the display as sdl_hmi tells core of it.
    var displays = HMIDisplays()
    /// Each app's keyboard keypressMode, from UI.SetGlobalProperties.
    var keypressModes: [Int64: String] = [:]
    /// Vehicle data items the HMI answers with an error, and its info text.
    var unavailableData: [String: (code: HMIResult, info: String?)] = [:]
    /// Every request and notification core sent, in order.
    public private(set) var received: [HMIMessage] = []
    private var watchers: [Int: AsyncStream<HMIMessage>.Continuation] = [:]
    private var nextWatcher = 0

    /// What the HMI answers a method with, over the generic answers (`--hmi-config`).
    let configuredAnswers: JSONObject

    /// `url` is core's HMI WebSocket, `ws://HOST:PORT[/PATH]`. `answers` maps an HMI API method
    /// (`UI.GetCapabilities`) to the result it is answered with, merged over this HMI's own.
    public init(url: String, answers: JSONObject = [:]) throws(Failure) {
        self.configuredAnswers = answers
        guard url.hasPrefix("ws://"), let endpoint = try? HostPort(parsing: String(url.dropFirst(5).prefix { $0 != "/" })) else {
            throw Failure(description: "--hmi takes ws://HOST:PORT, core's HMI WebSocket (ws://127.0.0.1:8087 by default), not '\(url)'")
        }
        self.host = endpoint.host
        self.port = Int(endpoint.port)
        let rest = url.dropFirst(5).drop { $0 != "/" }
        self.path = rest.isEmpty ? "/" : String(rest)
    }

    /// Connects and makes core ready for apps; returns once OnReady went out.
    public func start() async throws(Failure) {
        let socket: HMIWebSocket
        do {
            socket = try await HMIWebSocket.connect(host: host, port: port, path: path)
        } catch {
            throw Failure(description: error.description)
        }
        self.socket = socket
        reader = Task { [weak self] in
            do {
                for try await text in socket.messages { await self?.handle(text) }
                await self?.ended("core closed the HMI link")
            } catch {
                await self?.ended("\(error)")
            }
        }
        do {
            for component in Self.components {
                _ = try await call("MB.registerComponent", ["componentName": .string(component)])
            }
            for name in Self.notifications {
                _ = try await call("MB.subscribeTo", ["propertyName": .string(name)])
            }
            try await notify("BasicCommunication.OnReady", [:])
            // As generic_hmi: core's security manager asks the HMI for the time before each
            // handshake (certificate dates), and only once this came.
            try await notify("BasicCommunication.OnSystemTimeReady", [:])
            // core now asks for the HMI's capabilities and languages; an app that registers
            // before it has the answers gets defaults (no CUSTOM_BUTTON subscription, so no soft
            // button press reaches it). A real HMI is up long before any app: wait until core's
            // questions stop (300 ms quiet), at most 3 s.
            let deadline = ContinuousClock.now + .seconds(3)
            while true {
                // Until 300 ms after core's last question; a question meanwhile moves it on.
                let quiet = min(lastRequestAt + .milliseconds(300), deadline)
                guard ContinuousClock.now < quiet else { break }
                try await Task.sleep(until: quiet)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "core's HMI WebSocket at \(host):\(port): \(error)")
        }
    }

    public func stop() async {
        views.cancelTimers()
        await socket?.close()
        reader?.cancel()
    }

    /// A cable pulled is the phone's side of the link: the runner cuts its own transport.
    public nonisolated var dropsTheLink: Bool { false }

    /// What core sends from now on, for a scenario's `hmi` expectations.
    public func hmiMessages() -> AsyncStream<HMIMessage>? {
        let (stream, continuation) = AsyncStream<HMIMessage>.makeStream()
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unwatch(id) } }
        return stream
    }

    private func unwatch(_ id: Int) { watchers[id] = nil }

    // MARK: - Apps

    /// The HMI app id of `policyID` (nil: the app registered last), waiting up to 5 s for
    /// core's OnAppRegistered, which may come after the app's RegisterAppInterface response.
    func hmiAppID(_ policyID: String?) async throws -> Int64 {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            if let app = policyID.map({ id in apps.last { $0.policyID == id } }) ?? apps.last { return app.hmiID }
            guard ContinuousClock.now < deadline else { break }
            // Woken by the next OnAppRegistered, or at the deadline.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                appWaiters.append(continuation)
                Task { try? await Task.sleep(until: deadline); self.wakeAppWaiters() }
            }
        }
        throw Failure(description: "core never said \(policyID.map { "app \($0)" } ?? "an app") registered (BasicCommunication.OnAppRegistered)")
    }

    private func wakeAppWaiters() {
        let waiters = appWaiters
        appWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - JSON-RPC

    func call(_ method: String, _ params: JSONObject) async throws -> JSONObject {
        let id = nextID
        nextID += 1
        let request: JSONObject = ["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method), "params": .object(params)]
        return try await withCheckedThrowingContinuation { continuation in
            answers[id] = continuation
            Task {
                do { try await self.send(request) } catch { self.failCall(id, error) }
            }
        }
    }

    private func failCall(_ id: Int, _ error: any Error) {
        answers.removeValue(forKey: id)?.resume(throwing: error)
    }

    func notify(_ method: String, _ params: JSONObject) async throws {
        try await send(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)])
    }

    /// Answers core's request `id` with `result` (SUCCESS) or the HMI error `code`.
    func answer(_ id: Int64, _ method: String, _ code: HMIResult = .success, _ result: JSONObject = [:], info: String? = nil) async throws {
        if code.isSuccess {
            var result = result
            result["code"] = .int(Int64(code.rawValue))
            result["method"] = .string(method)
            try await send(["jsonrpc": "2.0", "id": .int(id), "result": .object(result)])
        } else {
            var data: JSONObject = ["method": .string(method)]
            data.merge(result) { old, _ in old }
            try await send(["jsonrpc": "2.0", "id": .int(id),
                            "error": ["code": .int(Int64(code.rawValue)), "message": .string(info ?? ""), "data": .object(data)]])
        }
    }

    func send(_ message: JSONObject) async throws {
        if let closedReason { throw Failure(description: closedReason) }
        guard let socket else { throw Failure(description: "the HMI is not connected to core yet") }
        do {
            try await socket.send(JSONValue.object(message).serialized())
        } catch {
            throw Failure(description: error.description)
        }
    }

    private func handle(_ text: String) async {
        guard case .object(let message)? = try? JSONValue.parse(Array(text.utf8)) else { return }
        let id = message["id"]?.intValue
        if let method = message["method"]?.stringValue {
            let params = message["params"]?.objectValue ?? [:]
            let seen = HMIMessage(method: method, params: params, isRequest: id != nil)
            received.append(seen)
            for watcher in watchers.values { watcher.yield(seen) }
            if let id {
                lastRequestAt = .now
                do { try await answerRequest(id, method, params) } catch { ended("\(error)") }
            } else if method == "BasicCommunication.OnAppRegistered", let app = params["application"]?.objectValue,
                      let hmiID = app["appID"]?.intValue {
                apps.append((app["policyAppID"]?.stringValue ?? "", hmiID))
                if app["isMediaApplication"]?.boolValue == true { mediaApps.insert(hmiID) }
                wakeAppWaiters()
                do { try await appRegistered(app, hmiID: hmiID) } catch { ended("\(error)") }
            } else if method == "BasicCommunication.OnAppUnregistered", let hmiID = params["appID"]?.intValue {
                // The next scenario's driver steps are about the app that registers next.
                apps.removeAll { $0.hmiID == hmiID }
            }
        } else if let id, let waiter = answers.removeValue(forKey: Int(id)) {
            if let error = message["error"]?.objectValue {
                waiter.resume(throwing: Failure(description: "core answered \(error["data"]?["method"]?.stringValue ?? "a request") with error \(error["code"]?.intValue ?? -1): \(error["message"]?.stringValue ?? "")"))
            } else {
                waiter.resume(returning: message["result"]?.objectValue ?? [:])
            }
        }
    }

    func ended(_ reason: String) {
        guard closedReason == nil else { return }
        closedReason = reason
        for waiter in answers.values { waiter.resume(throwing: Failure(description: reason)) }
        answers = [:]
        views.cancelTimers()
        for watcher in watchers.values { watcher.finish() }
    }
}

/// HMI_API's `Common.Result`: what the HMI answers core with.
enum HMIResult: Int, Sendable, CaseIterable {
    case success = 0, unsupportedRequest = 1, unsupportedResource = 2, disallowed = 3, rejected = 4, aborted = 5, ignored = 6
    case retry = 7, inUse = 8, dataNotAvailable = 9, timedOut = 10, invalidData = 11, charLimitExceeded = 12, invalidID = 13
    case duplicateName = 14, applicationNotRegistered = 15, wrongLanguage = 16, outOfMemory = 17, tooManyPendingRequests = 18
    case noAppsRegistered = 19, noDevicesConnected = 20, warnings = 21, genericError = 22, userDisallowed = 23
    case truncatedData = 24, saved = 25, readOnly = 26

    /// Codes core reads as a success and takes from `result`.
    var isSuccess: Bool { self == .success || self == .warnings || self == .saved || self == .truncatedData }

    /// The name HMI_API gives it (`DATA_NOT_AVAILABLE`), which the mobile API shares: the
    /// case's name in capitals with words split by `_`.
    var name: String {
        String(describing: self).reduce(into: "") { name, character in
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }.replacingOccurrences(of: "I_D", with: "ID")
    }

    /// From its HMI_API name.
    init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
