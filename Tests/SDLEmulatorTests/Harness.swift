@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// A configuration whose emulated time runs 100 times faster.
func fastConfiguration(_ change: (inout EmulatorConfiguration) -> Void = { _ in }) -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration.standard
    configuration.timeScale = 0.01
    change(&configuration)
    return configuration
}

struct TestTimeout: Error, CustomStringConvertible {
    var description: String
}

/// Buffers what the head unit sends an app so tests can await "the next X".
actor Inbox {
    private var buffer: [RPCEnvelope] = []
    private var waiters: [Int: (name: String, continuation: CheckedContinuation<RPCEnvelope, any Error>)] = [:]
    private var nextID = 0

    func add(_ envelope: RPCEnvelope) {
        let name = Self.name(envelope)
        if let (id, waiter) = waiters.first(where: { $0.value.name == name }) {
            waiters[id] = nil
            waiter.continuation.resume(returning: envelope)
        } else {
            buffer.append(envelope)
        }
    }

    static func name(_ envelope: RPCEnvelope) -> String {
        let base = RPCRegistry.functionName(forID: envelope.functionID) ?? "Function\(envelope.functionID)"
        return envelope.messageType == .response ? base + "Response" : base
    }

    /// The next message named `name` (responses get a "Response" suffix), waiting up to `timeout`.
    func next(_ name: String, timeout: Duration = .seconds(5)) async throws -> RPCEnvelope {
        if let index = buffer.firstIndex(where: { Self.name($0) == name }) { return buffer.remove(at: index) }
        let id = nextID
        nextID += 1
        return try await withCheckedThrowingContinuation { continuation in
            waiters[id] = (name, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.continuation.resume(throwing: TestTimeout(description: "no \(waiter.name) within the time limit"))
    }

    /// Buffered messages named `name`, removed.
    func take(_ name: String) -> [RPCEnvelope] {
        let found = buffer.filter { Self.name($0) == name }
        buffer.removeAll { Self.name($0) == name }
        return found
    }
}

/// An app driven through the project's own SDLConnection.
struct TestApp {
    let connection: SDLConnection
    let inbox: Inbox

    static func connect(_ headUnit: HeadUnitEmulator) async throws -> TestApp {
        try await start(SDLConnection(transport: await headUnit.connectInMemory()))
    }

    static func connectTCP(port: UInt16) async throws -> TestApp {
        try await start(SDLConnection(transport: TCPTransport(host: "127.0.0.1", port: port)))
    }

    static func connect(over transport: any SDLTransport, configuration: SDLConnection.Configuration = .init()) async throws -> TestApp {
        try await start(SDLConnection(transport: transport, configuration: configuration))
    }

    private static func start(_ connection: SDLConnection) async throws -> TestApp {
        try await connection.start()
        let inbox = Inbox()
        let messages = await connection.messages()
        Task {
            for await message in messages { await inbox.add(message) }
        }
        return TestApp(connection: connection, inbox: inbox)
    }

    func request(_ name: String, _ parameters: JSONObject = [:], bulkData: [UInt8] = [], timeout: Duration? = nil) async throws -> RPCEnvelope {
        try await connection.request(functionID: (RPCRegistry.functionID(forName: name) ?? 0), functionName: name, parameters: parameters,
                                     bulkData: bulkData, timeout: timeout)
    }

    static func registration(name: String, appID: String, media: Bool = false) -> JSONObject {
        [
            "syncMsgVersion": ["majorVersion": 8, "minorVersion": 0, "patchVersion": 0], "appName": .string(name),
            "isMediaApplication": .bool(media), "languageDesired": "EN-US", "hmiDisplayLanguageDesired": "EN-US",
            "appID": .string(appID),
        ]
    }

    /// Registers and consumes the OnHMIStatus(NONE) and OnPermissionsChange that follow, and
    /// the display pushed to an app of RPC 5.1 or later.
    @discardableResult
    func register(name: String = "Test App", appID: String = "app-1", media: Bool = false, extra: JSONObject = [:]) async throws -> RPCEnvelope {
        var parameters = Self.registration(name: name, appID: appID, media: media)
        parameters.merge(extra) { _, new in new }
        let response = try await request("RegisterAppInterface", parameters)
        if response.success == true {
            _ = try await next("OnHMIStatus")
            _ = try await next("OnPermissionsChange")
            let version = parameters["syncMsgVersion"]
            if ((version?["majorVersion"]?.intValue ?? 0), (version?["minorVersion"]?.intValue ?? 0)) >= (5, 1) {
                _ = try await next("OnSystemCapabilityUpdated")
            }
        }
        return response
    }

    func next(_ name: String, timeout: Duration = .seconds(5)) async throws -> RPCEnvelope {
        try await inbox.next(name, timeout: timeout)
    }

    /// A round trip, so that anything the head unit sent before has arrived.
    func sync() async throws {
        _ = try await request("ListFiles")
    }
}

/// Registers an app and brings it to FULL.
func activeApp(_ headUnit: HeadUnitEmulator, name: String = "Test App", appID: String = "app-1", media: Bool = false) async throws -> TestApp {
    let app = try await TestApp.connect(headUnit)
    try await app.register(name: name, appID: appID, media: media)
    try await headUnit.activateApp(appID)
    _ = try await app.next("OnHMIStatus")
    return app
}

extension RPCEnvelope {
    subscript(key: String) -> JSONValue? { parameters[key] }
}
