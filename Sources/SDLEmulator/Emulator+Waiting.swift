import SmartDeviceLink

/// One caller of ``HeadUnitEmulator/waitUntil(timeout:_:)``.
struct StateWaiter {
    var id: Int
    var condition: @Sendable (EmulatorSnapshot) -> Bool
    var continuation: CheckedContinuation<Bool, Never>
}

extension HeadUnitEmulator {
    /// Returns true once the head unit's state satisfies `condition` (checked now and after
    /// everything an app sends), false when `timeout` passes first: a test waits for what
    /// it expects (a stream's bytes, an app registered) instead of polling the snapshot.
    public func waitUntil(timeout: Duration = .seconds(10), _ condition: @escaping @Sendable (EmulatorSnapshot) -> Bool) async -> Bool {
        if condition(snapshot()) { return true }
        let id = nextToken
        nextToken += 1
        let expiry = Task {
            try? await Task.sleep(for: timeout)
            self.expireWaiter(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { stateWaiters.append(StateWaiter(id: id, condition: condition, continuation: $0)) }
    }

    /// Wakes the waiters whose condition now holds; a snapshot is made only when someone waits.
    func stateChanged() {
        guard !stateWaiters.isEmpty else { return }
        let now = snapshot()
        let met = stateWaiters.filter { $0.condition(now) }
        stateWaiters.removeAll { waiter in met.contains { $0.id == waiter.id } }
        for waiter in met { waiter.continuation.resume(returning: true) }
    }

    private func expireWaiter(_ id: Int) {
        guard let index = stateWaiters.firstIndex(where: { $0.id == id }) else { return }
        stateWaiters.remove(at: index).continuation.resume(returning: false)
    }
}
