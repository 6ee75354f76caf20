import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The differential suite: sdl_core 8.2's answers, with the official sdl_hmi 5.8.0 as its HMI,
/// to rows of requests (valid calls and mistakes of one app, `Fixtures/core-app/requests.json`;
/// two remote-control apps competing for modules, `Fixtures/core-rc`),
/// recorded by scripts/record-core-answers, and the embedded emulator's answers to the same
/// requests with its default head unit, in CI where there is no core. A difference names the
/// request, both values, and whose the recorded answer was (core's own or sdl_hmi's).
@Suite("The emulator answers a row of requests as sdl_core 8.2 did")
struct CoreAnswersTests {
    static let fixtures = CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures")
    /// Values that differ from run to run on any head unit.
    static let volatile: Set<String> = ["hashID", "correlationID", "fullAppID", "appID", "spaceAvailable"]

    /// The responses of a --trace file, in order: name, parameters, and whose the answer was
    /// where the recording says.
    static func answers(_ path: String) throws -> [(name: String, parameters: JSONObject, answeredBy: String?)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            let record = try JSONValue.parse(Array(line.utf8))
            guard let rpc = record["rpc"]?.objectValue, rpc["type"] == "response", let name = rpc["name"]?.stringValue else { return nil }
            return (name, (rpc["json"]?.objectValue ?? [:]).filter { !volatile.contains($0.key) }, record["answeredBy"]?.stringValue)
        }
    }

    @Test("every answer: the same result code, success, info and parameters, and each message within the spec",
          arguments: ["core-app", "core-rc"])
    func sameAnswers(fixture: String) async throws {
        let fixtures = Self.fixtures.appendingPathComponent(fixture)
        let folder = try TestFolder("core-answers")
        let trace = folder.path("trace.jsonl")
        let run = try await CommandRunner.sdlRun([fixtures.appendingPathComponent("requests.json").path, "--trace", trace,
                                                  "--output-dir", folder.path("out")])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        // The seats come inside `grid` as sdl_hmi sends them (core's own hmi_capabilities.json
        // flattens them, a violation the check reports on a core without such an HMI).
        let result = try #require(JSONValue.parse(String(contentsOfFile: folder.path("out/result.json"), encoding: .utf8)).objectValue)
        // result.json names the violations only where there are some (see SpecCheckTests).
        let scenario = try #require(result["scenarios"]?.arrayValue?.first)
        #expect(scenario["specViolations"] == nil, "\(scenario["specViolations"]?.serialized() ?? "")")
        let core = try Self.answers(fixtures.appendingPathComponent("answers.jsonl").path)
        let emulator = try Self.answers(trace)
        #expect(core.count == emulator.count, "core answered \(core.count) requests, the emulator \(emulator.count)")
        #expect(core.count >= 20, "the recording holds \(core.count) answers")
        #expect(core.allSatisfy { $0.answeredBy == "core" || $0.answeredBy == "hmi" }, "each recorded answer says whose it is")
        for (index, (theirs, ours)) in zip(core, emulator).enumerated() {
            let whose = theirs.answeredBy == "hmi" ? "sdl_hmi's answer" : "core's own answer"
            #expect(ours.name == theirs.name, "answer \(index): \(ours.name) where core answered \(theirs.name)")
            // Numbers by value: core writes what the HMI gave (0), the emulator the spec's Float (0.0).
            for key in Set(theirs.parameters.keys).union(ours.parameters.keys).sorted()
            where !(theirs.parameters[key].map { value in ours.parameters[key].map(value.numericallyEquals) ?? false } ?? (ours.parameters[key] == nil)) {
                Issue.record("answer \(index), \(theirs.name).\(key) (\(whose)): core \(theirs.parameters[key]?.serialized() ?? "(none)"), emulator \(ours.parameters[key]?.serialized() ?? "(none)")")
            }
        }
    }
}
