import SDLScenario
import SmartDeviceLink
import Testing

/// The RPC console's line language and its completion from the spec.
@Suite("sdl-run console: lines and completion")
struct ConsoleLanguageTests {
    @Test("NAME=VALUE (JSON where it reads as JSON, quoted text stays text, a.b nests) and one JSON object")
    func parsing() throws {
        guard case .request("Show", let show) = try ConsoleLanguage.parse(#"Show mainField1="two words" mainField2="5" alignment=CENTERED"#) else {
            Issue.record("not a request"); return
        }
        #expect(show == ["mainField1": "two words", "mainField2": "5", "alignment": "CENTERED"])
        guard case .request("AddCommand", let add) = try ConsoleLanguage.parse("AddCommand cmdID=1 menuParams.menuName=Play") else {
            Issue.record("not a request"); return
        }
        #expect(add == ["cmdID": 1, "menuParams": ["menuName": "Play"]])
        guard case .request("Alert", let alert) = try ConsoleLanguage.parse(#"Alert {"alertText1": "Hi there", "duration": 3000}"#) else {
            Issue.record("not a request"); return
        }
        #expect(alert == ["alertText1": "Hi there", "duration": 3000])
        guard case .driver(let action) = try ConsoleLanguage.parse("driver selectCommand cmdID=3") else { Issue.record("not a driver action"); return }
        #expect(action.name == "selectCommand" && action.arguments == ["cmdID": 3])
    }

    @Test("mistakes are refused with the spec's words before anything is sent", arguments: [
        ("Shwo mainField1=x", #"did you mean "Show"?"#),
        ("Show alignment=CENTRED", #"did you mean "CENTERED"?"#),
        ("Show mainField1", "write NAME=VALUE"),
        ("driver activate", #"did you mean "activateApp"?"#),
    ])
    func mistakes(line: String, message: String) {
        #expect { try ConsoleLanguage.parse(line) } throws: { error in "\(error)".contains(message) }
    }

    @Test("completion: request names, then parameter names not given yet, then enum and boolean values")
    func completion() {
        #expect(ConsoleLanguage.completions(for: "ShowC") == ["ShowConstantTBT"])
        #expect(ConsoleLanguage.completions(for: "Show").starts(with: ["Show", "ShowAppMenu"]))
        #expect(ConsoleLanguage.completions(for: "Show ali") == ["alignment="])
        #expect(ConsoleLanguage.completions(for: "Show alignment=C") == ["alignment=CENTERED"])
        #expect(!ConsoleLanguage.completions(for: "Show mainField1=x main").contains("mainField1="))
        #expect(ConsoleLanguage.completions(for: "Alert playTone=t") == ["playTone=true"])
        #expect(ConsoleLanguage.completions(for: "driver activ") == ["activateApp"])
        #expect(ConsoleLanguage.completions(for: "sa") == ["save"])
    }
}
