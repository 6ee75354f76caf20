@testable import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Menus and choice sets")
struct MenuTests {
    @Test("AddCommand with a used cmdID is INVALID_ID and sends no OnHashChange (core AddCommandRequest)")
    func duplicateCmdID() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "One"]]).resultCode == "SUCCESS")
        let hash = try await app.next("OnHashChange")
        #expect(hash["hashID"]?.stringValue?.isEmpty == false)
        let again = try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "Uno"]])
        #expect(again.resultCode == "INVALID_ID")
        #expect(again.success == false)
        try await app.sync()
        #expect(await app.inbox.take("OnHashChange").isEmpty)
        await headUnit.stop()
    }

    @Test("AddCommand with an unknown parentID is INVALID_ID (core)")
    func unknownParent() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "One", "parentID": 77]])
        #expect(response.resultCode == "INVALID_ID")
        #expect(try await app.request("AddSubMenu", ["menuID": 77, "menuName": "Sub"]).resultCode == "SUCCESS")
        #expect(try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "One", "parentID": 77]]).resultCode == "SUCCESS")
        await headUnit.stop()
    }

    @Test("Overlapping vrCommands are DUPLICATE_NAME (case-insensitive); the same menuName is allowed (SDL-0180)")
    func vrOverlap() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "Play"], "vrCommands": ["Play"]]).resultCode == "SUCCESS")
        #expect(try await app.request("AddCommand", ["cmdID": 2, "vrCommands": ["PLAY", "Start"]]).resultCode == "DUPLICATE_NAME")
        #expect(try await app.request("AddCommand", ["cmdID": 3, "menuParams": ["menuName": "Play"]]).resultCode == "SUCCESS")
        await headUnit.stop()
    }

    @Test("DeleteCommand of an unknown id is INVALID_ID; of a known one SUCCESS with OnHashChange")
    func deleteCommand() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("DeleteCommand", ["cmdID": 9]).resultCode == "INVALID_ID")
        _ = try await app.request("AddCommand", ["cmdID": 9, "menuParams": ["menuName": "Nine"]])
        let first = try await app.next("OnHashChange")
        #expect(try await app.request("DeleteCommand", ["cmdID": 9]).resultCode == "SUCCESS")
        let second = try await app.next("OnHashChange")
        #expect(first["hashID"] != second["hashID"])
        #expect(await headUnit.snapshot().apps[0].commands.isEmpty)
        await headUnit.stop()
    }

    @Test("AddSubMenu: used menuID INVALID_ID, the same name twice allowed (SDL-0180, core-checked on 8.2); DeleteSubMenu removes its commands")
    func submenus() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("AddSubMenu", ["menuID": 10, "menuName": "Music"]).resultCode == "SUCCESS")
        #expect(try await app.request("AddSubMenu", ["menuID": 10, "menuName": "Other"]).resultCode == "INVALID_ID")
        #expect(try await app.request("AddSubMenu", ["menuID": 11, "menuName": "Music"]).resultCode == "SUCCESS")
        #expect(try await app.request("DeleteSubMenu", ["menuID": 99]).resultCode == "INVALID_ID")
        _ = try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "Song", "parentID": 10]])
        #expect(try await app.request("DeleteSubMenu", ["menuID": 10]).resultCode == "SUCCESS")
        let snapshot = await headUnit.snapshot().apps[0]
        #expect(snapshot.submenus.keys.sorted() == [11] && snapshot.commands.isEmpty)
        await headUnit.stop()
    }

    @Test("selectCommand sends OnCommand with the trigger source; an unknown command is an error")
    func selectCommand() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("AddCommand", ["cmdID": 3, "menuParams": ["menuName": "Three"]])
        try await headUnit.selectCommand(3, triggerSource: "VR")
        let command = try await app.next("OnCommand")
        #expect(command["cmdID"] == 3)
        #expect(command["triggerSource"] == "VR")
        await #expect(throws: EmulatorError.unknownCommand(4)) { try await headUnit.selectCommand(4) }
        await headUnit.stop()
    }

    @Test("CreateInteractionChoiceSet: used set id or a repeated choiceID is INVALID_ID (core)")
    func choiceSetIDs() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let set: JSONObject = ["interactionChoiceSetID": 1, "choiceSet": [["choiceID": 1, "menuName": "A"]]]
        #expect(try await app.request("CreateInteractionChoiceSet", set).resultCode == "SUCCESS")
        #expect(try await app.request("CreateInteractionChoiceSet", set).resultCode == "INVALID_ID")
        let repeated: JSONObject = ["interactionChoiceSetID": 2, "choiceSet": [["choiceID": 5, "menuName": "A"], ["choiceID": 5, "menuName": "B"]]]
        #expect(try await app.request("CreateInteractionChoiceSet", repeated).resultCode == "INVALID_ID")
        #expect(try await app.request("DeleteInteractionChoiceSet", ["interactionChoiceSetID": 7]).resultCode == "INVALID_ID")
        await headUnit.stop()
    }

    @Test("PerformInteraction: HMI_OBSCURED while shown, the driver's choice answers SUCCESS with choiceID, then MAIN")
    func performInteractionChoice() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("CreateInteractionChoiceSet", ["interactionChoiceSetID": 1, "choiceSet": [["choiceID": 42, "menuName": "A"]]])
        async let answer = app.request("PerformInteraction", ["initialText": "Pick", "interactionMode": "MANUAL_ONLY",
                                                              "interactionChoiceSetIDList": [1], "timeout": 100000])
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "HMI_OBSCURED")
        await #expect(throws: EmulatorError.unknownChoice(41)) { try await headUnit.selectChoice(41) }
        try await headUnit.selectChoice(42)
        let response = try await answer
        #expect(response.resultCode == "SUCCESS")
        #expect(response["choiceID"] == 42)
        #expect(response["triggerSource"] == "MENU")
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "MAIN")
        await headUnit.stop()
    }

    @Test("PerformInteraction without a choice times out with TIMED_OUT; VR mode shows VRSESSION")
    func performInteractionTimeout() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("CreateInteractionChoiceSet", ["interactionChoiceSetID": 1,
                                                                 "choiceSet": [["choiceID": 1, "menuName": "A", "vrCommands": ["Alpha"]]]])
        async let answer = app.request("PerformInteraction", ["initialText": "Pick", "interactionMode": "VR_ONLY",
                                                              "interactionChoiceSetIDList": [1], "timeout": 5000])
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "VRSESSION")
        let response = try await answer
        #expect(response.resultCode == "TIMED_OUT")
        #expect(response.success == false)
        await #expect(throws: EmulatorError.noPendingInteraction) { try await headUnit.selectChoice(1) }
        await headUnit.stop()
    }
}
