import Foundation
import SDLEmulator
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Scenarios with several apps: each registers on a session of its own, steps act as the app
/// their `as` names, and expectations see only that app's messages.
@Suite("Scenarios with several apps", .serialized)
struct MultiAppTests {
    static let example = CommandRunner.packageRoot.appendingPathComponent("examples/multi-app.json").path

    static func parse(_ text: String) throws -> Result<Scenario, ScenarioError> {
        let folder = try TestFolder("multi-app-parse")
        let path = folder.path("scenario.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return Result { () throws(ScenarioError) in try ScenarioParser.load(path: path) }
    }

    static let twoApps = #"""
        "apps": [{"as": "player", "appName": "Player", "appID": "player-1", "isMedia": true},
                 {"as": "talk", "appName": "Talk", "appID": "talk-1"}]
        """#

    @Test("the apps section and each step's as are checked: names, ids, and where as belongs", arguments: [
        (#"{"app": {"appName": "A", "appID": "a"}, \#(twoApps), "steps": []}"#, "a scenario has one \"app\" or several \"apps\""),
        (#"{"apps": [{"as": "x", "appName": "A", "appID": "a"}, {"as": "x", "appName": "B", "appID": "b"}], "steps": []}"#, "names another app already"),
        (#"{"apps": [{"as": "x", "appName": "A", "appID": "a"}, {"as": "y", "appName": "B", "appID": "a"}], "steps": []}"#, "is another app's id already"),
        (#"{"apps": [{"appName": "A", "appID": "a"}], "steps": []}"#, "$.apps[0].as"),
        (#"{\#(twoApps), "steps": [{"as": "playr", "driver": "activateApp"}]}"#, "did you mean \"player\"?"),
        (#"{\#(twoApps), "steps": [{"as": "talk", "wait": 10}]}"#, "a wait step is no app's"),
        (#"{"app": {"appName": "A", "appID": "a"}, "steps": [{"as": "a", "driver": "activateApp"}]}"#, "this scenario has one app"),
    ])
    func invalid(text: String, expected: String) throws {
        guard case .failure(let error) = try Self.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(error.description.contains(expected), "\(error.description)")
    }

    @Test("the example runs on the embedded emulator: each app its session, its levels and audio, its messages tagged")
    func exampleOnTheEmulator() async throws {
        let scenario = try ScenarioParser.load(path: Self.example)
        #expect(scenario.apps.map(\.name) == ["player", "radio", "nav"])
        let recordings = try TestFolder("multi-app-recordings")
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: try EmbeddedEmulator.target(for: scenario, recordings: recordings.path))
        #expect(result.status == .passed, "\(result.steps.compactMap { $0.message.map { "\($0)" } })")
        let registered = result.messages.filter { $0.envelope.functionName == "RegisterAppInterface" }.compactMap(\.app)
        #expect(registered == ["player", "radio", "nav"], "each app registers on its own session, in the order listed")
        let statuses = { (app: String) in
            result.messages.filter { $0.app == app && $0.envelope.functionName == "OnHMIStatus" }
                .compactMap { $0.envelope.parameters["hmiLevel"]?.stringValue }
        }
        #expect(statuses("player") == ["NONE", "FULL", "LIMITED", "BACKGROUND"])
        #expect(statuses("radio") == ["NONE", "FULL", "NONE"])
        #expect(statuses("nav") == ["NONE", "FULL", "LIMITED"])
        #expect(result.sent.filter { $0.function == "Show" }.compactMap(\.app) == ["player", "radio"])
        #expect(result.messages.allSatisfy { $0.app != nil }, "every message says whose it is")
    }

    @Test("an expectation sees only its app's messages: what another app got does not satisfy it")
    func expectationsAreTheApps() async throws {
        let folder = try TestFolder("multi-app-own")
        try #"""
        {"name": "own", \#(Self.twoApps),
         "steps": [{"as": "player", "driver": "activateApp"},
                   {"as": "talk", "expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}, "within": 500}}]}
        """#.write(toFile: folder.path("own.json"), atomically: true, encoding: .utf8)
        let scenario = try ScenarioParser.load(path: folder.path("own.json"))
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: EmbeddedEmulator.target(configuration: .standard))
        #expect(result.status == .failed)
        let message = result.steps.last?.message ?? ""
        #expect(message.contains("waited 0.5 s for notification OnHMIStatus") && !message.contains("FULL)"),
                "talk saw its own NONE only, not the player's FULL: \(message)")
    }

    @Test("over TCP each app has a connection of its own to sdl-run emulate; the console and result.json name the app")
    func overTCP() async throws {
        let folder = try TestFolder("multi-app-tcp")
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        defer { emulator.stop() }
        let listen = String(emulator.firstLine.dropFirst("listening on ".count))
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let run = try await CommandRunner.sdlRun([Self.example, "--tcp", listen, "--control", control, "--output-dir", folder.path("out")])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("[radio] ← Show #") && run.stdout.contains("[player] → Show"), "\(run.stdout)")
        let document = try JSONValue.parse(String(contentsOfFile: folder.path("out/result.json"), encoding: .utf8))
        let received = document["scenarios"]?.arrayValue?.first?["received"]?.arrayValue ?? []
        #expect(Set(received.compactMap { $0["app"]?.stringValue }) == ["player", "radio", "nav"])
    }

    @Test("a target whose link is one (USB, Bluetooth) carries every app on it, a session each, as a router service does")
    func sharedLink() async throws {
        let scenario = try ScenarioParser.load(path: Self.example)
        let emulator = HeadUnitEmulator(configuration: .standard)
        let links = Locked(0)
        let events = await emulator.events()
        let registered = Task {
            var sessions: [UInt8] = []
            for await event in events {
                if case .appRegistered(_, _, let session, _) = event { sessions.append(session) }
                if sessions.count == 3 { break }
            }
            return sessions
        }
        var target = ScenarioTarget(name: "USB", makeTransport: {
            links.withLock { $0 += 1 }
            let (app, headUnit) = MemoryTransport.pair()
            Task { await emulator.serve(headUnit) }
            return app
        }, driver: ControlCommandDriver { command in await emulator.control(command) }, finish: { await emulator.stop() })
        target.allowsSeveralApps = false
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: target)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
        #expect(await registered.value.sorted() == [1, 2, 3], "three sessions of one connection")
        #expect(links.withLock { $0 } == 2, "the runner's check of the target, then the one link the apps share")
    }
}
