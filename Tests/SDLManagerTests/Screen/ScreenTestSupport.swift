import SDLEmulator
import SmartDeviceLink
import Testing

/// A channel over a real SDLManager that remembers every request the managers send, so a
/// test can assert on the exact RPCs.
actor RecordingChannel: RPCChannel {
    let base: SDLManager
    private(set) var sent: [(name: String, parameters: JSONObject)] = []

    init(base: SDLManager) {
        self.base = base
    }

    func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response {
        sent.append((Request.functionName, request.json.objectValue ?? [:]))
        return try await base.send(request, timeout: timeout)
    }

    nonisolated func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification> {
        await base.notifications(type)
    }

    /// Names of the requests sent since `mark` (a count of `sent` taken earlier).
    func names(since mark: Int = 0) -> [String] { sent[mark...].map(\.name) }
    func requests(_ name: String) -> [JSONObject] { sent.filter { $0.name == name }.map(\.parameters) }
}

/// An emulator, a registered app in FULL, and a screen manager that records its requests.
struct ScreenRig {
    let emulator: HeadUnitEmulator
    let manager: SDLManager
    let channel: RecordingChannel
    let screen: ScreenManager
    let appID: String

    static func start(_ appID: String, media: Bool = false, change: (inout EmulatorConfiguration) -> Void = { _ in }) async throws -> ScreenRig {
        var settings = EmulatorConfiguration.standard
        settings.timeScale = 0.02
        change(&settings)
        let emulator = HeadUnitEmulator(configuration: settings)
        let manager = SDLManager(configuration: configuration(emulator, appID: appID) { $0.isMedia = media })
        try await manager.start()
        try await emulator.activateApp(appID)
        _ = await manager.firstNonNoneHMILevel()
        let channel = RecordingChannel(base: manager)
        let screen = ScreenManager(channel: channel, fileManager: manager.fileManager, systemCapabilityManager: manager.systemCapabilityManager)
        return ScreenRig(emulator: emulator, manager: manager, channel: channel, screen: screen, appID: appID)
    }

    func app() async -> AppSnapshot {
        await emulator.snapshot().apps.first { $0.appID == appID }!
    }

    /// Polls the emulator until `condition` holds (a few seconds at most); false if it never did.
    func waitUntil(_ condition: (AppSnapshot) -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition(await app()) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The cmdID the emulator stored for a menu title.
    func commandID(_ title: String) async -> Int? {
        await app().commands.first { $0.value.menuParams?.menuName == title }?.key
    }

    func stop() async {
        await manager.stop()
    }
}

/// Collects values handed to handlers.
actor Collected<Value: Sendable> {
    private(set) var values: [Value] = []
    func add(_ value: Value) { values.append(value) }

    /// Waits (a few seconds at most) until `count` values arrived.
    func wait(for count: Int) async -> [Value] {
        for _ in 0..<500 where values.count < count {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return values
    }
}

/// A small PNG-like payload; the emulator stores any bytes.
let testArtwork = SDLFile.artwork(Array(repeating: 0x42, count: 300))

extension EmulatorConfiguration {
    /// Changes one entry of the display capabilities the head unit reports.
    mutating func setDisplay(_ key: String, _ value: JSONValue) {
        var display = capabilities["displayCapabilities"]?.objectValue ?? [:]
        display[key] = value
        capabilities["displayCapabilities"] = .object(display)
    }
}
