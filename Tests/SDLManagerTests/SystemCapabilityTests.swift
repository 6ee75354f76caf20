import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("SystemCapabilityManager")
struct SystemCapabilityTests {
    @Test("registration fills the capabilities; GetSystemCapability reads and caches the rest")
    func fromRegistrationAndQueries() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "caps-1"))
        try await manager.start()
        let capabilities = manager.systemCapabilityManager
        #expect(await capabilities.displayCapabilities?.textFields.isEmpty == false)
        #expect(await capabilities.softButtonCapabilities?.isEmpty == false)
        #expect(await capabilities.supportsSubscriptions, "the emulator speaks RPC 8.0")
        let phone = try await capabilities.capability(.phoneCall)
        #expect(phone?.phoneCapability?.dialNumberEnabled == true)
        #expect(await capabilities.isCapabilitySupported(.phoneCall))
        let displays = try await capabilities.capability(.displays, refresh: true)
        #expect(displays?.displayCapabilities?.first?.windowCapabilities?.count == 1)
        #expect(displays?.displayCapabilities?.first?.windowCapabilities?.first?.windowID == nil, "core names the main window by no id")
        #expect(try await capabilities.capability(.seatLocation)?.seatLocationCapability?.rows == 2, "core's seat layout")
        #expect(try await capabilities.capability(.remoteControl) == nil, "DISALLOWED for an app that is not remote control reads as none")
        await manager.stop()
    }

    @Test("a new layout's capabilities replace the old ones; a failed layout changes nothing")
    func layoutChange() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "caps-2"))
        try await manager.start()
        let capabilities = manager.systemCapabilityManager
        let before = try #require(await capabilities.displayCapabilities)
        var graphicOnly = before
        graphicOnly.textFields = []
        graphicOnly.displayName = "LARGE_GRAPHIC_ONLY"
        await capabilities.update(layout: SetDisplayLayoutResponse(success: false, resultCode: .rejected, displayCapabilities: graphicOnly))
        #expect(await capabilities.displayCapabilities == before)
        await capabilities.update(layout: SetDisplayLayoutResponse(success: true, resultCode: .success, displayCapabilities: graphicOnly))
        #expect(await capabilities.displayCapabilities?.textFields == [])
        #expect(await capabilities.displayCapabilities?.displayName == "LARGE_GRAPHIC_ONLY")
        await manager.stop()
    }

    @Test("the head unit's display arrives by itself; a widget's pushed capabilities join the main window's")
    func windowsMerge() async throws {
        let emulator = HeadUnitEmulator(configuration: {
            var configuration = EmulatorConfiguration.standard
            configuration.policy.defaultPermissions["CreateWindow"] = ["NONE", "FULL"]
            return configuration
        }())
        let manager = SDLManager(configuration: configuration(emulator, appID: "caps-4"))
        let (displays, task) = Recorder.recording(await manager.systemCapabilityManager.updates(of: .displays))
        try await manager.start()
        let capabilities = manager.systemCapabilityManager
        await displays.waitFor(1)
        let main = try #require(await capabilities.defaultMainWindowCapability, "pushed after registration, no GetSystemCapability needed")
        #expect(main.textFields?.contains { $0.name == .mainField1 } == true)
        let created = try await manager.send(CreateWindow(windowID: 1, windowName: "Widget", type: .widget), timeout: nil)
        #expect(created.success)
        await displays.waitFor(2)
        #expect(await capabilities.windowCapability(1)?.windowID == 1)
        #expect(await capabilities.defaultMainWindowCapability == main, "the main window stays")
        await manager.stop()
        task.cancel()
    }

    @Test("a pushed OnSystemCapabilityUpdated reaches observers of that type only")
    func pushedUpdates() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "caps-3"))
        try await manager.start()
        let capabilities = manager.systemCapabilityManager
        let (phoneUpdates, task) = Recorder.recording(await capabilities.updates(of: .phoneCall))
        await capabilities.update(pushed: SystemCapability(systemCapabilityType: .navigation,
                                                           navigationCapability: NavigationCapability(sendLocationEnabled: true)))
        await capabilities.update(pushed: SystemCapability(systemCapabilityType: .phoneCall,
                                                           phoneCapability: PhoneCapability(dialNumberEnabled: false)))
        await phoneUpdates.waitFor(1)
        #expect(await phoneUpdates.values.map(\.systemCapabilityType) == [.phoneCall])
        #expect(try await capabilities.capability(.phoneCall)?.phoneCapability?.dialNumberEnabled == false, "served from the pushed value")
        await manager.stop()
        task.cancel()
    }
}
