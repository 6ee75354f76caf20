@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// Widgets and the DISPLAYS capability, against what core 8.2 did with sdl_hmi 5.8.0 as its
/// HMI (a policy update granting WidgetSupport).
@Suite("Windows")
struct WindowTests {
    static func headUnit() -> HeadUnitEmulator {
        HeadUnitEmulator(configuration: fastConfiguration { configuration in
            for name in ["CreateWindow", "DeleteWindow"] { configuration.policy.defaultPermissions[name] = ["NONE", "BACKGROUND", "FULL", "LIMITED"] }
        })
    }

    static func widget(_ id: Int, _ name: String, _ extra: JSONObject = [:]) -> JSONObject {
        ["windowID": .int(Int64(id)), "windowName": .string(name), "type": "WIDGET"].merging(extra) { _, new in new }
    }

    /// The windows of a DISPLAYS capability: each window's id (nil: the main one, as core leaves it out).
    static func windowIDs(_ notification: RPCEnvelope) -> [Int64?] {
        let windows = notification["systemCapability"]?["displayCapabilities"]?.arrayValue?.first?["windowCapabilities"]?.arrayValue ?? []
        return windows.map { $0["windowID"]?.intValue }
    }

    @Test("registration brings the display of the app's template; a new template brings it again, the same one does not")
    func displaysOfTheTemplate() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        #expect(try await app.request("RegisterAppInterface", TestApp.registration(name: "Test App", appID: "app-1", media: true)).success == true)
        let pushed = try await app.next("OnSystemCapabilityUpdated")
        let media = try #require(Capabilities.coreDisplays["MEDIA"])
        #expect(pushed["systemCapability"]?["displayCapabilities"] == [.object(media)], "sdl_hmi's MEDIA display")
        #expect(Self.windowIDs(pushed) == [nil])
        try await headUnit.activateApp()
        #expect(try await app.request("Show", ["mainField1": "a", "templateConfiguration": ["template": "ONSCREEN_PRESETS"]]).success == true)
        let presets = try await app.next("OnSystemCapabilityUpdated")
        #expect(presets["systemCapability"]?["displayCapabilities"] == [.object(try #require(Capabilities.coreDisplays["ONSCREEN_PRESETS"]))])
        #expect(try await app.request("Show", ["mainField1": "b", "templateConfiguration": ["template": "ONSCREEN_PRESETS"]]).success == true)
        try await app.sync()
        #expect(await app.inbox.take("OnSystemCapabilityUpdated").isEmpty, "the template did not change")
        await headUnit.stop()
    }

    @Test("an app of RPC 5.0 gets no OnSystemCapabilityUpdated, which came with 5.1")
    func noPushBeforeItsVersion() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register(extra: ["syncMsgVersion": ["majorVersion": 5, "minorVersion": 0]])
        try await app.sync()
        #expect(await app.inbox.take("OnSystemCapabilityUpdated").isEmpty)
        await headUnit.stop()
    }

    @Test("CreateWindow: the window's OnHMIStatus NONE, SUCCESS, a new hash and the window's capabilities; DeleteWindow removes it")
    func createAndDelete() async throws {
        let headUnit = Self.headUnit()
        let app = try await activeApp(headUnit, media: true)
        let response = try await app.request("CreateWindow", Self.widget(1, "Now Playing"))
        #expect(response.resultCode == "SUCCESS")
        let status = try await app.next("OnHMIStatus")
        #expect(status["windowID"] == 1 && status["hmiLevel"] == "NONE")
        #expect(status["audioStreamingState"] == "AUDIBLE", "core copies the app's audio state into the window's")
        _ = try await app.next("OnHashChange")
        #expect(Self.windowIDs(try await app.next("OnSystemCapabilityUpdated")) == [1])
        let all = try await app.request("GetSystemCapability", ["systemCapabilityType": "DISPLAYS"])
        let listed = all["systemCapability"]?["displayCapabilities"]?.arrayValue?.first?["windowCapabilities"]?.arrayValue ?? []
        #expect(listed.map { $0["windowID"]?.intValue } == [nil, 1])
        #expect(await headUnit.snapshot().app("app-1")?.windows[1]?.windowName == "Now Playing")

        #expect(try await app.request("DeleteWindow", ["windowID": 1]).resultCode == "SUCCESS")
        _ = try await app.next("OnHashChange")
        #expect(await headUnit.snapshot().app("app-1")?.windows.isEmpty == true)
        #expect(try await app.request("DeleteWindow", ["windowID": 1]).resultCode == "INVALID_ID")
        #expect(try await app.request("DeleteWindow", ["windowID": 0]).resultCode == "INVALID_ID", "the main window stays")
        await headUnit.stop()
    }

    @Test("CreateWindow's refusals, in core's order and words", arguments: [
        (widget(1, "Again"), "INVALID_ID", nil),
        (widget(0, "Main"), "INVALID_ID", nil),
        (["windowID": 4, "windowName": "Main two", "type": "MAIN"], "INVALID_DATA", nil),
        (widget(5, "Copy", ["duplicateUpdatesFromWindowID": 9]), "INVALID_DATA", nil),
        (widget(2, "Widget"), "DUPLICATE_NAME", nil),
        (widget(3, "Test App"), "DUPLICATE_NAME", nil),
        (widget(8, "Media2", ["associatedServiceType": "MEDIA"]), "REJECTED", "Window for this associated service type is already created"),
    ] as [(JSONObject, String, String?)])
    func refusals(request: JSONObject, resultCode: String, info: String?) async throws {
        let headUnit = Self.headUnit()
        let app = try await activeApp(headUnit)
        #expect(try await app.request("CreateWindow", Self.widget(1, "Widget", ["associatedServiceType": "MEDIA"])).resultCode == "SUCCESS")
        let refused = try await app.request("CreateWindow", request)
        #expect(refused.resultCode == resultCode)
        #expect(refused["info"]?.stringValue == info)
        #expect(await headUnit.snapshot().app("app-1")?.windows.count == 1)
        await headUnit.stop()
    }

    @Test("the primary widget may carry the app's name; a 17th widget is one too many")
    func primaryWidgetAndLimit() async throws {
        let headUnit = Self.headUnit()
        let app = try await activeApp(headUnit)
        #expect(try await app.request("CreateWindow", Self.widget(1, "Test App")).resultCode == "SUCCESS")
        for id in 2...16 { #expect(try await app.request("CreateWindow", Self.widget(id, "W\(id)")).resultCode == "SUCCESS") }
        let seventeenth = try await app.request("CreateWindow", Self.widget(17, "W17"))
        #expect(seventeenth.resultCode == "REJECTED")
        #expect(seventeenth["info"] == "Maximum allowed amount of windows is exceeded")
        await headUnit.stop()
    }

    @Test("Show to a widget: checked at the widget's level, INVALID_ID for no such window, REJECTED for one that copies another")
    func showToWidgets() async throws {
        let headUnit = Self.headUnit()
        let app = try await activeApp(headUnit)
        _ = try await app.request("CreateWindow", Self.widget(1, "Own"))
        _ = try await app.request("CreateWindow", Self.widget(2, "Copy", ["duplicateUpdatesFromWindowID": 0]))
        for _ in 1...2 { #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "NONE") }
        #expect(try await app.request("Show", ["windowID": 1, "mainField1": "x"]).resultCode == "DISALLOWED", "a widget starts in NONE")
        #expect(try await app.request("Show", ["windowID": 9, "mainField1": "x"]).resultCode == "INVALID_ID")

        try await headUnit.showWidget(windowID: 1)
        try await headUnit.showWidget(windowID: 2)
        let levels = try await [app.next("OnHMIStatus"), app.next("OnHMIStatus"), app.next("OnHMIStatus"), app.next("OnHMIStatus")]
            .filter { $0["windowID"] == 1 }.map { $0["hmiLevel"]?.stringValue }
        #expect(levels == ["BACKGROUND", "FULL"], "added to the widget bar, then shown")
        #expect(try await app.request("Show", ["windowID": 1, "mainField1": "On the widget"]).resultCode == "SUCCESS")
        let copy = try await app.request("Show", ["windowID": 2, "mainField1": "x"])
        #expect(copy.resultCode == "REJECTED")
        #expect(copy["info"] == "Widget is duplicating other window. Rejecting UI.Show request.")
        #expect(try await app.request("Show", ["mainField1": "On the main window"]).resultCode == "SUCCESS")
        let windows = try #require(await headUnit.snapshot().app("app-1")?.windows)
        #expect(windows[1]?.show["mainField1"] == "On the widget")
        #expect(windows[2]?.show["mainField1"] == "On the main window", "sdl_hmi copies the main window's Show")
        #expect(await headUnit.snapshot().app("app-1")?.show["mainField1"] == "On the main window")

        try await headUnit.showWidget(windowID: 1, visible: false)
        let hidden = try await app.next("OnHMIStatus")
        #expect(hidden["windowID"] == 1 && hidden["hmiLevel"] == "BACKGROUND")
        await #expect(throws: EmulatorError.unknownWindow(7)) { try await headUnit.showWidget(windowID: 7) }
        await headUnit.stop()
    }
}
