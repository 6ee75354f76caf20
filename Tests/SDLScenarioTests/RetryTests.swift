import SDLScenario
import SmartDeviceLink
import Testing

@Suite("Retries and the run summary")
struct RetryTests {
    static let scenario = """
        {"name": "retried", "app": {"appName": "Retried", "appID": "retried-1"},
         "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}}]}
        """

    /// A target whose transport cannot be made: the run ends as "connection failed".
    static func refusing(_ name: String) -> ScenarioTarget {
        ScenarioTarget(name: name) { throw TransportError.connectionRefused(endpoint: "127.0.0.1:1") }
    }

    @Test("a scenario whose first run cannot connect passes on the second: two attempts, flaky, and the summary says so")
    func flakyPass() async throws {
        let scenario = try ScenarioParser.parse(Array(Self.scenario.utf8), source: "retried.json")
        var made = 0
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, attempts: 3) {
            made += 1
            return made == 1 ? Self.refusing("a TDK that is still booting") : EmbeddedEmulator.target(configuration: .standard)
        }
        #expect(made == 2, "no third run after a pass")
        #expect(result.status == .passed && result.attempts == 2 && result.isFlaky)
        #expect([result].summaryLine.hasPrefix("1 scenario: 1 passed (1 flaky), 0 failed in "))
    }

    @Test("a scenario that never passes runs every attempt and stays failed; the summary counts each outcome")
    func allAttemptsFail() async throws {
        let scenario = try ScenarioParser.parse(Array(Self.scenario.utf8), source: "retried.json")
        var made = 0
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, attempts: 2) {
            made += 1
            return Self.refusing("nobody")
        }
        #expect(made == 2)
        #expect(result.status == .connectionFailed && result.attempts == 2 && !result.isFlaky)
        #expect([result, result].summaryLine.hasPrefix("2 scenarios: 0 passed, 0 failed, 2 could not connect in "))
    }
}
