import Foundation
import SDLTestSupport
import Testing

/// A `--trace` recording replays the whole exchange: the same requests, the same driver
/// actions at the same points, and the same result codes.
@Suite("sdl-run replay repeats a recorded exchange")
struct TraceReplayTests {
    /// The test's own folder for its traces, removed after it.
    let scratch: TestFolder
    init() throws { scratch = try TestFolder("replay") }

    func record(_ example: String, _ extra: [String] = []) async throws -> String {
        let trace = scratch.path("\(example)-\(UUID().uuidString.prefix(8)).jsonl")
        let file = CommandRunner.packageRoot.appendingPathComponent("examples/\(example).json").path
        let result = try await CommandRunner.sdlRun([file, "--trace", trace] + extra)
        #expect(result.exitCode == 0, "\(result.stdout)")
        return trace
    }

    @Test("every recorded request gets the recorded result again", arguments: ["hello", "menu", "alert", "vehicle-data", "files"])
    func replaysExamples(example: String) async throws {
        // Uploads need the bulk data itself; the rest replays from the decoded messages.
        let trace = try await record(example, example == "files" ? ["--trace-bytes"] : [])
        let replay = try await CommandRunner.sdlRun(["replay", trace])
        #expect(replay.exitCode == 0, "\(replay.stdout)\n\(replay.stderr)")
        let summary = try #require(replay.stdout.split(separator: "\n").last)
        #expect(summary.hasSuffix(" passed, 0 failed"))
        #expect(!summary.hasPrefix("0 passed"))
        #expect(replay.stdout.contains("✔ RegisterAppInterface: SUCCESS as recorded"))
    }

    @Test("a trace without bytes cannot replay an upload, and says how to record one that can")
    func uploadNeedsBytes() async throws {
        let trace = try await record("files")
        let replay = try await CommandRunner.sdlRun(["replay", trace])
        #expect(replay.exitCode == 2)
        #expect(replay.stderr.contains("PutFile carried 2038 bytes of bulk data, and the trace has only their length: record it again with --trace-bytes"),
                "\(replay.stderr)")
    }

    @Test("a head unit that behaves differently is reported request by request, exit 1")
    func reportsDifferences() async throws {
        let trace = try await record("hello")
        // Over TCP without --control the recorded activateApp cannot happen: Show stays DISALLOWED in NONE.
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0"])
        defer { emulator.stop() }
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let replay = try await CommandRunner.sdlRun(["replay", trace, "--tcp", endpoint])
        #expect(replay.exitCode == 1, "\(replay.stdout)\n\(replay.stderr)")
        #expect(replay.stdout.contains("✘ Show: recorded SUCCESS, replayed DISALLOWED"))
    }

    @Test("a trace of several apps is not replayed as one: exit 2, and what to do instead")
    func severalAppsAreNotOne() async throws {
        let trace = try await record("multi-app")
        let replay = try await CommandRunner.sdlRun(["replay", trace])
        #expect(replay.exitCode == 2)
        #expect(replay.stderr.contains("scenario multi-app has several apps (this line is player's); replay plays one app's exchange"),
                "\(replay.stderr)")
    }

    @Test("a file that is not a trace exits 2 with the line")
    func rejectsNonTrace() async throws {
        let file = CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path
        let replay = try await CommandRunner.sdlRun(["replay", file])
        #expect(replay.exitCode == 2)
        #expect(replay.stderr.contains("hello.json:1: not a JSON object"), "\(replay.stderr)")
    }
}
