/// What an update sent, and what it left out because the head unit cannot show it.
public struct ScreenUpdateResult: Sendable, Equatable {
    /// The head unit's answer to the last request of the update (SUCCESS, WARNINGS...).
    public var resultCode: ResultCode
    /// The head unit's explanation, if any.
    public var info: String?
    /// Parts not sent, each with the reason (fewer soft buttons, no graphics...).
    public var skipped: [String]

    /// A result.
    public init(resultCode: ResultCode = .success, info: String? = nil, skipped: [String] = []) {
        self.resultCode = resultCode
        self.info = info
        self.skipped = skipped
    }
}

/// Runs one body at a time, first come first served. Across `await`s an actor lets other
/// calls in; this keeps updates of the same thing (a menu, the modal UI) from interleaving.
actor SerialQueue {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Bodies waiting for their turn.
    var waitingCount: Int { waiting.count }

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    nonisolated func run<T: Sendable, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }
}

/// What the screen managers share: one channel, the file and capability managers, and one
/// queue for modal UI, so the app's own alerts, choice sets and keyboards never overlap
/// (the head unit REJECTs a second modal request while one is shown).
struct ScreenContext: Sendable {
    let channel: any RPCChannel
    let files: SDLFileManager
    let capabilities: SystemCapabilityManager
    let modals = SerialQueue()
    let hmi = HMIWatch()

    /// Sends a request; a failed link becomes ``ManagerError/link(_:)``.
    func send<Request: RPCRequest>(_ request: Request) async throws(ManagerError) -> Request.Response {
        try await channel.managedSend(request)
    }

    /// Sends a request and throws its failure.
    @discardableResult
    func sendExpectingSuccess<Request: RPCRequest>(_ request: Request) async throws(ManagerError) -> Request.Response {
        try await channel.expectSuccess(request)
    }

    /// Whether the main display shows images. Unknown counts as yes: the head unit says so
    /// with UNSUPPORTED_RESOURCE if not.
    func graphicsSupported() async -> Bool {
        await capabilities.displayCapabilities?.graphicSupported ?? true
    }

    /// Uploads what is not on the head unit yet; returns the names it has afterwards. A
    /// failed upload leaves its name out (the caller then shows text only).
    func upload(_ files: [SDLFile]) async -> Set<String> {
        var unique: [String: SDLFile] = [:]
        for file in files { unique[file.name] = file }
        let results = await self.files.upload(Array(unique.values))
        return Set(results.compactMap { $0.value == nil ? $0.key : nil })
    }

    /// The RPC image of an uploaded file.
    static func image(_ file: SDLFile?, in available: Set<String>) -> Image? {
        guard let file, available.contains(file.name) else { return nil }
        return Image(value: file.name, imageType: .dynamic)
    }
}

extension Duration {
    /// Whole milliseconds, as RPC durations and timeouts are given.
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The main window's HMI level and system context, as the screen managers need them:
/// head units refuse screen RPCs in HMI level NONE (DISALLOWED), and changing the menu
/// while the user is in it (system context MENU) gives IN_USE.
actor HMIWatch {
    /// nil until the first OnHMIStatus: a manager made after the app was shown does not
    /// know, and does not wait.
    private(set) var level: HMILevel?
    private(set) var systemContext: SystemContext = .main
    private var waiters: [(ready: @Sendable (HMILevel?, SystemContext) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private var listening = false
    /// After the manager stopped nothing waits: there is no head unit to show the app.
    private var stopped = false

    func startListening(_ channel: any RPCChannel) async {
        guard !listening else { return }
        listening = true
        await channel.forEach(OnHMIStatus.self, on: self) { await $0.update($1) }
    }

    /// Returns once `ready` holds for the level and context.
    func wait(until ready: @escaping @Sendable (HMILevel?, SystemContext) -> Bool) async {
        guard !stopped, !ready(level, systemContext) else { return }
        await withCheckedContinuation { waiters.append((ready, $0)) }
    }

    /// Until the app is shown again and the user is out of the menu.
    func waitUntilScreenUsable() async {
        await wait { level, context in level != HMILevel.none && context != .menu }
    }

    /// Until the app is out of HMI level NONE.
    func waitUntilNotNone() async {
        await wait { level, _ in level != HMILevel.none }
    }

    /// Lets every waiter go, and later ones too, until the next registration (the link is
    /// gone for good).
    func releaseAll() {
        stopped = true
        let all = waiters
        waiters = []
        for waiter in all { waiter.continuation.resume() }
    }

    /// Registered again: waiting makes sense again.
    func registered() {
        stopped = false
    }

    /// A new registration starts in NONE.
    func reset() {
        stopped = false
        level = HMILevel.none
        systemContext = .main
    }

    private func update(_ status: OnHMIStatus) {
        guard status.windowID ?? 0 == 0 else { return }
        level = status.hmiLevel
        systemContext = status.systemContext
        let ready = waiters.filter { $0.ready(level, systemContext) }
        waiters.removeAll { $0.ready(level, systemContext) }
        for waiter in ready { waiter.continuation.resume() }
    }
}
