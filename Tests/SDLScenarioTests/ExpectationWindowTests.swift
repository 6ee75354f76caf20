import SDLScenario
import SmartDeviceLink
import Testing

/// The `expect` steps between two actions share one window: each takes a message the ones
/// before it did not, in whatever order the head unit sent them, and never one from before
/// the action.
@Suite("Expectations: one window between two actions")
struct ExpectationWindowTests {
    static func run(_ steps: String) async throws -> ScenarioResult {
        let json = """
            {"name": "window", "app": {"appName": "Window", "appID": "window-1"}, "defaults": {"timeout": 2000},
             "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}}, \(steps)]}
            """
        let scenario = try ScenarioParser.parse(Array(json.utf8), source: "window.json")
        return await ScenarioRunner(promptPolicy: .fail).run(scenario, on: EmbeddedEmulator.target(configuration: .standard))
    }

    static let alertUp = """
        {"alert": {"text": "Low fuel", "softButtons": [{"id": 1, "text": "Yes"}]}, "background": true},
        {"expect": {"notification": "OnHMIStatus", "params": {"systemContext": "ALERT"}}},
        {"driver": {"pressSoftButton": {"id": 1}}}
        """

    @Test("what the press caused is found whichever order the expect steps name it in")
    func anyOrderAcrossSteps() async throws {
        // The head unit sends OnButtonPress before the Alert's response; the steps ask for
        // the response first, then the notification that came before it.
        let result = try await Self.run(Self.alertUp + """
            ,
            {"expect": {"response": "Alert", "params": {"resultCode": "SUCCESS"}}},
            {"expect": {"notification": "OnHMIStatus", "params": {"systemContext": "MAIN"}}},
            {"expect": {"notification": "OnButtonPress", "params": {"customButtonID": 1}}}
            """)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
    }

    @Test("expectInOrder still holds its order")
    func inOrderGroup() async throws {
        let result = try await Self.run(Self.alertUp + """
            ,
            {"expectInOrder": [{"response": "Alert", "params": {"resultCode": "SUCCESS"}},
                               {"notification": "OnButtonPress", "within": 300}]}
            """)
        #expect(result.status == .failed)
        #expect(result.steps.last?.message?.contains("OnButtonPress") == true, "\(result.steps.compactMap(\.message))")
    }

    @Test("a message one expectation took is not there for the next")
    func takenOnce() async throws {
        let result = try await Self.run(Self.alertUp + """
            ,
            {"expect": {"notification": "OnButtonPress"}},
            {"expect": {"notification": "OnButtonPress", "within": 300}}
            """)
        #expect(result.status == .failed)
        #expect(result.steps.last?.message?.contains("waited 0.3 s for notification OnButtonPress") == true,
                "\(result.steps.compactMap(\.message))")
    }

    @Test("a message from before the action is never taken")
    func notBeforeTheAction() async throws {
        let result = try await Self.run("""
            {"show": {"text": "Hello"}},
            {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}, "within": 300}}
            """)
        #expect(result.status == .failed, "the OnHMIStatus(FULL) of the activation came before the Show")
    }
}
