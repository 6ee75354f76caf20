@testable import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Keyboard, app menu, CancelInteraction, DialNumber, SendLocation", .serialized)
struct EmulatorInteractionTests {
    /// Shows a keyboard and returns once the head unit has it.
    func keyboard(_ app: TestApp, layout: String = "KEYBOARD") async throws {
        _ = try await app.connection.post(functionID: PerformInteraction.functionID, parameters: [
            "initialText": "Type", "interactionMode": "MANUAL_ONLY", "interactionChoiceSetIDList": [],
            "interactionLayout": .string(layout), "cancelID": 5, "timeout": 100_000,
        ])
        try await app.sync()
    }

    @Test("key presses follow the app's keypress mode; submit answers with manualTextEntry")
    func keypressModes() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        try await keyboard(app)
        try await headUnit.typeOnKeyboard("ab")
        #expect(try await app.next("OnKeyboardInput")["data"] == "a")
        #expect(try await app.next("OnKeyboardInput")["data"] == "ab", "RESEND_CURRENT_ENTRY by default: the whole entry")
        try await headUnit.submitKeyboard()
        #expect(try await app.next("OnKeyboardInput")["event"] == "ENTRY_SUBMITTED")
        let answer = try await app.next("PerformInteractionResponse")
        #expect(answer.resultCode == "SUCCESS" && answer.parameters["manualTextEntry"] == "ab")

        _ = try await app.request("SetGlobalProperties", ["keyboardProperties": ["keypressMode": "SINGLE_KEYPRESS"]])
        try await keyboard(app)
        try await headUnit.typeOnKeyboard("xy")
        #expect(try await app.next("OnKeyboardInput")["data"] == "x")
        #expect(try await app.next("OnKeyboardInput")["data"] == "y")
        try await headUnit.abortKeyboard()
        #expect(try await app.next("OnKeyboardInput")["event"] == "ENTRY_ABORTED")
        #expect(try await app.next("PerformInteractionResponse").resultCode == "ABORTED")
        await #expect(throws: EmulatorError.noKeyboard) { try await headUnit.typeOnKeyboard("z") }
        await headUnit.stop()
    }

    @Test("an empty choice set list is for the keyboard only")
    func emptyListNeedsKeyboard() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let answer = try await app.request("PerformInteraction", [
            "initialText": "Pick", "interactionMode": "MANUAL_ONLY", "interactionChoiceSetIDList": [], "interactionLayout": "LIST_ONLY",
        ])
        #expect(answer.resultCode == "INVALID_DATA")
        await headUnit.stop()
    }

    @Test("CancelInteraction aborts the matching view; another function or cancel id is IGNORED")
    func cancel() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        try await keyboard(app)
        #expect(try await app.request("CancelInteraction", ["functionID": .int(Int64(Alert.functionID))]).resultCode == "IGNORED")
        #expect(try await app.request("CancelInteraction", ["functionID": .int(Int64(PerformInteraction.functionID)), "cancelID": 6]).resultCode == "IGNORED")
        #expect(try await app.request("CancelInteraction", ["functionID": .int(Int64(PerformInteraction.functionID)), "cancelID": 5]).resultCode == "SUCCESS")
        #expect(try await app.next("PerformInteractionResponse").resultCode == "ABORTED")
        #expect(try await app.request("CancelInteraction", ["functionID": .int(Int64(Show.functionID))]).resultCode == "INVALID_ID")
        await headUnit.stop()
    }

    @Test("ShowAppMenu: FULL only, known submenus only; picking a command closes the menu")
    func showAppMenu() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register()
        #expect(try await app.request("ShowAppMenu").resultCode == "DISALLOWED", "not in NONE by policy")
        try await headUnit.activateApp()
        _ = try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "One"]])
        #expect(try await app.request("ShowAppMenu", ["menuID": 9]).resultCode == "INVALID_ID")
        #expect(try await app.request("ShowAppMenu").resultCode == "SUCCESS")
        #expect(await headUnit.snapshot().apps[0].openMenuID == 0)
        #expect(await headUnit.snapshot().apps[0].systemContext == "MENU")
        try await headUnit.selectCommand(1)
        #expect(await headUnit.snapshot().apps[0].openMenuID == nil)
        #expect(await headUnit.snapshot().apps[0].systemContext == "MAIN")
        try await headUnit.exitApp()
        await #expect(throws: EmulatorError.self) { try await headUnit.openMenu() }
        await headUnit.stop()
    }

    @Test("a call DialNumber starts takes the screen and mutes every app until the driver hangs up, as core with sdl_hmi",
          arguments: [(true, ["LIMITED AUDIBLE", "LIMITED NOT_AUDIBLE"]), (false, ["BACKGROUND NOT_AUDIBLE"])])
    func phoneCall(media: Bool, statuses: [String]) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit, media: media)
        #expect(try await app.request("DialNumber", ["number": "5551234"]).resultCode == "SUCCESS")
        func status() async throws -> String {
            let next = try await app.next("OnHMIStatus")
            return "\(next["hmiLevel"]?.stringValue ?? "") \(next["audioStreamingState"]?.stringValue ?? "")"
        }
        for expected in statuses { #expect(try await status() == expected) }
        #expect(await headUnit.control(["action": "endCall"])["ok"] == true)
        if media { #expect(try await status() == "LIMITED AUDIBLE", "audible again where it is; the driver brings it back") }
        let again = await headUnit.control(["action": "endCall"])
        #expect(again["ok"] == false && again["error"]?.stringValue?.contains("no phone call is on") == true, "\(again)")
        await headUnit.stop()
    }

    @Test("DialNumber keeps what core keeps; no digits is INVALID_DATA; SendLocation needs a place")
    func phoneAndNavigation() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("DialNumber", ["number": "tel: +1 (555) 010-99#"]).resultCode == "SUCCESS")
        #expect(try await app.request("DialNumber", ["number": "abc"]).resultCode == "INVALID_DATA")
        #expect(await headUnit.snapshot().apps[0].dialedNumbers == ["+155501099#"])
        // core's order (send_location_request.cc): a text field the display lacks, then latitude
        // and longitude only together, and a place at all. sdl_hmi's display has locationName.
        #expect(try await app.request("SendLocation", ["locationName": "x", "latitudeDegrees": 1, "longitudeDegrees": 2]).resultCode == "SUCCESS")
        #expect(try await app.request("SendLocation", ["latitudeDegrees": 1]).resultCode == "INVALID_DATA")
        #expect(try await app.request("SendLocation", ["timeStamp": ["hour": 1, "minute": 2, "second": 3]]).resultCode == "INVALID_DATA")
        #expect(try await app.request("SendLocation", ["address": ["locality": "Berlin"]]).resultCode == "SUCCESS")
        await headUnit.stop()

        // core's own display (hmi_capabilities.json) has no locationName field.
        let withoutField = HeadUnitEmulator(configuration: fastConfiguration {
            var display = $0.capabilities["displayCapabilities"]?.objectValue ?? [:]
            display["textFields"] = .array((display["textFields"]?.arrayValue ?? []).filter { $0["name"] != "locationName" })
            $0.capabilities["displayCapabilities"] = .object(display)
        })
        let located = try await activeApp(withoutField)
        #expect(try await located.request("SendLocation", ["locationName": "x", "latitudeDegrees": 1, "longitudeDegrees": 2]).resultCode == "UNSUPPORTED_RESOURCE")
        await withoutField.stop()
    }
}
