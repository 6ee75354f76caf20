import ArgumentParser
import Foundation
import SmartDeviceLink

/// `sdl-run`: runs SDL scenarios against a head unit, a TDK or the embedded emulator.
@main
struct SDLRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdl-run",
        abstract: "Run SmartDeviceLink scenarios against a head unit, a TDK or the embedded emulator.",
        discussion: """
            Exit codes: 0 all passed, 1 a step failed, 2 the scenario or the command line is invalid,
            3 could not connect or the head unit refused the app.
            """,
        version: SDLRun.version,
        subcommands: [RunScenarios.self, Compare.self, Register.self, Emulate.self, Validate.self, Schema.self, Replay.self, Watch.self, Relay.self, Console.self, PolicyServerCommand.self,
                      Report.self, Index.self],
        defaultSubcommand: RunScenarios.self
    )

    /// The tool's version, with the protocol and RPC spec versions the library speaks.
    static let version = "sdl-run 0.2.0 (SDL protocol \(ProtocolVersion.latest), RPC spec \(RPCRegistry.interfaceVersion))"

    static func main() async {
        await runMain(arguments: TransportOptions.normalizing(Array(CommandLine.arguments.dropFirst())))
    }

    /// Parses and runs, mapping errors to the documented exit codes.
    static func runMain(arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("sdl-run: \(failure.message)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            // ArgumentParser's own errors (help, usage) and validation failures: exit 2 for misuse.
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// A failure with one of sdl-run's exit codes and a one-line message.
struct CommandFailure: Error {
    var exitCode: Int32
    var message: String

    static func invalid(_ message: String) -> CommandFailure { CommandFailure(exitCode: 2, message: message) }
    static func connection(_ message: String) -> CommandFailure { CommandFailure(exitCode: 3, message: message) }
    static func failed(_ message: String) -> CommandFailure { CommandFailure(exitCode: 1, message: message) }
}
