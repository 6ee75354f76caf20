import SDLScenario
import SmartDeviceLink
import Testing

/// A bench runs thousands of scenarios in one process (the soak in `sdl-benchmark soak`): a run
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

    /// How many links a run opened, how many of those it closed again, and how many it still holds.
    final class Links: Sendable {
        private let state = Locked((opened: 0, closed: 0, alive: 0))
        var counts: (opened: Int, closed: Int, alive: Int) { state.withLock { $0 } }
        func opened() { state.withLock { $0.opened += 1 } }
        func closed() { state.withLock { $0.closed += 1 } }
        func made() { state.withLock { $0.alive += 1 } }
        func freed() { state.withLock { $0.alive -= 1 } }
    }

    /// A link to a head unit that answers everything with bytes that are no SDL frame. Counted
    /// when opened (the runner makes one transport first without opening it, to check the
    /// target), and counted closed when the head unit's end sees the app's end close.
    final class GarbageLink: SDLTransport {
        let description = "garbage head unit"
        var kind: TransportKind { .memory }
        private let app: MemoryTransport
        private let headUnit: MemoryTransport
        private let links: Links

        init(_ links: Links) {
            (app, headUnit) = MemoryTransport.pair()
            self.links = links
            links.made()
        }

        // The two ends hold each other until one closes; one made and never opened would leak.
        deinit {
            links.freed()
            Task { [app] in await app.close() }
        }

        var incoming: AsyncThrowingStream<[UInt8], any Error> { app.incoming }

        func open() async throws(TransportError) {
            try await app.open()
            links.opened()
            Task { [headUnit, links] in
                do {
                    for try await _ in headUnit.incoming { try await headUnit.send(Array(repeating: 0xFF, count: 64)) }
                } catch {}
                links.closed()
            }
        }

        func send(_ bytes: [UInt8]) async throws(TransportError) { try await app.send(bytes) }
        func close() async { await app.close() }
    }

    @Test("a run whose head unit answers garbage fails, then has closed and let go of every link it opened; none opens after")
    func refusedRunClosesItsLinks() async throws {
        let scenario = try ScenarioParser.parse(Array("""
            {"name": "refused", "app": {"appName": "Refused", "appID": "refused-run"}, "steps": [{"send": "ListFiles"}]}
            """.utf8), source: "refused.json")
        let links = Links()
        var target = ScenarioTarget(name: "garbage head unit", makeTransport: { GarbageLink(links) })
        target.registrationTimeout = .seconds(1)
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: target)
        #expect(result.status == .connectionFailed, "\(result)")
        let opened = links.counts.opened
        #expect(opened >= 1)
        // The head-unit end's reads finish when the app's end closes; a link the run left open
        // would keep them going.
        let deadline = ContinuousClock.now + .seconds(5)
        while links.counts.closed < opened || links.counts.alive > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(links.counts.closed == opened, "links opened \(opened), closed \(links.counts.closed)")
        // Nothing the run left behind (a manager, a reconnect, a task) still holds a link.
        #expect(links.counts.alive == 0, "the finished run still holds \(links.counts.alive) link(s)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(links.counts.opened == opened, "the finished run opened \(links.counts.opened - opened) more links")
    }
}
