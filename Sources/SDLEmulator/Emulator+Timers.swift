/// Emulated time: delays scaled by the configuration's time scale, on the injected clock.
extension HeadUnitEmulator {
    /// Runs `action` after `ms` emulated milliseconds; returns a token for ``cancelTimer(_:)``.
    /// `ms` nil: no timer, only a token for something that ends otherwise.
    @discardableResult
    func after(_ ms: Int?, _ action: @escaping @Sendable (isolated HeadUnitEmulator) -> Void) -> Int {
        let token = nextToken
        nextToken += 1
        guard let ms else { return token }
        let delay = configuration.scaled(ms)
        let clock = self.clock
        timers[token] = Task { [weak self] in
            guard (try? await clock.sleep(for: delay)) != nil, let self else { return }
            await self.fire(token, action)
        }
        return token
    }

    private func fire(_ token: Int, _ action: @Sendable (isolated HeadUnitEmulator) -> Void) {
        guard timers.removeValue(forKey: token) != nil else { return }
        action(self)
    }

    func cancelTimer(_ token: Int) {
        timers.removeValue(forKey: token)?.cancel()
    }

    func newToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
