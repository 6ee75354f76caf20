import SDLScenario
import Testing

/// A bench runs thousands of scenarios in one process (the soak in `sdl-bench soak`): a run
/// must leave nothing behind once it returned.
@Suite("A scenario run leaves nothing behind")
struct RunLifetimeTests {
    /// A driver that forwards to the emulator's; the run holds it as long as the run lives.
    final class ProbeDriver: ScenarioDriver {
        let base: any ScenarioDriver
        init(_ base: any ScenarioDriver) { self.base = base }
        func perform(_ action: DriverAction) async throws { try await base.perform(action) }
    }

    @Test("after a run that used the menu and file managers, the run and its SDLManager are gone")
    func runIsFreed() async throws {
        let scenario = try ScenarioParser.parse(Array("""
            {"name": "lifetime", "app": {"appName": "Lifetime", "appID": "lifetime-run"},
             "steps": [{"driver": "activateApp"},
                       {"menu": [{"title": "One"}, {"title": "Two"}]},
                       {"send": "ListFiles"}]}
            """.utf8), source: "lifetime.json")
        weak var probe: ProbeDriver?
        do {
            var target = EmbeddedEmulator.target(configuration: .standard)
            let driver = ProbeDriver(try #require(target.driver))
            probe = driver
            target.driver = driver
            let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: target)
            #expect(result.status == .passed, "\(result)")
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while probe != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(probe == nil, "the finished run is still alive, holding its driver, SDLManager and listeners")
    }
}
