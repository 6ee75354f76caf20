import SDLEmulator
@testable import SmartDeviceLink
import Testing

@Suite("Menu and voice commands against the emulator", .serialized)
struct MenuManagerTests {
    @Test("a new menu sends only the difference; picks by menu and by voice reach the handlers")
    func minimalUpdate() async throws {
        let rig = try await ScreenRig.start("menu-diff")
        let picks = Collected<String>()
        func cell(_ title: String, voice: [String]? = nil) -> MenuCell {
            MenuCell(title: title, voiceCommands: voice) { source in Task { await picks.add("\(title) \(source)") } }
        }
        let first = try await rig.screen.menu.setMenu([
            cell("Play", voice: ["play song"]), cell("Pause"),
            MenuCell(title: "Settings", subCells: [cell("Audio"), cell("Display")]),
        ])
        #expect(first.added == 5 && first.kept == 0 && first.failures.isEmpty)
        #expect(await rig.app().commands.count == 4)
        #expect(await rig.app().submenus.count == 1)

        try await rig.emulator.selectCommand(try #require(await rig.commandID("Play")), triggerSource: "VR")
        try await rig.emulator.selectCommand(try #require(await rig.commandID("Display")))
        // Each handler call records through a Task of its own, so the two may land in either order.
        #expect(Set(await picks.wait(for: 2)) == ["Play VR", "Display MENU"])

        let mark = await rig.channel.sent.count
        let second = try await rig.screen.menu.setMenu([
            cell("Play", voice: ["play song"]), cell("Stop"),
            MenuCell(title: "Settings", subCells: [cell("Audio"), cell("Display"), cell("Network")]),
        ])
        #expect(await rig.channel.names(since: mark) == ["DeleteCommand", "AddCommand", "AddCommand"],
                "Pause goes, Stop and Network come; Play, Settings, Audio and Display stay")
        #expect(second.kept == 4 && second.added == 2 && second.deleted == 1)
        let titles = Set(await rig.app().commands.values.compactMap { $0.menuParams?.menuName })
        #expect(titles == ["Play", "Stop", "Audio", "Display", "Network"])
        // The kept cell's handler is the new one; the deleted one's id is gone.
        try await rig.emulator.selectCommand(try #require(await rig.commandID("Network")))
        #expect(await picks.wait(for: 3).last == "Network MENU")
        await rig.stop()
    }

    @Test("repeated submenu titles become unique; commands only before RPC 7.1; repeated voice commands are refused before sending",
          arguments: [(ProtocolVersion(8, 0, 0), false), (ProtocolVersion(7, 0, 0), true)])
    func uniqueness(rpc: ProtocolVersion, commandsRenamed: Bool) async throws {
        let rig = try await ScreenRig.start("menu-unique-\(rpc.major)") { $0.rpcSpecVersion = rpc }
        let report = try await rig.screen.menu.setMenu([
            MenuCell(title: "Song"), MenuCell(title: "Song"),
            MenuCell(title: "Lists", subCells: [MenuCell(title: "A")]), MenuCell(title: "Lists", subCells: [MenuCell(title: "B")]),
        ])
        #expect(report.failures.isEmpty, "without unique names the second submenu would be DUPLICATE_NAME")
        #expect(Set(await rig.app().submenus.values.map(\.menuName)) == ["Lists", "Lists (2)"])
        let commands = await rig.app().commands.values.compactMap { $0.menuParams?.menuName }.sorted()
        #expect(commands == (commandsRenamed ? ["A", "B", "Song", "Song (2)"] : ["A", "B", "Song", "Song"]))

        let mark = await rig.channel.sent.count
        await #expect(throws: ManagerError.self) {
            try await rig.screen.menu.setMenu([MenuCell(title: "One", voiceCommands: ["go"]), MenuCell(title: "Two", voiceCommands: ["Go"])])
        }
        #expect(await rig.channel.names(since: mark).isEmpty)
        await rig.stop()
    }

    @Test("icons are uploaded first; without graphics support cells go out without them")
    func icons() async throws {
        let rig = try await ScreenRig.start("menu-icons")
        try await rig.screen.menu.setMenu([MenuCell(title: "Art", icon: testArtwork)])
        #expect(await rig.app().files.contains(testArtwork.name))
        #expect(await rig.app().commands.values.first?.cmdIcon?.value == testArtwork.name)
        await rig.stop()

        let plain = try await ScreenRig.start("menu-no-graphics") {
            $0.setDisplay("graphicSupported", false)
        }
        try await plain.screen.menu.setMenu([MenuCell(title: "Art", icon: testArtwork)])
        #expect(await plain.app().commands.values.first?.cmdIcon == nil)
        #expect(await plain.app().files.isEmpty, "nothing uploaded that cannot be shown")
        await plain.stop()
    }

    @Test("voice commands: empty ones are not sent, changes send only the difference, VR picks reach the handler")
    func voiceCommands() async throws {
        let rig = try await ScreenRig.start("voice")
        let heard = Collected<String>()
        try await rig.screen.voiceCommands.setVoiceCommands([
            VoiceCommand(["next track", "skip"]) { Task { await heard.add("next") } },
            VoiceCommand(["", "  "]) { Task { await heard.add("never") } },
        ])
        #expect(await rig.channel.requests("AddCommand").count == 1)
        let stored = try #require(await rig.app().commands.first)
        #expect(stored.value.menuParams == nil, "voice only: no menu entry")
        try await rig.emulator.selectCommand(stored.key, triggerSource: "VR")
        #expect(await heard.wait(for: 1) == ["next"])

        let mark = await rig.channel.sent.count
        try await rig.screen.voiceCommands.setVoiceCommands([
            VoiceCommand(["next track", "skip"]) { Task { await heard.add("next") } },
            VoiceCommand(["previous"]) { Task { await heard.add("previous") } },
        ])
        #expect(await rig.channel.names(since: mark) == ["AddCommand"])
        try await rig.screen.voiceCommands.setVoiceCommands([])
        #expect(await rig.app().commands.isEmpty)
        await rig.stop()
    }

    @Test("in HMI level NONE, where head units refuse menu RPCs, the menu waits until the app is shown")
    func waitsForHMILevel() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "menu-none"))
        try await manager.start()
        let menu = manager.screenManager.menu
        let update = Task { try await menu.setMenu([MenuCell(title: "Later")]) }
        for _ in 0..<500 where await menu.waitingUpdates < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await menu.waitingUpdates == 1, "the update waits for the HMI level")
        #expect(await emulator.snapshot().apps.first?.commands.isEmpty == true, "nothing sent in NONE")
        try await emulator.activateApp("menu-none")
        let report = try await update.value
        #expect(report.added == 1 && report.failures.isEmpty, "no DISALLOWED")
        #expect(await emulator.snapshot().apps.first?.commands.count == 1)
        await manager.stop()
    }

    @Test("the main menu layout: sent when the head unit offers it, refused before sending when it does not")
    func mainMenuLayout() async throws {
        let rig = try await ScreenRig.start("menu-layout") { $0.menuLayoutsAvailable = ["LIST"] }
        try await rig.screen.menu.setMainMenuLayout(.list)
        #expect(await rig.app().globalProperties["menuLayout"] == "LIST")
        await #expect(throws: ManagerError.unsupported("the main menu can be laid out as LIST, not TILES")) {
            try await rig.screen.menu.setMainMenuLayout(.tiles)
        }
        #expect(await rig.channel.requests("SetGlobalProperties").count == 1)
        await rig.stop()
    }

    @Test("stopping the manager ends updates that waited in NONE: they fail as not connected instead of hanging")
    func stopEndsWaiting() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "menu-stop"))
        try await manager.start()
        let menu = manager.screenManager.menu
        let update = Task { try await menu.setMenu([MenuCell(title: "Never shown")]) }
        let text = Task { try await manager.screenManager.textAndGraphics.update { $0.textField1 = "Never shown" } }
        for _ in 0..<500 where await menu.waitingUpdates < 1 { try await Task.sleep(for: .milliseconds(10)) }
        await manager.stop()
        let report = try await update.value
        #expect(report.added == 0 && report.failures["Never shown"] != nil)
        await #expect {
            _ = try await text.value
        } throws: { error in
            guard case ManagerError.link(let why) = error else { return false }
            return why.contains("not connected")
        }
    }
}
