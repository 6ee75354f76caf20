import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("SDLManager follows what the head unit does", .serialized)
struct HeadUnitEventsTests {
    @Test("after SetDisplayLayout the new template's capabilities replace the old; DISPLAYS is pushed to observers")
    func capabilitiesAfterLayoutChange() async throws {
        // A display that offers a graphic-only template (core's own hmi_capabilities.json does; sdl_hmi's does not).
        var settings = EmulatorConfiguration.standard
        var display = settings.capabilities["displayCapabilities"]?.objectValue ?? [:]
        display["templatesAvailable"] = .array((display["templatesAvailable"]?.arrayValue ?? []) + ["LARGE_GRAPHIC_ONLY"])
        settings.capabilities["displayCapabilities"] = .object(display)
        let emulator = HeadUnitEmulator(configuration: settings)
        let manager = SDLManager(configuration: configuration(emulator, appID: "layout-1"))
        try await manager.start()
        try await emulator.activateApp("layout-1")
        _ = await manager.firstNonNoneHMILevel()
        let capabilities = manager.systemCapabilityManager
        #expect(await capabilities.displayCapabilities?.textFields.contains { $0.name == .mainField1 } == true)
        let (displays, task) = Recorder.recording(await capabilities.updates(of: .displays))
        let response = try await manager.send(SetDisplayLayout(displayLayout: "LARGE_GRAPHIC_ONLY"), timeout: nil)
        #expect(response.success)
        #expect(await capabilities.displayCapabilities?.textFields.contains { $0.name == .mainField1 } == false,
                "a graphic-only template has no main text fields (core)")
        await displays.waitFor(1)
        #expect(await displays.values.first?.displayCapabilities?.first?.windowCapabilities?.first?.textFields?
            .contains { $0.name == .mainField1 } == false)
        let refused = try await manager.send(SetDisplayLayout(displayLayout: "NO_SUCH_TEMPLATE"), timeout: nil)
        #expect(refused.resultCode == .rejected, "sdl_hmi: the requested layout is not supported for this app type")
        #expect(await capabilities.displayCapabilities?.textFields.contains { $0.name == .mainField1 } == false, "unchanged")
        await manager.stop()
        task.cancel()
    }

    @Test("LANGUAGE_CHANGE: the handler picks the new configuration and the app registers again in the new language")
    func languageChange() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "lang-1"))
        await manager.setLanguageChangeHandler { language, _, current in
            var next = current
            next.appName = "Sprachen-App"
            next.language = language
            return next
        }
        try await manager.start()
        let (states, task) = Recorder.recording(await manager.states())
        try await emulator.unregisterApp("lang-1", reason: "LANGUAGE_CHANGE", language: ("DE-DE", "DE-DE"))
        await states.waitFor(5)
        #expect(await states.values.prefix(2) == [.ready, .reconnecting(attempt: 1)])
        #expect(await manager.state == .ready)
        #expect(await manager.configuration.language == .deDe)
        #expect(await emulator.snapshot().apps.contains { $0.appName == "Sprachen-App" })
        await manager.stop()
        task.cancel()
    }

    @Test("APP_UNAUTHORIZED stops the manager for good, with the reason")
    func unauthorized() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "unauth-1"))
        try await manager.start()
        let (states, task) = Recorder.recording(await manager.states())
        try await emulator.unregisterApp("unauth-1", reason: "APP_UNAUTHORIZED")
        await states.waitFor(2)
        #expect(await states.values == [.ready, .stopped])
        #expect("\(String(describing: await manager.lastError))".contains("APP_UNAUTHORIZED"))
        task.cancel()
    }
}

@Suite("Why the app is no longer registered")
struct UnregisteredReasonTests {
    @Test("after the head unit unregistered the app for TOO_MANY_REQUESTS, a request fails saying so, not 'not connected'")
    func tooManyRequestsIsNamed() async throws {
        var settings = EmulatorConfiguration.standard
        settings.floodLimit = (count: 20, ms: 60_000)
        let emulator = HeadUnitEmulator(configuration: settings)
        let manager = SDLManager(configuration: configuration(emulator, appID: "flood-1") {
            $0.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 0)
        })
        try await manager.start()
        var failure: SDLError?
        for _ in 0..<60 where failure == nil {
            do {
                _ = try await manager.send(ListFiles(), timeout: .seconds(2))
            } catch {
                failure = error
            }
        }
        #expect(failure != nil, "the head unit never unregistered the flooding app")
        // The request in flight may only see the link close; the next one knows why.
        for await state in await manager.states() where state == .stopped { break }
        do {
            _ = try await manager.send(ListFiles(), timeout: .seconds(2))
            Issue.record("a request after the unregistration succeeded")
        } catch {
            #expect(error.description == "connection lost: the head unit unregistered the app (TOO_MANY_REQUESTS)")
        }
    }
}
