@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// Behaviours `sdl-run compare` found on a real sdl_core 8.2 (built from source, 2026-11-25)
/// where the emulator answered differently, each with where core does it.
@Suite("The emulator answers as sdl_core 8.2 where compare showed it did not")
struct CoreParityTests {
    @Test("after the registration: OnHMIStatus NONE with windowID 0, the permissions, the lock screen icon's URL, the driver distraction state (register_app_interface_request.cc, SendDriverDistractionAndIconUrlNotifications)")
    func afterRegistration() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        _ = try await app.request("RegisterAppInterface", TestApp.registration(name: "Parity", appID: "parity-1"))
        let status = try await app.next("OnHMIStatus")
        #expect(status["hmiLevel"] == "NONE" && status["windowID"] == 0)
        _ = try await app.next("OnPermissionsChange")
        let icon = try await app.next("OnSystemRequest")
        #expect(icon["requestType"] == "LOCK_SCREEN_ICON_URL" && icon["url"]?.stringValue?.hasPrefix("http") == true)
        let distraction = try await app.next("OnDriverDistraction")
        #expect(distraction["state"] == "DD_OFF" && distraction["lockScreenDismissalEnabled"] == true)
        await headUnit.stop()
    }

    @Test("refusals core sends without info: a policy DISALLOWED, a command's DUPLICATE_NAME and INVALID_ID, DeleteFile of a missing file; a second subscription IGNORED in core's words")
    func refusals() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register(appID: "parity-2")
        let show = try await app.request("Show", ["mainField1": "in NONE"])
        #expect(show.resultCode == "DISALLOWED" && show["info"] == nil)
        let missing = try await app.request("DeleteFile", ["syncFileName": "nothing.png"])
        #expect(missing.resultCode == "REJECTED" && missing["info"] == nil)
        try await headUnit.activateApp("parity-2")
        _ = try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "Play"], "vrCommands": ["play"]])
        let duplicate = try await app.request("AddCommand", ["cmdID": 2, "menuParams": ["menuName": "Other"], "vrCommands": ["play"]])
        #expect(duplicate.resultCode == "DUPLICATE_NAME" && duplicate["info"] == nil)
        let unknown = try await app.request("DeleteCommand", ["cmdID": 9])
        #expect(unknown.resultCode == "INVALID_ID" && unknown["info"] == nil)
        _ = try await app.request("SubscribeVehicleData", ["speed": true])
        let again = try await app.request("SubscribeVehicleData", ["speed": true])
        #expect(again.resultCode == "IGNORED" && again["info"] == "Already subscribed on provided VehicleData.")
        await headUnit.stop()
    }

    @Test("every HMI result code reaches the app as core maps it (request_from_mobile_impl.cc, GetMobileResultCode)",
          arguments: CoreResults.hmiResultCodes.filter { $0 != "SUCCESS" })
    func hmiResultMapped(hmiResult: String) async throws {
        let renamed = ["DATA_NOT_AVAILABLE": "VEHICLE_DATA_NOT_AVAILABLE", "NO_APPS_REGISTERED": "APPLICATION_NOT_REGISTERED",
                       "NO_DEVICES_CONNECTED": "APPLICATION_NOT_REGISTERED", "TRUNCATED_DATA": "GENERIC_ERROR"]
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit, appID: "parity-map")
        try await headUnit.setHMIResult("UI.Show", resultCode: hmiResult, info: "from the HMI")
        let show = try await app.request("Show", ["mainField1": "mapped"])
        #expect(show.resultCode == renamed[hmiResult] ?? hmiResult && show["info"] == "from the HMI")
        await headUnit.stop()
    }

    @Test("a driver step with a mobile-only result code is refused: the HMI answers in HMI API codes")
    func hmiResultOnlyHMICodes() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        await #expect(throws: EmulatorError.self) { try await headUnit.setHMIResult("UI.Show", resultCode: "VEHICLE_DATA_NOT_AVAILABLE", info: nil) }
        await headUnit.stop()
    }

    @Test("a PutFile chunk whose crc does not match: CORRUPTED_DATA in core's words (put_file_request.cc)")
    func corruptedPutFile() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register(appID: "parity-crc")
        let corrupt = try await app.request("PutFile", ["syncFileName": "b.bin", "fileType": "BINARY", "crc": 1], bulkData: [1, 2])
        #expect(corrupt.resultCode == "CORRUPTED_DATA" && corrupt.success == false)
        #expect(corrupt["info"] == "CRC Check on file failed. File upload has been cancelled, please retry.")
        await headUnit.stop()
    }

    @Test("a typed keyboard answer carries triggerSource KEYBOARD (perform_interaction_request.cc)")
    func keyboardTriggerSource() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.connection.post(functionID: PerformInteraction.functionID, parameters: [
            "initialText": "Where?", "interactionMode": "MANUAL_ONLY", "interactionChoiceSetIDList": [],
            "interactionLayout": "KEYBOARD", "timeout": 100_000,
        ])
        try await app.sync()
        try await headUnit.submitKeyboard("Berlin")
        let answer = try await app.next("PerformInteractionResponse")
        #expect(answer["manualTextEntry"] == "Berlin" && answer["triggerSource"] == "KEYBOARD")
        await headUnit.stop()
    }

    /// An alert with soft buttons, then a second alert the HMI rejects, then a press of the
    /// first one's button.
    func pressAfterRejectedAlert(perFunction: Bool) async throws -> [RPCEnvelope] {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.softButtonsPerFunction = perFunction })
        let app = try await activeApp(headUnit)
        _ = try await app.connection.post(functionID: Alert.functionID, parameters: [
            "alertText1": "Low fuel", "duration": 10000,
            "softButtons": [["type": "TEXT", "text": "Yes", "softButtonID": 1, "isHighlighted": false, "systemAction": "DEFAULT_ACTION"]],
        ])
        try await app.sync()
        #expect(try await app.request("Alert", ["alertText1": "Again"]).resultCode == "REJECTED")
        _ = try await app.next("AlertResponse")  // the inbox's copy of that answer
        try await headUnit.pressSoftButton(1)
        #expect(try await app.next("AlertResponse").resultCode == "SUCCESS", "the press ends the alert either way")
        try await app.sync()
        let presses = await app.inbox.take("OnButtonPress")
        await headUnit.stop()
        return presses
    }

    @Test("core keeps soft-button subscriptions per function: a rejected second alert ends the first one's buttons, so its press reaches no app (application_manager_impl.cc, UnsubscribeAppFromSoftButtons)")
    func softButtonsPerFunction() async throws {
        #expect(try await pressAfterRejectedAlert(perFunction: true).isEmpty)
    }

    @Test("softButtonsPerFunction false: each alert keeps its buttons until its own answer")
    func softButtonsPerRequest() async throws {
        let presses = try await pressAfterRejectedAlert(perFunction: false)
        #expect(presses.count == 1 && presses.first?["customButtonID"] == 1)
    }
}
