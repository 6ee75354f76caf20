@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// core validates every request against its schema and answers INVALID_DATA, with no side
/// effect, for parameters out of spec, in its smart objects' words; the emulator says the same.
@Suite("INVALID_DATA for out-of-spec requests, in core's validation words")
struct SpecValidationTests {
    static let cases: [(String, JSONObject, String)] = [
        ("SetGlobalProperties", ["helpPrompt": [["text": .string(String(repeating: "h", count: 501)), "type": "TEXT"]]],
         "RPC.msg_params.helpPrompt.0.text: Got string of size: 501, maximum allowed: 500"),
        ("Slider", ["numTicks": 1, "position": 1, "sliderHeader": "Volume"], "RPC.msg_params.numTicks: Value too small, got: 1, minimum allowed: 2"),
        ("SubscribeButton", ["buttonName": "PLAY_PAUSED"],
         "RPC.msg_params.buttonName: Ignored invalid value - PLAY_PAUSED\nRPC.msg_params: Missing mandatory parameter: buttonName"),
        ("Show", ["mainField1": "x", "softButtons": .array(Array(repeating: ["type": "TEXT", "text": "b", "softButtonID": 1], count: 9))],
         "RPC.msg_params.softButtons: Got array of size: 9, maximum allowed: 8"),
        ("AddCommand", ["cmdID": "1", "menuParams": ["menuName": "A"]], "RPC.msg_params.cmdID: Incorrect type, expected: Integer, got: String"),
        // Members in name order, the first problem only: cmdID before menuParams.
        ("AddCommand", ["cmdID": -1, "menuParams": ["menuName": .int(1)]], "RPC.msg_params.cmdID: Value too small, got: -1, minimum allowed: 0"),
    ]

    @Test("an unknown enum value in an optional parameter is dropped: the request goes on and says so with WARNINGS; an unknown parameter is ignored")
    func droppedAndIgnored() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request("Show", ["mainField1": "x", "alignment": "CENTERED_X", "mainFeild2": "y"])
        #expect(response.resultCode == "WARNINGS" && response.success == true)
        #expect(response["info"]?.stringValue == "RPC.msg_params.alignment: Ignored invalid value - CENTERED_X")
        #expect(await headUnit.snapshot().apps.first?.show["alignment"] == nil)
        await headUnit.stop()
    }

    @Test("each kind of limit", arguments: cases)
    func outOfSpec(function: String, parameters: JSONObject, message: String) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request(function, parameters)
        #expect(response.resultCode == "INVALID_DATA")
        #expect(response.success == false)
        #expect(response["info"]?.stringValue == message, "\(response["info"] ?? "no info")")
        if function == "AddCommand" { #expect(await headUnit.snapshot().apps.first?.commands.isEmpty == true) }
        await headUnit.stop()
    }
}
