import Foundation
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
