@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// core validates every request against its schema and answers INVALID_DATA, with no side
/// effect, for parameters out of spec; the emulator checks them against the RPC spec digest.
@Suite("INVALID_DATA for out-of-spec requests, from the RPC spec (core's schema validation)")
struct SpecValidationTests {
    static let cases: [(String, JSONObject, String)] = [
        ("SetGlobalProperties", ["helpPrompt": [["text": .string(String(repeating: "h", count: 501)), "type": "TEXT"]]],
         "SetGlobalProperties.helpPrompt[0].text is 501 characters long"),
        ("Slider", ["numTicks": 1, "position": 1, "sliderHeader": "Volume"], "Slider.numTicks is 1, below the minimum value 2"),
        ("SubscribeButton", ["buttonName": "PLAY_PAUSED"], "not a value of the enum ButtonName"),
        ("Show", ["mainField1": "x", "softButtons": .array(Array(repeating: ["type": "TEXT", "text": "b", "softButtonID": 1], count: 9))],
         "Show.softButtons has 9 items, more than the maximum array size 8"),
        ("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "A"], "vrCommand": ["a"]], "did you mean \"vrCommands\""),
    ]

    @Test("each kind of limit", arguments: cases)
    func outOfSpec(function: String, parameters: JSONObject, message: String) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request(function, parameters)
        #expect(response.resultCode == "INVALID_DATA")
        #expect(response.success == false)
        #expect(response["info"]?.stringValue?.contains(message) == true, "\(response["info"] ?? "no info")")
        if function == "AddCommand" { #expect(await headUnit.snapshot().apps.first?.commands.isEmpty == true) }
        await headUnit.stop()
    }
}
