import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("The screen after a reconnect", .serialized)
struct RestoreTests {
    func start(_ appID: String, resumption: Bool) async throws -> (HeadUnitEmulator, SDLManager) {
        var settings = EmulatorConfiguration.standard
        settings.resumptionEnabled = resumption
        let emulator = HeadUnitEmulator(configuration: settings)
        let manager = SDLManager(configuration: configuration(emulator, appID: appID))
        try await manager.start()
        try await emulator.activateApp(appID)
        _ = await manager.firstNonNoneHMILevel()
        return (emulator, manager)
    }

    func reconnect(_ emulator: HeadUnitEmulator, _ manager: SDLManager, appID: String) async throws {
        let (states, task) = Recorder.recording(await manager.states())
        try await emulator.dropTransport(appID: appID)
        var back = false
        for _ in 0..<500 {
            let seen = await states.values
            if seen.contains(where: { if case .reconnecting = $0 { true } else { false } }), seen.last == .ready {
                back = true
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        let seen = await states.values
        #expect(back, "\(seen)")
    }

    @Test("a head unit that did not resume the app gets its menu, voice commands, text and soft buttons again once it shows the app")
    func resendsWithoutResumption() async throws {
        let (emulator, manager) = try await start("restore-1", resumption: false)
        let screen = manager.screenManager
        let picked = Collected<String>()
        try await screen.menu.setMenu([MenuCell(title: "Home") { _ in Task { await picked.add("Home") } }])
        try await screen.voiceCommands.setVoiceCommands([VoiceCommand(["help me"]) {}])
        try await screen.textAndGraphics.update { $0.textField1 = "Hello" }
        try await screen.softButtons.setSoftButtons([SoftButtonObject(name: "ok", text: "OK")])

        try await reconnect(emulator, manager, appID: "restore-1")
        // Back in NONE the head unit refuses screen RPCs; the managers wait for the app to be shown.
        try await emulator.activateApp("restore-1")
        func app() async -> AppSnapshot? { await emulator.snapshot().apps.first { $0.appID == "restore-1" } }
        var restored = false
        for _ in 0..<500 {
            if let app = await app(), app.commands.count == 2, app.show["mainField1"] == "Hello", app.show["softButtons"] != nil {
                restored = true
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let final = await app()
        #expect(restored, "\(String(describing: final))")
        let home = try #require(await app()?.commands.first { $0.value.menuParams?.menuName == "Home" }?.key)
        try await emulator.selectCommand(home)
        #expect(await picked.wait(for: 1) == ["Home"], "the handler still answers after the reconnect")
        await manager.stop()
    }

    @Test("a head unit that resumed the app keeps its menu: nothing is sent again")
    func nothingResentAfterResumption() async throws {
        let (emulator, manager) = try await start("restore-2", resumption: true)
        // The hash id that makes resumption possible comes in OnHashChange after the
        // AddCommand response: a drop before the app has it re-registers without one.
        var hashes = await manager.notifications(OnHashChange.self).makeAsyncIterator()
        try await manager.screenManager.menu.setMenu([MenuCell(title: "Home")])
        _ = await hashes.next()
        let (events, task) = Recorder.recording(await emulator.events())
        try await reconnect(emulator, manager, appID: "restore-2")
        // An RPC after the reconnect marks the end of whatever the managers would resend.
        _ = try await manager.send(ListFiles(), timeout: nil)
        await events.waitFor(1)
        let received = await events.values.compactMap { event -> String? in
            if case .rpcReceived(_, let name, _) = event { return name }
            return nil
        }
        task.cancel()
        #expect(received.contains("ListFiles"))
        #expect(!received.contains("AddCommand"))
        #expect(await emulator.snapshot().apps.first?.commands.count == 1)
        await manager.stop()
    }
}
