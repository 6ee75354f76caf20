import Foundation
import SmartDeviceLink
import Testing

/// `exec` steps: physical actions on a bench (port power, a relay) as local commands, their
/// output in the reports, their exit code and timeout deciding the step.
@Suite("exec steps")
struct ExecStepTests {
    func run(_ steps: String, _ extra: [String] = []) async throws -> (CommandRunner.Result, JSONValue, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = #"{"name": "bench actions", "app": {"appName": "Exec", "appID": "exec-1"}, "steps": "# + steps + "}"
        try scenario.write(toFile: folder + "/exec.json", atomically: true, encoding: .utf8)
        let result = try await CommandRunner.sdlRun([folder + "/exec.json", "--output-dir", folder] + extra)
        let json = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/result.json"))))
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        return (result, json, junit)
    }

    func steps(_ json: JSONValue) -> [JSONValue] { json["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue ?? [] }

    @Test("output is kept in the JSON and JUnit reports; an expected non-zero exit passes")
    func outputInReports() async throws {
        let (result, json, junit) = try await run(#"[{"exec": "echo relay 3 on; echo to stderr >&2"}, {"exec": {"command": ["sh", "-c", "exit 4"], "exitCode": 4}}]"#)
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(steps(json).first?["output"] == "relay 3 on\nto stderr\n")
        #expect(junit.contains("<system-out>relay 3 on&#10;to stderr&#10;</system-out>"))
        #expect(junit.components(separatedBy: "<system-out>").count == 3, "the silent command adds no empty output")
    }

    @Test("a wrong exit code fails with the command's last line; a hung command is stopped at its timeout, children too")
    func failures() async throws {
        let marker = "sdl-exec-\(UUID().uuidString.prefix(8))"
        let (result, json, _) = try await run(#"""
            [{"exec": {"command": "echo port 9 does not exist; exit 1"}}]
            """#)
        #expect(result.exitCode == 1)
        #expect(steps(json).first?["message"] == "echo port 9 does not exist; exit 1 exited with 1 (expected 0): port 9 does not exist")
        let (hung, hungJSON, _) = try await run(#"[{"exec": {"command": "sleep 30 # \#(marker)", "timeout": 300}}]"#)
        #expect(hung.exitCode == 1)
        #expect(steps(hungJSON).first?["message"]?.stringValue?.hasSuffix("did not finish within 0.3 s and was stopped") == true)
        let leftover = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", marker])
        #expect(leftover.stdout.isEmpty, "the command's children were stopped too")
    }

    @Test("mistakes are refused before the run", arguments: [
        (#"[{"exec": ""}]"#, "$.steps[0].exec: the command is empty"),
        (#"[{"exec": {"command": "true", "exitCode": 300}}]"#, "$.steps[0].exec.exitCode: an exit code is 0…255"),
        (#"[{"exec": {"comand": "true"}}]"#, "did you mean \"command\"?"),
    ])
    func invalid(steps: String, message: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exec-\(UUID().uuidString).json").path
        try #"{"name": "bad", "app": {"appName": "X", "appID": "x"}, "steps": "# .appending(steps + "}").write(toFile: folder, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await CommandRunner.sdlRun(["validate", folder])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
