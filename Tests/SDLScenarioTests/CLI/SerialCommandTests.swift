import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run --serial` against `sdl-run emulate --serial`, the two joined by a null-modem
/// cable of pseudo-terminals: the examples pass, noise on the line is skipped, a pulled cable
/// is one line and the emulator serves the port again when it is back.
@Suite("sdl-run over a serial line")
struct SerialCommandTests {
    static func emulator(on path: String) async throws -> BackgroundProcess {
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
                                                                              "--serial", path])
        #expect(emulator.firstLine.hasPrefix("listening on"))
        return emulator
    }

    static func example(_ name: String) -> String {
        CommandRunner.packageRoot.appendingPathComponent("examples/\(name).json").path
    }

    @Test("hello, menu and several apps on the one line pass, the driver's steps through the control channel", arguments: ["hello", "menu", "multi-app"])
    func examples(name: String) async throws {
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        #expect(await emulator.nextLine() == "serial: serving serial \(cable.pathA) 115200 baud")
        let run = try await CommandRunner.sdlRun([Self.example(name), "--serial", cable.pathB, "--control", control])
        #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("PASS \(name)"))
        #expect(run.stdout.contains("on serial \(cable.pathB)"), "the report names the link")
    }

    @Test("bursts of noise while the line is quiet: skipped on both sides, the scenario passes")
    func noise() async throws {
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let folder = try TestFolder("serial-noise")
        let scenario = """
            {"name": "noisy", "app": {"appName": "Noisy", "appID": "noisy-1"},
             "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}},
                       {"wait": 1500}, {"show": {"text": ["after the noise"]}}, {"wait": 800},
                       {"send": "AddCommand", "params": {"cmdID": 1, "menuParams": {"menuName": "Still here"}}}]}
            """
        try scenario.write(toFile: folder.path("noisy.json"), atomically: true, encoding: .utf8)
        // Garbage, the same on every run.
        var generator = SeededRandom(seed: 59)
        for _ in 0..<3 { cable.injectNoise((0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) | 0x08 }) }
        let run = try await CommandRunner.sdlRun([folder.path("noisy.json"), "--serial", cable.pathB, "--control", control,
                                                  "--trace", folder.path("trace.jsonl")])
        #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("malformed data from the head unit"), "the app says it skipped bytes: \(run.stderr)")
        // The trace counts what was skipped, on the frame found after it.
        let skipped = try String(contentsOfFile: folder.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONValue.parse(String($0))["skippedBefore"] }
        let bytes = skipped.compactMap { $0["bytes"]?.intValue }.reduce(0, +)
        #expect(bytes > 0 && bytes <= 900, "skipped \(bytes) bytes of the 900 of noise: \(skipped.map { $0.serialized() })")
        #expect(skipped.allSatisfy { $0["problem"]?.stringValue?.isEmpty == false })
    }

    @Test("an upload on a busy line through noise: the chunks the noise hit are sent again and the file arrives byte for byte")
    func uploadThroughNoise() async throws {
        let cable = try NullModem()
        let folder = try TestFolder("serial-upload-noise")
        try #"{"storage": {"directory": "\#(folder.path("hu"))"}}"#.write(toFile: folder.path("hu.json"), atomically: true, encoding: .utf8)
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--serial", cable.pathA,
                                                                              "--config", folder.path("hu.json")])
        defer { emulator.stop() }
        var generator = SeededRandom(seed: 590)
        let content = (0..<2_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try Data(content).write(to: URL(fileURLWithPath: folder.path("big.bin")))
        try """
            {"name": "busy", "app": {"appName": "Busy", "appID": "busy-1"},
             "steps": [{"putFile": {"path": "big.bin", "name": "big.bin", "persistent": true}}]}
            """.write(toFile: folder.path("busy.json"), atomically: true, encoding: .utf8)
        async let run = CommandRunner.sdlRun([folder.path("busy.json"), "--serial", cable.pathB, "--trace", folder.path("trace.jsonl")])
        for mark in [400_000, 1_200_000] {
            while cable.carried < mark { try await Task.sleep(for: .milliseconds(5)) }
            cable.injectNoiseInline((0..<200).map { _ in UInt8(truncatingIfNeeded: generator.next()) | 0x08 })
        }
        let result = try await run
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        let stored = try Data(contentsOf: URL(fileURLWithPath: folder.path("hu/busy-1/big.bin")))
        #expect(Array(stored) == content, "the head unit's file is the app's")
        // The noise cost at least one chunk: the trace has one offset sent more than once.
        var offsets: [Int] = []
        for line in try String(contentsOfFile: folder.path("trace.jsonl"), encoding: .utf8).split(separator: "\n") {
            let event = try JSONValue.parse(String(line))
            guard event["direction"] == "sent", event["rpc"]?["name"] == "PutFile", let offset = event["rpc"]?["json"]?["offset"]?.intValue
            else { continue }
            offsets.append(Int(offset))
        }
        #expect(Set(offsets).count < offsets.count, "a chunk was sent again: \(offsets)")
    }

    @Test("the cable pulled mid-run: the run ends saying the device went away, once")
    func unplugged() async throws {
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let folder = try TestFolder("serial-unplug")
        let scenario = """
            {"name": "unplugged", "app": {"appName": "Unplugged", "appID": "unplugged-1"},
             "steps": [{"wait": 3000}, {"send": "ListFiles"}]}
            """
        try scenario.write(toFile: folder.path("unplugged.json"), atomically: true, encoding: .utf8)
        async let run = CommandRunner.sdlRun([folder.path("unplugged.json"), "--serial", cable.pathB])
        while cable.carried == 0 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(500))
        cable.unplug()
        let result = try await run
        #expect(result.exitCode != 0)
        let said = result.stdout + result.stderr
        #expect(said.contains("the serial device went away (unplugged, or the other end of the line closed)"), "\(said)")
        #expect(said.components(separatedBy: "went away").count == 2, "said once: \(said)")
    }

    @Test("an app killed without unregistering starts again on the same line: its new session replaces the old")
    func restartAfterKill() async throws {
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let folder = try TestFolder("serial-restart")
        let scenario = """
            {"name": "restarted", "app": {"appName": "Restarted", "appID": "restarted-1"},
             "steps": [{"wait": 200}, {"send": "ListFiles"}]}
            """
        try scenario.write(toFile: folder.path("restarted.json"), atomically: true, encoding: .utf8)
        let first = try await BackgroundProcess(CommandRunner.sdlRun.path, [folder.path("restarted.json"), "--serial", cable.pathB])
        var registered = false
        for _ in 0..<40 where !registered { registered = await first.nextLine().contains("RegisterAppInterface #1 SUCCESS") }
        #expect(registered, "the first run registered")
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let second = try await CommandRunner.sdlRun([folder.path("restarted.json"), "--serial", cable.pathB])
        #expect(second.exitCode == 0, "\(second.stdout)")
        #expect(!second.stdout.contains("APPLICATION_REGISTERED_ALREADY"))
    }

    @Test("sdl-run watch runs the bench's scenarios on a serial port when it appears, and sees it go")
    func watchedPort() async throws {
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let folder = try TestFolder("serial-watch")
        try FileManager.default.createDirectory(atPath: folder.path("scenarios"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.example("hello"), toPath: folder.path("scenarios/hello.json"))
        // The port by a path of the bench's own, as /dev/serial/by-id names a bridge: plugged
        // in when the link appears, pulled when it goes.
        let port = folder.path("tdk-serial")
        try #"{"serialPorts": ["\#(port)"], "baud": 57600, "scenarios": ["scenarios/"], "reports": "reports"}"#
            .write(toFile: folder.path("bench.json"), atomically: true, encoding: .utf8)
        let station = try await BackgroundProcess(CommandRunner.sdlRun.path, ["watch", folder.path("bench.json")])
        defer { station.stop() }
        let watching = try JSONValue.parse(station.firstLine)
        #expect(watching["event"] == "watching" && watching["serialPorts"] == [.string(port)] && watching["devices"] == nil, "\(station.firstLine)")
        try FileManager.default.createSymbolicLink(atPath: port, withDestinationPath: cable.pathB)
        var events: [JSONValue] = []
        while events.last?["event"] != "runFinished", events.count < 10 { events.append(try JSONValue.parse(await station.nextLine())) }
        #expect(events.compactMap { $0["event"]?.stringValue } == ["attached", "runStarted", "runFinished"])
        #expect(events.first?["device"] == .string(port))
        #expect(events.last?["outcome"] == "passed", "\(events.last?.serialized() ?? "")")
        let report = try #require(events.last?["report"]?.stringValue)
        let console = try String(contentsOfFile: report + "/console.log", encoding: .utf8)
        #expect(console.contains("PASS hello") && console.contains("on serial \(port)"), "\(console)")
        let run = try JSONValue.parse(String(contentsOfFile: report + "/run.json", encoding: .utf8))
        #expect(run["arguments"]?.arrayValue?.contains(.string("\(port):57600")) == true, "the bench's baud rate: \(run.serialized())")
        try FileManager.default.removeItem(atPath: port)
        let detached = try JSONValue.parse(await station.nextLine())
        #expect(detached["event"] == "detached" && detached["device"] == .string(port), "\(detached.serialized())")
    }

    @Test("a port that is not there, one another program holds, carrier detection on a pty: one line each, exit 3")
    func openErrors() async throws {
        let missing = try await CommandRunner.sdlRun([Self.example("hello"), "--serial", "/dev/ttyNOSUCH3"])
        #expect(missing.stdout.contains("no serial port /dev/ttyNOSUCH3"), "\(missing.stdout)")
        let cable = try NullModem()
        let emulator = try await Self.emulator(on: cable.pathA)
        defer { emulator.stop() }
        let busy = try await CommandRunner.sdlRun(["emulate", "--serial", cable.pathA])
        #expect(busy.exitCode == 3)
        #expect(busy.stderr.contains("--serial: \(cable.pathA) (held by pid") && busy.stderr.contains("is busy"), "\(busy.stderr)")
        let flow = try await CommandRunner.sdlRun([Self.example("hello"), "--serial", cable.pathB, "--serial-flow", "xon"])
        #expect(flow.exitCode == 2 && flow.stderr.contains("--serial-flow is none or rtscts, not xon"), "\(flow.stderr)")
        // A pty has no modem lines: carrier detection on one is a mistake, said before anything runs.
        let carrier = try await CommandRunner.sdlRun([Self.example("hello"), "--serial", cable.pathB, "--serial-carrier"])
        #expect(carrier.exitCode == 3, "\(carrier.stdout)\(carrier.stderr)")
        #expect((carrier.stdout + carrier.stderr).contains("has no modem lines to watch (a pty or a bridge without them): leave out carrier detection"),
                "\(carrier.stdout)\(carrier.stderr)")
        let alone = try await CommandRunner.sdlRun([Self.example("hello"), "--serial-carrier"])
        #expect(alone.exitCode == 2 && alone.stderr.contains("--serial-carrier goes with --serial"), "\(alone.stderr)")
    }

    @Test("a bench with carrierDetect runs with --serial-carrier, and a pty's run fails saying why")
    func watchedPortWithCarrier() async throws {
        let cable = try NullModem()
        let folder = try TestFolder("serial-watch-carrier")
        try FileManager.default.createDirectory(atPath: folder.path("scenarios"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.example("hello"), toPath: folder.path("scenarios/hello.json"))
        try #"{"serialPorts": ["\#(cable.pathB)"], "carrierDetect": true, "scenarios": ["scenarios/"], "reports": "reports"}"#
            .write(toFile: folder.path("bench.json"), atomically: true, encoding: .utf8)
        let station = try await BackgroundProcess(CommandRunner.sdlRun.path, ["watch", folder.path("bench.json")])
        defer { station.stop() }
        var events: [JSONValue] = [try JSONValue.parse(station.firstLine)]
        while events.last?["event"] != "runFinished", events.count < 10 { events.append(try JSONValue.parse(await station.nextLine())) }
        #expect(events.last?["outcome"] != "passed", "\(events.last?.serialized() ?? "")")
        let report = try #require(events.last?["report"]?.stringValue)
        let run = try JSONValue.parse(String(contentsOfFile: report + "/run.json", encoding: .utf8))
        #expect(run["arguments"]?.arrayValue?.contains("--serial-carrier") == true, "\(run.serialized())")
        let console = try String(contentsOfFile: report + "/console.log", encoding: .utf8)
        #expect(console.contains("has no modem lines to watch"), "\(console)")
    }
}
