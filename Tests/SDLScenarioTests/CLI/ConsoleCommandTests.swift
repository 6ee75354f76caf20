import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run console` end to end: from a pipe, and on a terminal with libedit's completion.
@Suite("sdl-run console")
struct ConsoleCommandTests {
    /// The test's own folder: the session's input and what it saves, tmux's socket.
    let scratch: TestFolder
    init() throws { scratch = try TestFolder("console") }

    @Test("a piped session: requests and notifications as they come, refusals before sending, save writes a scenario that passes")
    func pipedSession() async throws {
        let saved = scratch.path("saved.json"), input = scratch.path("input")
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

    @Test("on a terminal (tmux), a notification that comes while a line is typed prints above the prompt, and the typed line stays")
    func notificationAboveThePrompt() async throws {
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        defer { emulator.stop() }
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let peer = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/tmux_console.py").path
        let result = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), [
            peer, scratch.path("tmux"), control, "--", CommandRunner.sdlRun.path, "console", "--no-color", "--tcp", endpoint])
        let screens = try JSONValue.parse(Array(result.stdout.utf8))
        let typing = screens["typing"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let sent = screens["sent"]?.arrayValue?.compactMap(\.stringValue) ?? []
        // The driver activated the app while "Show mainF" was half typed: the notification is
        // above the prompt, and the prompt still shows what was typed.
        #expect(typing.last == "sdl> Show mainF", "\(typing)\n\(result.stderr)")
        #expect(typing.dropLast().last?.hasSuffix("⇠ OnHMIStatus FULL") == true, "\(typing)")
        // The line finished after it went out whole, and the head unit took it.
        #expect(sent.contains("sdl> Show mainField1=Typed") && sent.contains { $0.hasSuffix("← Show #2 SUCCESS") }, "\(sent)")
    }
}
