import SDLEmulator
import SmartDeviceLink
import Testing

/// A bench runs thousands of scenarios in one process: nothing a run made may outlive it.
@Suite("Nothing outlives its connection or its manager")
struct LifetimeTests {
    /// Waits until `isGone` holds; false after `limit` (the object was kept alive).
    private func eventually(within limit: Duration = .seconds(5), _ isGone: @Sendable () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await isGone() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await isGone()
    }

    @Test("a started connection dropped without stop() is freed, and its link closes for the head unit")
    func droppedConnection() async throws {
        let emulator = HeadUnitEmulator()
        weak var dropped: SDLConnection?
        do {
            let connection = SDLConnection(transport: await emulator.connectInMemory())
            try await connection.start()
            dropped = connection
        }
        let gone = await eventually { [dropped] in dropped == nil }
        #expect(gone, "the connection's reader and writer tasks keep it alive")
        // The head unit sees the link close, as when a phone goes away.
        let closed = await eventually { await emulator.snapshot().connections == 0 }
        #expect(closed, "the head unit still holds the link of a connection that no longer exists")
    }

    @Test("a registered manager dropped without stop() is freed with its managers' listeners")
    func droppedManager() async throws {
        let emulator = HeadUnitEmulator()
        weak var dropped: SDLManager?
        weak var droppedMenu: MenuManager?
        do {
            let manager = SDLManager(configuration: configuration(emulator, appID: "lifetime-1"))
            try await manager.start()
            dropped = manager
            droppedMenu = manager.screenManager.menu
        }
        let gone = await eventually { [dropped, droppedMenu] in dropped == nil && droppedMenu == nil }
        #expect(gone, "the manager or its menu manager is kept alive after the app dropped it")
        let closed = await eventually { await emulator.snapshot().connections == 0 }
        #expect(closed)
    }
}
