import Foundation
import SmartDeviceLink
import Testing

/// The output flags are the same everywhere: every subcommand takes `--no-color` and the
/// log options, read from the parser's own description of the command line.
@Suite("every subcommand takes the same output flags")
struct OutputFlagTests {
    @Test("--no-color, --log-level and --log-module are options of every subcommand")
    func sameFlags() async throws {
        let result = try await CommandRunner.sdlRun(["--experimental-dump-help"])
        let tool = try JSONValue.parse(Array(result.stdout.utf8))
        let subcommands = tool["command"]?["subcommands"]?.arrayValue ?? []
        #expect(subcommands.count >= 12, "\(result.stdout.prefix(300))")
        for command in subcommands {
            let name = command["commandName"]?.stringValue ?? "?"
            guard name != "help" else { continue }
            let options = Set((command["arguments"]?.arrayValue ?? []).flatMap { ($0["names"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue } })
            for flag in ["no-color", "log-level", "log-module"] {
                #expect(options.contains(flag), "sdl-run \(name) lacks --\(flag)")
            }
        }
    }

    @Test("sdl-benchmark prints its lines and no library log between them, unless asked with --log-level")
    func benchIsQuiet() async throws {
        let bench = CommandRunner.sdlRun.deletingLastPathComponent().appendingPathComponent("sdl-benchmark")
        let quiet = try await CommandRunner.run(bench, ["soak", "1"])
        #expect(quiet.exitCode == 0 && quiet.stdout.contains("soak: 1 runs"), "\(quiet.stdout)\(quiet.stderr)")
        #expect(!quiet.stderr.contains("info "), "\(quiet.stderr)")
        let asked = try await CommandRunner.run(bench, ["soak", "1", "--log-level", "info"])
        #expect(asked.stderr.contains("info protocol: session 1 started"), "with --log-level info the library's info lines show: \(asked.stderr)")
    }
}
