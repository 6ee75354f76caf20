import Foundation
import SmartDeviceLink
import Testing

/// The differential suite: sdl_core 8.2's answers to a row of requests (valid calls and
/// mistakes, `Fixtures/core-app/requests.json`), recorded from a real core by
/// scripts/record-core-answers, and the embedded emulator's answers to the same requests, in
/// CI where there is no core. A difference names the request and both values.
@Suite("The emulator answers a row of requests as sdl_core 8.2 did")
struct CoreAnswersTests {
    static let fixtures = CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/core-app")
    /// Values that differ from run to run on any head unit.
    static let volatile: Set<String> = ["hashID", "correlationID", "fullAppID", "appID", "spaceAvailable"]

    /// The responses of a --trace file, in order: name and parameters.
    static func answers(_ path: String) throws -> [(name: String, parameters: JSONObject)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let rpc = try JSONValue.parse(Array(line.utf8))["rpc"]?.objectValue, rpc["type"] == "response",
                  let name = rpc["name"]?.stringValue else { return nil }
            return (name, (rpc["json"]?.objectValue ?? [:]).filter { !volatile.contains($0.key) })
        }
    }

    @Test("every answer: the same result code, success, info and parameters")
    func sameAnswers() async throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("core-answers-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let run = try await CommandRunner.sdlRun([Self.fixtures.appendingPathComponent("requests.json").path, "--trace", trace])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let core = try Self.answers(Self.fixtures.appendingPathComponent("answers.jsonl").path)
        let emulator = try Self.answers(trace)
        #expect(core.count == emulator.count, "core answered \(core.count) requests, the emulator \(emulator.count)")
        #expect(core.count > 40, "the recording holds \(core.count) answers")
        for (index, (theirs, ours)) in zip(core, emulator).enumerated() where theirs.name != "RegisterAppInterface" {
            #expect(ours.name == theirs.name, "answer \(index): \(ours.name) where core answered \(theirs.name)")
            // Numbers by value: core writes what the HMI gave (0), the emulator the spec's Float (0.0).
            for key in Set(theirs.parameters.keys).union(ours.parameters.keys).sorted()
            where !(theirs.parameters[key].map { value in ours.parameters[key].map(value.numericallyEquals) ?? false } ?? (ours.parameters[key] == nil)) {
                Issue.record("answer \(index), \(theirs.name).\(key): core \(theirs.parameters[key]?.serialized() ?? "(none)"), emulator \(ours.parameters[key]?.serialized() ?? "(none)")")
            }
        }
    }
}
