import Synchronization

/// A request to end a run early: Ctrl-C, or SIGTERM from systemd, `sdl-run watch` or a farm
/// client that went away. The steps running are cancelled and the ones after them are not
/// run, but each app still unregisters, so the head unit does not keep it (a registration
/// left behind refuses the next run with APPLICATION_REGISTERED_ALREADY); the scenario is
/// reported ``ScenarioResult/Status/stopped``.
///
/// One value serves every scenario of a run, those running side by side too.
public final class RunStop: Sendable {
    private struct State {
        var reason: String?
        var running: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// A stop nobody requested yet.
    public init() {}

    /// Why the run was stopped ("SIGINT or SIGTERM"), once it was.
    public var reason: String? { state.withLock { $0.reason } }

    /// Stops the run: the steps running now are cancelled and no scenario starts after this.
    /// A second request changes nothing.
    public func request(_ reason: String) {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            return Array(state.running.values)
        }
        for cancel in cancels { cancel() }
    }

    /// Runs `body` in a task of its own that a request cancels; returns what it returned.
    func cancellable<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        let task = Task { await body() }
        let id = state.withLock { state -> Int? in
            guard state.reason == nil else { return nil }
            defer { state.nextID += 1 }
            state.running[state.nextID] = { task.cancel() }
            return state.nextID
        }
        if id == nil { task.cancel() }
        let value = await task.value
        if let id { _ = state.withLock { $0.running.removeValue(forKey: id) } }
        return value
    }
}
