import SDLEmulator
import SmartDeviceLink
import Testing

/// Several apps on one link, a session each (``SharedLink``), as sdl_java_suite's router service.
@Suite("Apps sharing one link")
struct SharedLinkTests {
    @Test("two apps register on one link as sessions 1 and 2; one leaving keeps the link for the other; the link dropping ends both")
    func twoAppsOneLink() async throws {
        let emulator = HeadUnitEmulator()
        let links = Locked<[MemoryTransport]>([])
        let shared = SharedLink(kind: .usb) {
            let (app, headUnit) = MemoryTransport.pair()
            links.withLock { $0.append(app) }
            Task { await emulator.serve(headUnit) }
            return app
        }
        func app(_ name: String) -> SDLManager {
            SDLManager(configuration: configuration(emulator, name: name, appID: name.lowercased()) {
                $0.transports = [TransportChoice("USB") { shared.session(name) }]
                $0.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 0)
            })
        }
        let player = app("Player"), radio = app("Radio")
        async let first: Void = player.start()
        async let second: Void = radio.start()
        _ = try await (first, second)
        let apps = await emulator.snapshot().apps
        #expect(Set(apps.map(\.sessionID)) == [1, 2], "one connection, two sessions: \(apps.map(\.sessionID))")
        #expect(links.withLock { $0.count } == 1, "one link")

        await radio.stop()
        try await emulator.activateApp("player")
        #expect(try await player.send(Show(mainField1: "Still here"), timeout: nil).resultCode == .success)
        #expect(await emulator.snapshot().apps.map(\.appID) == ["player"])

        let states = await player.states()
        if let link = links.withLock({ $0.first }) { await link.close() }  // the cable pulled
        for await state in states {
            if case .reconnecting = state { break }
            if state == .stopped { break }
        }
        #expect(await emulator.waitUntil(timeout: .seconds(5)) { $0.apps.isEmpty }, "the head unit saw the link go")
        await player.stop()
    }
}
