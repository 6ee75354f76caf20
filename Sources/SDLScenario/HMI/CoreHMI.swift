import Foundation
import SmartDeviceLink

/// `sdl-run --hmi ws://HOST:8087`: sdl-run is the HMI of a real sdl_core, so the driver
/// steps of a scenario (activate the app, pick a command) happen there as a person in the
/// car would make them happen.
///
/// On connect it does what core waits for before it lets an app in (docs/SDL-CORE.md):
/// registers the HMI components, subscribes to core's notifications, and says
/// `BasicCommunication.OnReady`. It answers every request core sends with SUCCESS and the
/// values of a generic HMI, and keeps the HMI app id core gives each registered app.
public actor CoreHMI: ScenarioDriver {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    static let components = ["BasicCommunication", "UI", "VR", "TTS", "VehicleInfo", "Navigation", "Buttons", "RC", "AppService"]
    static let notifications = ["BasicCommunication.OnAppRegistered", "BasicCommunication.OnAppUnregistered",
                                "BasicCommunication.OnPutFile", "SDL.OnStatusUpdate"]

    private let endpoint: HostPort
    private let path: String
    private let transport: TCPTransport
    private let key = WebSocketCodec.makeKey()
    private var codec: WebSocketCodec
    private var reader: Task<Void, Never>?
    private var opened: CheckedContinuation<Void, any Error>?
    private var answers: [Int: CheckedContinuation<JSONObject, any Error>] = [:]
    private var nextID = 1
    /// Policy app id → the HMI app id core gave it, in registration order.
    private var apps: [(policyID: String, hmiID: Int64)] = []
    private var appWaiters: [CheckedContinuation<Void, Never>] = []
    private var closedReason: String?
    /// The UI.Alert on screen: answered when its duration ends or one of its soft buttons is pressed.
    private var alert: (requestID: Int64, appID: Int64, softButtonIDs: [Int64], token: Int)?
    private var alertTokens = 0
    /// The car's values as this HMI last reported them (VehicleInfo.GetVehicleData answers from here).
    private var vehicleData: JSONObject = ["speed": 0, "rpm": 0]

    /// `url` is core's HMI WebSocket, `ws://HOST:PORT[/PATH]`.
    public init(url: String) throws(Failure) {
        guard url.hasPrefix("ws://"), let endpoint = try? HostPort(parsing: String(url.dropFirst(5).prefix { $0 != "/" })) else {
            throw Failure(description: "--hmi takes ws://HOST:PORT, core's HMI WebSocket (ws://127.0.0.1:8087 by default), not '\(url)'")
        }
        self.endpoint = endpoint
        let rest = url.dropFirst(5).drop { $0 != "/" }
        self.path = rest.isEmpty ? "/" : String(rest)
        self.transport = TCPTransport(host: endpoint.host, port: endpoint.port, connectTimeout: .seconds(5))
        self.codec = WebSocketCodec(key: key)
    }

    /// Connects and makes core ready for apps; returns once OnReady went out.
    public func start() async throws(Failure) {
        do {
            try await transport.open()
        } catch {
            throw Failure(description: "cannot reach core's HMI WebSocket at \(endpoint): \(error)")
        }
        let incoming = transport.incoming
        reader = Task { [weak self] in
            do {
                for try await chunk in incoming { await self?.received(chunk) }
                await self?.ended("core closed the HMI link")
            } catch {
                await self?.ended("the HMI link failed: \(error)")
            }
        }
        let upgrade = WebSocketCodec.handshake(host: endpoint.host, port: endpoint.port, path: path, key: key)
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                opened = continuation
                Task {
                    do { try await self.write(upgrade) } catch { self.ended("cannot send the WebSocket upgrade: \(error)") }
                }
            }
            for component in Self.components {
                _ = try await call("MB.registerComponent", ["componentName": .string(component)])
            }
            for name in Self.notifications {
                _ = try await call("MB.subscribeTo", ["propertyName": .string(name)])
            }
            try await notify("BasicCommunication.OnReady", [:])
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "core's HMI WebSocket at \(endpoint): \(error)")
        }
    }

    public func stop() async {
        reader?.cancel()
        await transport.close()
    }

    // MARK: - Driver steps

    public func perform(_ action: DriverAction) async throws {
        // Only the steps about an app wait for core to name it; the others need none.
        func appID() async throws -> Int64 { try await hmiAppID(action.arguments["appID"]?.stringValue) }
        switch action.name {
        case "activateApp":
            _ = try await call("SDL.ActivateApp", ["appID": .int(try await appID())])
        case "exitApp":
            try await notify("BasicCommunication.OnExitApplication", ["appID": .int(try await appID()), "reason": "USER_EXIT"])
        case "selectCommand":
            guard let cmdID = action.arguments["cmdID"]?.intValue else { throw Failure(description: "selectCommand needs an integer cmdID") }
            let voice = action.arguments["triggerSource"]?.stringValue == "VR"
            try await notify(voice ? "VR.OnCommand" : "UI.OnCommand", ["cmdID": .int(cmdID), "appID": .int(try await appID())])
        case "pressSoftButton":
            guard let id = (action.arguments["id"] ?? action.arguments["softButtonID"])?.intValue else {
                throw Failure(description: "pressSoftButton needs the soft button's integer id")
            }
            let button: JSONObject = ["name": "CUSTOM_BUTTON", "customButtonID": .int(id), "appID": .int(try await appID())]
            for mode in ["BUTTONDOWN", "BUTTONUP"] { try await notify("Buttons.OnButtonEvent", button.merging(["mode": .string(mode)]) { $1 }) }
            try await notify("Buttons.OnButtonPress", button.merging(["mode": "SHORT"]) { $1 })
            if let shown = alert, shown.softButtonIDs.contains(id) { try await closeAlert(shown.token) }
        case "setVehicleData":
            var values = action.arguments["values"]?.objectValue ?? [:]
            if values.isEmpty, let name = action.arguments["name"]?.stringValue, let value = action.arguments["value"] { values = [name: value] }
            if values.isEmpty { values = action.arguments.filter { $0.key != "appID" } }
            vehicleData.merge(values) { _, new in new }
            try await notify("VehicleInfo.OnVehicleData", values)
        default:
            throw Failure(description: "\(action.name) has no equivalent on core's HMI API in sdl-run yet; it runs against the emulator")
        }
    }

    /// The HMI app id of `policyID` (nil: the app registered last), waiting up to 5 s for
    /// core's OnAppRegistered, which may come after the app's RegisterAppInterface response.
    private func hmiAppID(_ policyID: String?) async throws -> Int64 {
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

    private func call(_ method: String, _ params: JSONObject) async throws -> JSONObject {
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

    private func notify(_ method: String, _ params: JSONObject) async throws {
        try await send(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)])
    }

    private func send(_ message: JSONObject) async throws {
        if let closedReason { throw Failure(description: closedReason) }
        try await write(WebSocketCodec.frame(opcode: 0x1, payload: JSONValue.object(message).serializedBytes()))
    }

    private func write(_ bytes: [UInt8]) async throws {
        try await transport.send(bytes)
    }

    private func received(_ chunk: [UInt8]) async {
        codec.append(chunk)
        do {
            while let event = try codec.next() {
                switch event {
                case .opened: opened?.resume(); opened = nil
                case .text(let text): await handle(text)
                case .ping(let payload): try? await write(WebSocketCodec.frame(opcode: 0xA, payload: payload))
                case .closed(let code): ended("core closed the HMI link (code \(code.map(String.init) ?? "none"))")
                }
            }
        } catch {
            ended("\(error)")
            await transport.close()
        }
    }

    private func handle(_ text: String) async {
        guard case .object(let message)? = try? JSONValue.parse(Array(text.utf8)) else { return }
        let id = message["id"]?.intValue
        if let method = message["method"]?.stringValue {
            if let id, method == "UI.Alert" {
                await showAlert(id, message["params"]?.objectValue ?? [:])
            } else if let id {
                let params = message["params"]?.objectValue ?? [:]
                var result = method == "VehicleInfo.GetVehicleData"
                    ? vehicleData.filter { params[$0.key]?.boolValue == true }
                    : CoreHMIAnswers.result(for: method, params: params)
                result["code"] = 0
                result["method"] = .string(method)
                try? await send(["jsonrpc": "2.0", "id": .int(id), "result": .object(result)])
            } else if method == "BasicCommunication.OnAppRegistered", let app = message["params"]?["application"]?.objectValue,
                      let hmiID = app["appID"]?.intValue {
                apps.append((app["policyAppID"]?.stringValue ?? "", hmiID))
                wakeAppWaiters()
            }
        } else if let id, let waiter = answers.removeValue(forKey: Int(id)) {
            if let error = message["error"]?.objectValue {
                waiter.resume(throwing: Failure(description: "core answered \(error["data"]?["method"]?.stringValue ?? "a request") with error \(error["code"]?.intValue ?? -1): \(error["message"]?.stringValue ?? "")"))
            } else {
                waiter.resume(returning: message["result"]?.objectValue ?? [:])
            }
        }
    }

    /// UI.Alert: the app's system context is ALERT while it is shown; a second one is
    /// REJECTED, as the HMI answers core.
    private func showAlert(_ id: Int64, _ params: JSONObject) async {
        guard alert == nil else {
            try? await send(["jsonrpc": "2.0", "id": .int(id),
                             "error": ["code": 4, "message": "an alert is already shown", "data": ["method": "UI.Alert"]]])
            return
        }
        alertTokens += 1
        let token = alertTokens, appID = params["appID"]?.intValue ?? 0
        alert = (id, appID, params["softButtons"]?.arrayValue?.compactMap { $0["softButtonID"]?.intValue } ?? [], token)
        try? await notify("UI.OnSystemContext", ["systemContext": "ALERT", "appID": .int(appID)])
        // core sends duration 0 for an alert with soft buttons: it stays until one is pressed.
        guard let milliseconds = params["duration"]?.intValue, milliseconds > 0 else { return }
        Task {
            try await Task.sleep(for: .milliseconds(milliseconds))
            try await self.closeAlert(token)
        }
    }

    private func closeAlert(_ token: Int) async throws {
        guard let shown = alert, shown.token == token else { return }
        alert = nil
        try await send(["jsonrpc": "2.0", "id": .int(shown.requestID), "result": ["code": 0, "method": "UI.Alert"]])
        try await notify("UI.OnSystemContext", ["systemContext": "MAIN", "appID": .int(shown.appID)])
    }

    private func ended(_ reason: String) {
        guard closedReason == nil else { return }
        closedReason = reason
        opened?.resume(throwing: Failure(description: reason))
        opened = nil
        for waiter in answers.values { waiter.resume(throwing: Failure(description: reason)) }
        answers = [:]
    }
}
