import Foundation
import SDLScenario
import SmartDeviceLink
import Testing

/// `{"expect": {"hmi": ...}}` on the embedded emulator: what core would have sent its HMI.
@Suite("HMI expectations")
struct HMIExpectationTests {
    static func run(_ steps: String) async throws -> ScenarioResult {
        let json = """
            {"name": "hmi", "app": {"appName": "Hmi", "appID": "hmi-1"},
             "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}}, \(steps)]}
            """
        let scenario = try ScenarioParser.parse(Array(json.utf8), source: "hmi.json")
        return await ScenarioRunner(promptPolicy: .fail).run(scenario, on: EmbeddedEmulator.target(configuration: .standard))
    }

    @Test("Show reaches the HMI as UI.Show with showStrings; a command as its UI and VR halves, in any order; a refused one never")
    func forwarded() async throws {
        let result = try await Self.run("""
            {"show": {"text": "Hello"}},
            {"expect": {"hmi": "UI.Show", "params": {"showStrings": [{"fieldName": "mainField1", "fieldText": "Hello"}]}}},
            {"send": "AddCommand", "params": {"cmdID": 5, "menuParams": {"menuName": "Play"}, "vrCommands": ["play"]}},
            {"expectAnyOrder": [{"hmi": "VR.AddCommand", "params": {"cmdID": 5, "vrCommands": ["play"]}},
                                {"hmi": "UI.AddCommand", "params": {"menuParams": {"menuName": "Play"}}}]},
            {"send": "AddCommand", "params": {"cmdID": 6, "menuParams": {"menuName": "Other"}, "vrCommands": ["play"]},
             "response": {"resultCode": "DUPLICATE_NAME"}},
            {"expect": {"hmi": "UI.AddCommand", "never": true, "within": 200}}
            """)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
    }

    @Test("text that never reached the screen fails the step, naming what the HMI was sent")
    func wrongText() async throws {
        let result = try await Self.run("""
            {"show": {"text": "Hello"}},
            {"expect": {"hmi": "UI.Show", "params": {"showStrings": [{"fieldName": "mainField1", "fieldText": "Goodbye"}]}, "within": 300}}
            """)
        #expect(result.status == .failed)
        let message = result.steps.last?.message ?? ""
        #expect(message.contains("waited 0.3 s for the HMI to be sent UI.Show") && message.contains("UI.Show"), "\(message)")
    }

    @Test("an hmi expectation that names no HMI API method is refused before the run")
    func badMethod() {
        let json = #"{"name": "x", "app": {"appName": "X", "appID": "x"}, "steps": [{"expect": {"hmi": "Gui.Show"}}]}"#
        #expect { try ScenarioParser.parse(Array(json.utf8), source: "x.json") } throws: {
            "\($0)".contains("'Gui' is not an HMI API interface")
        }
    }
}

/// A driver that cannot drop the link (as on a real head unit's HMI): the runner cuts the
/// app's own end, and the lifecycle manager reconnects and resumes as after a pulled cable.
@Suite("dropTransport where the head unit cannot drop the link")
struct AppSideDropTests {
    struct HMIOnly: ScenarioDriver {
        let inner: any ScenarioDriver
        var dropsTheLink: Bool { false }
        func perform(_ action: DriverAction) async throws {
            guard action.name != "dropTransport" else { Issue.record("the HMI was asked to drop the link"); return }
            try await inner.perform(action)
        }
    }

    @Test("examples/reconnect.json passes with the app cutting its own link")
    func reconnects() async throws {
        let path = CommandRunner.packageRoot.appendingPathComponent("examples/reconnect.json").path
        let scenario = try ScenarioParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        var target = EmbeddedEmulator.target(configuration: .standard)
        target.driver = HMIOnly(inner: target.driver!)
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: target)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
    }
}

@Suite("hmiResult: the HMI's answer for a request")
struct HMIResultTests {
    @Test("the next Show is REJECTED with the HMI's info and does not reach the screen; the one after it does")
    func nextRequestOnly() async throws {
        let result = try await HMIExpectationTests.run("""
            {"driver": {"hmiResult": {"method": "UI.Show", "resultCode": "REJECTED", "info": "the screen is busy"}}},
            {"send": "Show", "params": {"mainField1": "refused"}, "response": {"resultCode": "REJECTED", "params": {"info": "the screen is busy"}}},
            {"expect": {"hmi": "UI.Show", "never": true, "within": 200}},
            {"send": "Show", "params": {"mainField1": "shown"}},
            {"expect": {"hmi": "UI.Show", "params": {"showStrings": [{"fieldName": "mainField1", "fieldText": "shown"}]}}}
            """)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
    }
}
