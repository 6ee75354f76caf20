import Foundation
import SmartDeviceLink
import Testing

/// Driver steps on a real head unit (here `sdl-run emulate` reached over TCP with no control
/// channel, so nothing plays them): the operator is told exactly what to do, a bench
/// command does it, or they are skipped with the steps after them, not failed.
@Suite("driver steps on a real head unit")
struct OperatorStepTests {
    /// Runs an example against a fresh `sdl-run emulate`; returns the result, the steps of
    /// result.json and the emulator's control endpoint (unused by the run itself).
    func run(_ example: String, _ extra: [String]) async throws -> (CommandRunner.Result, [JSONValue]) {
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        defer { emulator.stop() }
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("operator-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let file = CommandRunner.packageRoot.appendingPathComponent("examples/\(example).json").path
        let arguments = [file, "--tcp", endpoint, "--json", json] + extra.map { $0.replacingOccurrences(of: "CONTROL_PORT", with: String(control.split(separator: ":").last ?? "")) }
        let result = try await CommandRunner.sdlRun(arguments)
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: json))))
        return (result, report["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue ?? [])
    }

    /// A bench command that does a driver action through the emulator's control channel, as
    /// a robot finger would on a real screen; it prints the action it was given.
    static let robot = #"/usr/bin/python3 -c 'import os, socket; s = socket.create_connection(("127.0.0.1", CONTROL_PORT)); s.sendall(b"{\"action\": \"%s\"}\n" % os.environ["SDL_DRIVER_ACTION"].encode()); print(os.environ["SDL_DRIVER_ACTION"], os.environ["SDL_DRIVER_ARGUMENTS"], s.recv(200).decode().strip())'"#

    @Test("--non-interactive skip: the driver step and every step after it are skipped with what a person would do; the run passes")
    func skipped() async throws {
        let (result, steps) = try await run("hello", ["--non-interactive", "skip"])
        #expect(result.exitCode == 0, "\(result.stdout)")
        #expect(steps[1]["status"] == "skipped")
        #expect(steps[1]["message"] == #"needs an operator (--non-interactive skip): open "Hello SDL" (tap its icon in the app list)"#)
        #expect(steps.dropFirst(2).allSatisfy { $0["status"] == "skipped" && $0["message"] == "not run: it follows driver activateApp, which needs an operator" })
    }

    @Test("--non-interactive fail, and no terminal to ask at, fail the step saying what was needed")
    func failed() async throws {
        let (result, steps) = try await run("hello", ["--non-interactive", "fail"])
        #expect(result.exitCode == 1)
        #expect(steps[1]["message"]?.stringValue?.hasPrefix("needs an operator (--non-interactive fail): open \"Hello SDL\"") == true)
        let (asked, askedSteps) = try await run("hello", [])
        #expect(asked.exitCode == 1)
        #expect(askedSteps[1]["message"]?.stringValue?.hasSuffix("pass --non-interactive skip to skip such steps") == true, "\(askedSteps[1])")
    }

    @Test("--driver-command does the action with a bench command; an instruction names the button, not its id")
    func benchCommand() async throws {
        let (result, steps) = try await run("alert", ["--driver-command", "activateApp=" + Self.robot, "--non-interactive", "skip"])
        #expect(steps[0]["status"] == "passed", "\(steps[0])")
        #expect(steps[0]["output"]?.stringValue?.hasPrefix("activateApp {} {\"ok\":true}") == true, "\(steps[0])")
        #expect(steps[1]["status"] == "passed", "the app got to FULL through the command")
        let press = try #require(steps.first { $0["summary"]?.stringValue?.hasPrefix("driver pressSoftButton") == true })
        #expect(press["message"] == #"needs an operator (--non-interactive skip): press the button "Yes" on the screen"#)
        #expect(result.exitCode == 0, "\(result.stdout)")
    }

    @Test("--driver-command names a known action", arguments: [["--driver-command", "activateAp=true"], ["--driver-command", "activateApp"]])
    func badDriverCommand(arguments: [String]) async throws {
        let result = try await CommandRunner.sdlRun(["examples/hello.json", "--tcp", "127.0.0.1:1"] + arguments)
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--driver-command"), "\(result.stderr)")
    }
}
