import Foundation
import SmartDeviceLink
import SDLTestSupport
import Testing

/// `sdl-run emulate` and `sdl-run watch` stop on SIGTERM (systemd) every time: a signal the
/// kernel hands to any thread reaches the handler. (They used SIG_IGN plus a dispatch
/// source, and now and then a SIGTERM was lost: the process ran on and a test run hung.)
@Suite("SIGTERM stops the long-running commands, every time")
struct StopSignalTests {
    @Test("sdl-run emulate, stopped right after it starts, ten times: each exits 0 by itself within 10 s")
    func emulateStops() async throws {
        for attempt in 1...10 {
            let process = Process()
            process.executableURL = CommandRunner.sdlRun
            process.arguments = ["emulate", "--listen", "127.0.0.1:0"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.runWithSignalsUnblocked()
            // The "listening on" line: the handler is in place.
            _ = await offThePool { out.fileHandleForReading.availableData }
            kill(process.processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let stopped = !process.isRunning
            if !stopped { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(stopped, "attempt \(attempt): still running 10 s after SIGTERM")
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "attempt \(attempt)")
            if !stopped { break }
        }
    }
}

/// `sdl-run run` stopped by SIGTERM or Ctrl-C (a farm client gone, systemd, a person) ends
/// its steps but unregisters each app first: a head unit that kept the app refused the next
/// run with APPLICATION_REGISTERED_ALREADY.
@Suite("SIGTERM stops a scenario run cleanly")
struct StoppedRunTests {
    let scratch: TestFolder
    init() throws { scratch = try TestFolder("stopped-run") }

    /// Starts `sdl-run run` on `steps` (and on a second scenario after it), waits until the
    /// console shows a line containing `cue` (or until `file` exists), then sends SIGTERM;
    /// returns the exit code, the console and the result.json written.
    private func stop(steps: String, after cue: String, orFile file: String? = nil) async throws -> (Int32, String, JSONValue?) {
        let first = scratch.path("stop-me.json"), second = scratch.path("never.json")
        try #"{"name": "stop me", "app": {"appName": "Stop Me", "appID": "stop-0001"}, "steps": [\#(steps)]}"#
            .write(toFile: first, atomically: true, encoding: .utf8)
        try #"{"name": "never", "app": {"appName": "Never", "appID": "never-0001"}, "steps": []}"#
            .write(toFile: second, atomically: true, encoding: .utf8)
        let run = try await BackgroundProcess(CommandRunner.sdlRun.path, ["run", first, second, "--output-dir", scratch.path("out")])
        var console = run.firstLine
        if let file {
            for _ in 0..<600 where !FileManager.default.fileExists(atPath: file) { try await Task.sleep(for: .milliseconds(50)) }
        }
        while file == nil, !console.contains(cue) {
            let line = await run.nextLine(timeout: 30)
            if line.isEmpty { break }
            console += "\n" + line
        }
        kill(run.process.processIdentifier, SIGTERM)
        let (code, rest) = await run.finish(timeout: 15)
        let report = FileManager.default.contents(atPath: scratch.path("out/result.json")).flatMap { try? JSONValue.parse(Array($0)) }
        return (code, console + "\n" + rest, report)
    }

    @Test("stopped while an expectation waits 60 s: exit 130 within seconds, the app unregistered, the rest skipped, the next scenario not run")
    func stopWhileExpecting() async throws {
        let start = ContinuousClock.now
        let (code, console, report) = try await stop(steps: """
            {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "NONE"}}},
            {"expect": {"notification": "OnButtonPress"}, "name": "a press that never comes"},
            {"show": {"text": ["not shown"]}}
            """, after: "✔ expect OnHMIStatus")
        #expect(ContinuousClock.now - start < .seconds(30), "the expectation's 60 s were waited out")
        #expect(code == 130, "\(console)")
        #expect(console.contains("STOPPED stop me"), "\(console)")
        let scenarios = report?["scenarios"]?.arrayValue ?? []
        #expect(scenarios.count == 1, "the second scenario started after the stop: \(console)")
        let result = try #require(scenarios.first)
        #expect(result["status"]?.stringValue == "stopped")
        let steps = result["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["status"]?.stringValue } == ["passed", "skipped", "skipped"])
        #expect(steps.last?["message"]?.stringValue == "not run: the run was stopped")
        let unregistered = (result["received"]?.arrayValue ?? []).contains {
            $0["function"]?.stringValue == "UnregisterAppInterface" && $0["type"]?.stringValue == "response"
                && $0["parameters"]?["resultCode"]?.stringValue == "SUCCESS"
        }
        #expect(unregistered, "no UnregisterAppInterface response in the report: \(console)")
        let junit = (try? String(contentsOfFile: scratch.path("out/junit.xml"), encoding: .utf8)) ?? ""
        #expect(junit.contains(#"errors="1""#) && junit.contains(#"type="stopped""#), "a CI job would read the stopped run as passed: \(junit)")
    }

    @Test("stopped during an exec step: the command's process group is ended too")
    func stopDuringExec() async throws {
        let pidFile = scratch.path("exec.pid")
        let (code, console, report) = try await stop(steps: """
            {"exec": "echo $$ > '\(pidFile).part'; mv '\(pidFile).part' '\(pidFile)'; exec sleep 60"}
            """, after: "", orFile: pidFile)
        #expect(code == 130, "\(console)")
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the exec step's command outlived the run: \(console)")
        let step = report?["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue?.first
        #expect(step?["status"]?.stringValue == "skipped" && step?["message"]?.stringValue == "the run was stopped before this step ended")
    }
}
