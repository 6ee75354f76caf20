import Foundation
import SmartDeviceLink
import Testing

/// `sdl-run console` end to end: from a pipe, and on a terminal with libedit's completion.
@Suite("sdl-run console")
struct ConsoleCommandTests {
    @Test("a piped session: requests and notifications as they come, refusals before sending, save writes a scenario that passes")
    func pipedSession() async throws {
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: saved) }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("console-input-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: input) }
        try """
            driver activateApp
            Show mainField1=Hello alignment=CENTERED
            Show alignment=CENTRED
            DeleteCommand cmdID=9
            save \(saved)
            quit

            """.write(toFile: input, atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "\"\(CommandRunner.sdlRun.path)\" console --no-color < \(input)"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        for line in ["⇠ OnHMIStatus FULL", "← Show #2 SUCCESS", #"did you mean "CENTERED"?"#, "← DeleteCommand #3 INVALID_ID", "wrote 3 steps to"] {
            #expect(result.stdout.contains(line), "missing \(line) in \(result.stdout)")
        }
        let replay = try await CommandRunner.sdlRun([saved])
        #expect(replay.exitCode == 0, "the saved session runs as a scenario: \(replay.stdout)")
    }

    @Test("on a terminal, Tab completes the request, the parameter and its enum value from the spec")
    func completionOnATerminal() async throws {
        let pty = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/pty_session.py").path
        let result = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/python3"),
                                                 [pty, #"driver act\t\rSh\t al\tCEN\t mainField1=Hi\r"#, "--", CommandRunner.sdlRun.path, "console", "--no-color"])
        // Only "act", "Sh", "al" and "CEN" were typed: the line that went out, and the head
        // unit accepted, is the one completion made of them.
        #expect(result.stdout.contains("⇠ OnHMIStatus FULL"), "driver act<Tab> became activateApp: \(result.stdout)")
        #expect(result.stdout.contains("← Show #2 SUCCESS"), "Show alignment=CENTERED was sent: \(result.stdout)")
    }
}
