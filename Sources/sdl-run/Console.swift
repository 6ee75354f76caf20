import ArgumentParser
import CSDLConsole
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run console`: the RPC console (what SDL's RPC Builder app does, on a terminal). Registers an app, then sends
/// what is typed: `Show mainField1=Hello`, with completion of request names, parameter names
/// and enum values from the spec, history, and responses and notifications as they come.
struct Console: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Type RPCs to a head unit: completion from the spec, responses and notifications as they arrive.",
        discussion: """
            A line is a request and its parameters, as NAME=VALUE (VALUE is JSON when it reads as
            JSON, else text; a.b=VALUE sets a nested one) or as one JSON object:
              Show mainField1=Hello alignment=CENTERED
              AddCommand cmdID=1 menuParams.menuName=Play
              Alert {"alertText1": "Hi", "duration": 3000}
            The app starts in HMI level NONE, where the policy allows almost nothing (a Show is
            DISALLOWED). On an emulator, act as the driver: `driver activateApp` brings it to FULL;
            `driver ACTION NAME=VALUE...` runs any driver action (Tab lists them).
            Tab completes; `save FILE` writes what was sent as a scenario; `quit` unregisters.
            Reads a pipe too, a line at a time. Without a transport it talks to the embedded emulator.
            """)

    @OptionGroup var transport: TransportOptions
    @OptionGroup var security: SecurityOptions

    @Option(help: "The app name to register.")
    var appName = "sdl-run console"

    @Option(help: "The app id to register.")
    var appID = "sdlrun-console"


    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let choice: TransportChoice
        var driver: (any ScenarioDriver)?
        if let link = try transport.makeTransport() {
            let options = transport
            choice = TransportChoice(link.description) { (try? options.makeTransport()) ?? link }
        } else {
            let target = EmbeddedEmulator.target(configuration: .standard)
            choice = TransportChoice(target.name) { (try? target.makeTransport()) ?? UnavailableTransport() }
            driver = target.driver
        }
        var configuration = SDLConfiguration(appName: appName, appID: appID, transports: [choice])
        configuration.registrationTimeout = transport.registrationTimeout
        configuration.secondaryTransports = transport.secondaryTransports
        configuration.security = try security.configuration()
        if let makeSecondary = transport.makeSecondaryTransport { configuration.makeSecondaryTransport = makeSecondary }
        configuration.lockScreen.fetchIcon = false  // as in scenarios: no download from the web
        let manager = SDLManager(configuration: configuration)
        let editor = LineEditor()
        let reporter = ConsoleReporter(color: logging.noColor ? false : nil, printer: editor.printer)
        let start = ContinuousClock.now
        let incoming = await manager.messages()
        // Off the main actor, which the command runs on: the notifications print while a line
        // is being typed, not when it is sent.
        let printer = Task.detached {
            var index = 0
            for await envelope in incoming where envelope.messageType == .notification {
                reporter.received(Logged(index: index, timeMS: (ContinuousClock.now - start).seconds * 1000, entry: envelope))
                index += 1
            }
        }
        do {
            try await manager.start()
        } catch {
            throw CommandFailure.connection(error.description)
        }
        say("registered \(appName) over \(choice.name); type a request (Tab completes, help, quit)")
        if driver != nil { say("the app is in NONE, where most requests are DISALLOWED: `driver activateApp` brings it to FULL") }
        var recorded: [ConsoleLanguage.Recorded] = []
        while let line = await editor.read(prompt: "sdl> ") {
            let parsed: ConsoleLine
            do { parsed = try ConsoleLanguage.parse(line) } catch {
                say("  \(error.description)")
                continue
            }
            switch parsed {
            case .empty: continue
            case .quit: break
            case .help:
                say(Self.configuration.discussion)
                continue
            case .save(let path):
                let scenario = ConsoleLanguage.scenario(name: "console session", appName: appName, appID: appID, recorded: recorded)
                do {
                    try (scenario.serialized() + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                    say("  wrote \(recorded.count) steps to \(path)")
                } catch {
                    say("  cannot write \(path): \(error.localizedDescription)")
                }
                continue
            case .driver(let action):
                guard let driver else {
                    say("  driver actions reach an emulator only; on a real head unit, do it there")
                    continue
                }
                do {
                    try await driver.perform(action)
                    recorded.append(.driver(action))
                } catch {
                    say("  driver \(action.name): \(error)")
                }
                continue
            case .request(let function, let parameters):
                reporter.sent(SentMessage(timeMS: (ContinuousClock.now - start).seconds * 1000, function: function, correlationID: nil, parameters: parameters))
                do {
                    let response = try await manager.request(functionID: RPCRegistry.functionID(forName: function) ?? 0, functionName: function,
                                                             parameters: parameters)
                    reporter.received(Logged(index: 0, timeMS: (ContinuousClock.now - start).seconds * 1000, entry: response))
                    recorded.append(.request(function: function, parameters: parameters, resultCode: response.resultCode))
                } catch {
                    say("  \(error.description)")
                }
                continue
            }
            break
        }
        await manager.stop()
        printer.cancel()
    }
}

/// A line on standard output, unbuffered like the console reporter's, so they keep their order.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Reads lines: through libedit (editing, history, completion) on a terminal, plainly from a pipe.
final class LineEditor: Sendable {
    private let interactive = isatty(STDIN_FILENO) == 1

    init() {
        if interactive { sdl_console_setup(LineEditor.complete) }
    }

    /// On a terminal, the log goes above the line being typed; from a pipe, it is printed as is.
    var printer: (@Sendable (String) -> Void)? {
        guard interactive else { return nil }
        return { text in text.withCString { sdl_console_print_above($0) } }
    }

    /// The next line, read on a thread of its own (readline blocks until Enter).
    func read(prompt: String) async -> String? {
        let interactive = interactive
        return await onThread { Self.readBlocking(prompt: prompt, interactive: interactive) }
    }

    private static func readBlocking(prompt: String, interactive: Bool) -> String? {
        guard interactive else {
            guard let line = readLine() else { return nil }
            say(prompt + line)
            return line
        }
        guard let raw = sdl_console_readline(prompt) else { return nil }
        defer { free(raw) }
        let line = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { sdl_console_add_history(raw) }
        return line
    }

    /// The completion hook: ConsoleLanguage's candidates as a C array libedit frees.
    private static let complete: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { typed in
        guard let typed else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: typed, count: strlen(typed)), as: UTF8.self)
        let candidates = ConsoleLanguage.completions(for: text)
        guard !candidates.isEmpty, let array = calloc(candidates.count + 1, MemoryLayout<UnsafeMutablePointer<CChar>?>.stride) else { return nil }
        let matches = array.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: candidates.count + 1)
        for (index, candidate) in candidates.enumerated() { matches[index] = strdup(candidate) }
        return matches
    }
}
