public import SDLEmulator
public import SmartDeviceLink
import Foundation

/// Runs scenarios against an emulator in this process: the default when no transport is given.
public enum EmbeddedEmulator {
    /// A fresh emulator for `scenario`, configured by its `emulator` section, reached through
    /// an in-memory link, with its driver for `driver` steps.
    /// Its recordings of the app's streams go to `recordings` unless the scenario names a folder.
    /// A scenario's policy server takes a free port unless `policyServerAtItsAddress` (compare,
    /// whose other run, on core, uses the scenario's address and URLs).
    public static func target(for scenario: Scenario, recordings: String? = nil,
                              policyServerAtItsAddress: Bool = false) throws(EmulatorConfigurationError) -> ScenarioTarget {
        var configuration = EmulatorConfiguration.standard
        if let json = scenario.emulator { configuration = try EmulatorConfiguration(json: json) }
        if configuration.recordingDirectory == nil { configuration.recordingDirectory = recordings }
        guard var spec = scenario.policyServer else { return target(configuration: configuration) }
        // Nobody outside reaches this server: it takes a free port, so runs side by side do
        // not collide; the emulator's policy table names it, and URLs of the update that
        // name the scenario's address (a served icon's) are pointed to it.
        let origin = PolicyServer.reachable(host: spec.host, port: spec.port)
        if !policyServerAtItsAddress { spec.port = 0 }
        let server: PolicyServer
        do {
            server = try PolicyServer(spec, namedAs: origin)
        } catch {
            throw EmulatorConfigurationError(path: "$.policyServer", reason: error.description)
        }
        configuration.policyUpdate.url = server.url
        // As core does, unless the scenario's emulator says otherwise (a scenario that checks
        // the default policy first would race the update).
        if scenario.emulator?["policyUpdate"]?["startsForNewApps"] == nil { configuration.policyUpdate.startsForNewApps = true }
        var emulator = target(configuration: configuration)
        let finish = emulator.finish
        emulator.finish = {
            await finish()
            server.stop()
        }
        emulator.startsPolicyServer = true
        return emulator
    }

    /// A fresh emulator with `configuration`, reached through an in-memory link.
    public static func target(configuration: EmulatorConfiguration) -> ScenarioTarget {
        let emulator = HeadUnitEmulator(configuration: configuration)
        return ScenarioTarget(
            name: "embedded emulator",
            makeTransport: {
                let (app, headUnit) = MemoryTransport.pair()
                Task {
                    await emulator.listenForSecondaryIfNeeded()
                    await emulator.serve(headUnit)
                }
                return app
            },
            driver: ControlCommandDriver(hmi: { await emulator.hmiMessages() }) { command in await emulator.control(command) },
            finish: { await emulator.stop() })
    }
}

/// Performs scenario `driver` steps as emulator control commands, in process or over the
/// emulator's control channel (`sdl-run emulate --control`), so both behave the same.
public struct ControlCommandDriver: ScenarioDriver {
    let execute: @Sendable (JSONObject) async throws -> JSONObject
    let hmi: (@Sendable () async -> AsyncStream<HMIMessage>)?

    /// `hmi` gives what the emulator's HMI is sent, where the driver can see it (in process).
    public init(hmi: (@Sendable () async -> AsyncStream<HMIMessage>)? = nil,
                execute: @escaping @Sendable (JSONObject) async throws -> JSONObject) {
        self.execute = execute
        self.hmi = hmi
    }

    public func hmiMessages() async -> AsyncStream<HMIMessage>? { await hmi?() }

    /// The control command for a scenario driver action: the short form's value goes to the
    /// action's shorthand parameter; setVehicleData's arguments are the values.
    static func command(for action: DriverAction) -> JSONObject {
        var command = action.namedArguments
        command["action"] = .string(action.name)
        return command
    }

    /// From the emulator's snapshot: the newest app's recording of the stream.
    public func recording(of service: String) async -> String? {
        let apps = (try? await execute(["action": "snapshot"]))?["snapshot"]?["apps"]?.arrayValue ?? []
        return apps.reversed().lazy.compactMap { $0["streams"]?[service]?["recording"]?.stringValue }.first
    }

    public func perform(_ action: DriverAction) async throws {
        let answer = try await execute(Self.command(for: action))
        guard answer["ok"]?.boolValue == true else {
            throw DriverError(message: answer["error"]?.stringValue ?? "the emulator refused \(action.name)")
        }
    }
}

