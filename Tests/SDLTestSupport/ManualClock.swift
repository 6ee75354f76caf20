import SmartDeviceLink

/// A clock that moves only when a test advances it: timeouts and heartbeats are tested
/// without sleeping and without asserting on wall-clock time.
package final class ManualClock: Clock, Sendable {
    package struct Instant: InstantProtocol {
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var id: Int
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private let state = Locked((now: Instant(offset: .zero), sleepers: [Int: Sleeper](), nextID: 0, watchers: [Watcher]()))

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }


    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers): (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let count = state.sleepers.count
                    let due = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return (nil, due)
                }
                for watcher in watchers { watcher.resume() }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks sleep on this clock: a test knows the code under
    /// test is parked on it (not merely slow) before it moves time. It also returns when the
    /// waiting task is cancelled, so a test's time limit ends a wait for a sleeper that never
    /// comes instead of hanging the run.
    package func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || state.sleepers.count >= count { return true }
                    state.watchers.append(Watcher(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> Watcher? in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.watchers.remove(at: index)
            }?.continuation.resume()
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
