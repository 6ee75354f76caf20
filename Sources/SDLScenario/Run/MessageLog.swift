public import SmartDeviceLink

/// Something the head unit sent or the links did, with its place in the run.
public struct Logged<Entry: Sendable>: Sendable {
    /// Its place in the log, from 0.
    public var index: Int
    /// Milliseconds since the scenario started.
    public var timeMS: Double
    /// What was logged.
    public var entry: Entry
    /// Which of the scenario's apps it is about (its `as` name), in a scenario with several.
    public var app: String?

    /// An entry at `index`, `timeMS` into the scenario, of `app` when the scenario has several.
    public init(index: Int, timeMS: Double, entry: Entry, app: String? = nil) {
        (self.index, self.timeMS, self.entry, self.app) = (index, timeMS, entry, app)
    }
}

/// `[player] `: how the console and the logs show whose a line is, in a scenario with several
/// apps; nothing for a scenario of one.
func appTag(_ app: String?) -> String {
    app.map { "[\($0)] " } ?? ""
}

/// A message received from the head unit, with its place in the run.
public typealias LoggedMessage = Logged<RPCEnvelope>

extension Logged where Entry == RPCEnvelope {
    /// The message.
    public var envelope: RPCEnvelope { entry }
}

/// Every message the head unit sent during a run, in order, with a way to wait for one.
typealias MessageLog = EventLog<RPCEnvelope>

/// What happened during a run (messages, transport events), in order, with a way to wait.
///
/// Expectations search the log rather than a live stream, so a notification that arrives
/// before its `expect` step starts (the usual case right after an action) is never missed.
actor EventLog<Entry: Sendable> {
    private(set) var messages: [Logged<Entry>] = []
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    private let start: ContinuousClock.Instant

    init(start: ContinuousClock.Instant) { self.start = start }

    var count: Int { messages.count }

    /// Logs `entry` and returns it with its place and time. `report` sees it first, before
    /// anyone waiting on the log: whoever finds it in the log knows it has been reported.
    @discardableResult
    func append(_ entry: Entry, app: String? = nil, report: (@Sendable (Logged<Entry>) -> Void)? = nil) -> Logged<Entry> {
        let logged = Logged(index: messages.count, timeMS: (ContinuousClock.now - start).milliseconds, entry: entry, app: app)
        report?(logged)
        messages.append(logged)
        let woken = waiters
        waiters.removeAll()
        for (_, waiter) in woken { waiter.resume() }
        return logged
    }

    /// Entries from `index` on.
    func messages(from index: Int) -> ArraySlice<Logged<Entry>> {
        messages[min(index, messages.count)...]
    }

    /// Waits until a new message arrives or `deadline` passes.
    func waitForMore(than count: Int, until deadline: ContinuousClock.Instant) async {
        guard messages.count <= count else { return }
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task {
            try? await Task.sleep(until: deadline)
            self.wake(id)
        }
        // A stopped run (see RunStop) cancels its steps: the wait ends then too, not at its deadline.
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { return continuation.resume() }
                waiters[id] = continuation
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
        timer.cancel()
    }

    private func wake(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }
}

extension EventLog {
    /// Waits until an entry (of `app`, when given) satisfies `condition` or `deadline` passes;
    /// returns whether one did.
    @discardableResult
    func waitFor(until deadline: ContinuousClock.Instant, app: String?? = nil, _ condition: (Entry) -> Bool) async -> Bool {
        while !messages.contains(where: { (app == nil || $0.app == app!) && condition($0.entry) }) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            await waitForMore(than: messages.count, until: deadline)
        }
        return true
    }

    /// Waits until the entries so far satisfy `condition` or `deadline` passes; returns whether they did.
    @discardableResult
    func waitUntil(_ deadline: ContinuousClock.Instant, _ condition: ([Entry]) -> Bool) async -> Bool {
        while !condition(messages.map(\.entry)) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            await waitForMore(than: messages.count, until: deadline)
        }
        return true
    }
}

extension EventLog where Entry == TransportEvent {
    /// Whether the primary link is up: connected, and not lost since.
    static func primaryUp(_ events: [TransportEvent]) -> Bool {
        let connected = events.lastIndex { if case .primaryConnected = $0 { true } else { false } }
        let lost = events.lastIndex { if case .primaryLost = $0 { true } else { false } }
        guard let connected else { return false }
        return lost.map { $0 < connected } ?? true
    }
}

extension EventLog where Entry == RPCEnvelope {
    /// Waits until the response with `correlationID` is in the log (it reaches the caller
    /// of the request first), so the log and the console keep the wire's order; returns its index.
    @discardableResult
    func waitForResponse(correlationID: Int32, app: String? = nil, until deadline: ContinuousClock.Instant) async -> Int? {
        func index() -> Int? {
            messages.lastIndex { $0.app == app && $0.envelope.messageType == .response && $0.envelope.correlationID == correlationID }
        }
        while index() == nil && ContinuousClock.now < deadline && !Task.isCancelled {
            await waitForMore(than: messages.count, until: deadline)
        }
        return index()
    }
}

extension Duration {
    var milliseconds: Double { seconds * 1000 }
}