/// The emulator's control channel over TCP: one JSON line per command, one answer line each.
/// An actor, so each answer line belongs to the command just written.
public actor ControlChannelClient {
    private let socket: TCPTransport
    private var buffer: [UInt8] = []
    private var closed = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// Connects to the control channel at `endpoint` (`HOST:PORT`).
    public init(endpoint: String) async throws {
        socket = try TCPTransport(endpoint: endpoint, connectTimeout: .seconds(5))
        try await socket.open()
        let incoming = socket.incoming
        Task { [weak self] in
            do {
                for try await chunk in incoming { await self?.received(chunk) }
            } catch {}
            await self?.received(nil)
        }
    }

    private func received(_ chunk: [UInt8]?) {
        if let chunk { buffer.append(contentsOf: chunk) } else { closed = true }
        waiter?.resume()
        waiter = nil
    }

    /// Sends one command and returns the emulator's answer line.
    public func send(_ command: JSONObject) async throws -> JSONObject {
        try await socket.send(JSONValue.object(command).serializedBytes() + [0x0A])
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try JSONValue.parse(line).objectValue ?? [:]
            }
            if closed { throw DriverError(message: "the control channel closed") }
            await withCheckedContinuation { waiter = $0 }
        }
    }

    /// Closes the connection.
    public func close() async { await socket.close() }
}

extension DriverAction {
    /// The arguments under the names of the action's parameters (`DriverActionSpec`): the
    /// short form's value under its parameter (`{"typeOnKeyboard": "Ber"}` → text), a soft
    /// button's `id` as `softButtonID`, and setVehicleData's bare values under `values`.
    public var namedArguments: JSONObject {
        var named = arguments
        if name == "setVehicleData", named["values"] == nil, named["name"] == nil {
            named = ["values": .object(arguments.filter { $0.key != "appID" })]
            if let appID = arguments["appID"] { named["appID"] = appID }
        }
        if let shorthand = HeadUnitEmulator.driverAction(named: name)?.shorthand,
           let value = named.removeValue(forKey: "value") ?? (name == "pressSoftButton" ? named.removeValue(forKey: "id") : nil) {
            named[shorthand] = value
        }
        return named
    }
}

extension HeadUnitEmulator {
    /// What this emulator's HMI is sent from now on (`HMIView`), as scenario HMI messages.
    func hmiMessages() -> AsyncStream<HMIMessage> {
        let events = events()
        return AsyncStream { continuation in
            let forward = Task {
                for await event in events {
                    if case .hmiMessage(_, let method, let parameters) = event {
                        continuation.yield(HMIMessage(method: method, params: parameters))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }
}

extension ControlCommandDriver {
    /// The driver of `sdl-run emulate` at `endpoint`: commands over one connection, and what
    /// its HMI is sent read over a second one (`hmiMessages`, waiting up to a second a time),
    /// so an answer that waits never holds up a driver step.
    public static func remote(_ endpoint: String) async throws -> ControlCommandDriver {
        let client = try await ControlChannelClient(endpoint: endpoint)
        return ControlCommandDriver(hmi: {
            AsyncStream { continuation in
                let reader = Task {
                    guard let hmi = try? await ControlChannelClient(endpoint: endpoint) else { return continuation.finish() }
                    // From what comes next: the run's own messages, not an earlier run's.
                    var next = (try? await hmi.send(["action": "hmiMessages", "since": .int(Int64.max / 2)]))?["next"]?.intValue ?? 0
                    while !Task.isCancelled {
                        guard let answer = try? await hmi.send(["action": "hmiMessages", "since": .int(next), "waitMs": 1000]) else { break }
                        for message in answer["messages"]?.arrayValue ?? [] {
                            guard let method = message["method"]?.stringValue else { continue }
                            continuation.yield(HMIMessage(method: method, params: message["params"]?.objectValue ?? [:]))
                        }
                        next = answer["next"]?.intValue ?? next
                    }
                    await hmi.close()
                    continuation.finish()
                }
                continuation.onTermination = { _ in reader.cancel() }
            }
        }) { try await client.send($0) }
    }
}

/// A driver step the emulator could not perform.
public struct DriverError: Error, CustomStringConvertible {
    /// What the emulator said.
    public var message: String
    public var description: String { message }
}
