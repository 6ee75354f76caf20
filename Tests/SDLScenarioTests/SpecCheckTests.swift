import Foundation
import SDLEmulator
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Every message a head unit sends in a run is checked against the RPC spec: the emulator's
/// own never break it, and a head unit's mistake is reported (a failure with `strict`).
@Suite("Head units checked against the RPC spec", .serialized)
struct SpecCheckTests {
    static let examples = CommandRunner.packageRoot.appendingPathComponent("examples")

    /// Runs a scenario on the embedded emulator: as the scenario configures it, or as given.
    static func run(_ path: String, configuration: EmulatorConfiguration? = nil, strict: Bool = false) async throws -> ScenarioResult {
        let scenario = try ScenarioParser.load(path: path)
        var runner = ScenarioRunner(promptPolicy: .fail)
        runner.strict = strict
        let recordings = try TestFolder("spec-recordings")
        let output = try TestFolder("spec-output")
        runner.outputDirectory = output.path  // audio-pass-thru.json writes recording.wav
        let target = try configuration.map { EmbeddedEmulator.target(configuration: $0) } ?? EmbeddedEmulator.target(for: scenario, recordings: recordings.path)
        return await runner.run(scenario, on: target)
    }

    @Test("the emulator's messages keep the spec in every example", arguments: ExamplesTests.passing.filter { $0 != "protected" })
    func examplesKeepTheSpec(name: String) async throws {
        let result = try await Self.run(Self.examples.appendingPathComponent("\(name).json").path)
        #expect(result.status == .passed, "\(result.steps.compactMap(\.message))")
        #expect(!result.messages.isEmpty)
        #expect(result.specViolations.isEmpty, "\(result.specViolations.map(\.problem))")
    }

    @Test("a head unit that answers a request twice, or with another function's response, is reported",
          arguments: [["--answer-twice"], ["--answer-as", "12"]])
    func pairingAndTrace(peerArguments: [String]) async throws {
        let folder = try TestFolder("spec-pairing")
        let headUnit = try await BackgroundProcess("/usr/bin/python3", [RegisterCommandTests.peer] + peerArguments)
        defer { headUnit.stop() }
        let port = try #require(Int(headUnit.firstLine), "the peer did not start: run scripts/setup (it needs pymongo)")
        try #"""
        {"name": "pairing", "app": {"appName": "Pairing", "appID": "pairing-1"},
         "steps": [{"send": "Show", "params": {"mainField1": "x"}}, {"wait": 300}]}
        """#.write(toFile: folder.path("pairing.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRunner.sdlRun([folder.path("pairing.json"), "--tcp", "127.0.0.1:\(port)", "--output-dir", folder.path("out"),
                                                  "--trace", folder.path("trace.jsonl")])
        let result = try #require(JSONValue.parse(String(contentsOfFile: folder.path("out/result.json"), encoding: .utf8)).objectValue)
        let problems = (result["scenarios"]?.arrayValue?.first?["specViolations"]?.arrayValue ?? []).compactMap { $0["problem"]?.stringValue }
        let expected = peerArguments == ["--answer-twice"] ? "second Show response to correlation id" : "Alert response to correlation id"
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(problems) \(run.stdout)")
        #expect(run.stdout.contains(expected), "the console says it too: \(run.stdout)")
    }

    @Test("the trace marks each received message that breaks the spec with where and how")
    func traceMarksViolations() async throws {
        let folder = try TestFolder("spec-trace")
        var display = EmulatorConfiguration.standard.capabilities["displayCapabilities"]?.objectValue ?? [:]
        display["imageFields"] = Self.imageFieldsWithoutTypes.capabilities["displayCapabilities"]?["imageFields"]
        let scenario: JSONObject = [
            "name": "marked", "app": ["appName": "Marked", "appID": "marked-1"],
            "emulator": ["capabilities": ["displayCapabilities": .object(display)]],
            "steps": [["driver": "activateApp"], ["expect": ["notification": "OnHMIStatus", "params": ["hmiLevel": "FULL"]]]],
        ]
        try JSONValue.object(scenario).serialized().write(toFile: folder.path("marked.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRunner.sdlRun([folder.path("marked.json"), "--trace", folder.path("trace.jsonl"), "--output-dir", folder.path("out")])
        #expect(run.exitCode == 0, "a warning does not fail the run: \(run.stdout)")
        let lines = try String(contentsOfFile: folder.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONValue.parse(String($0)).objectValue }
        // The display comes twice: in the registration's answer and in the DISPLAYS pushed after it.
        let marked = lines.filter { $0["rpc"]?["specViolations"] != nil }
        #expect(marked.compactMap { $0["rpc"]?["name"]?.stringValue } == ["RegisterAppInterface", "OnSystemCapabilityUpdated"], "\(marked.count) lines marked")
        for line in marked {
            let paths = line["rpc"]?["specViolations"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
            #expect(paths.count == 10 && paths.allSatisfy { $0.hasSuffix(".imageTypeSupported") }, "\(paths)")
        }
        #expect(!lines.contains { $0["direction"] == "sent" && $0["rpc"]?["specViolations"] != nil }, "only what the head unit sent is checked")
    }

    /// Core behind an HMI that sends no display capabilities falls back to its
    /// hmi_capabilities.json, whose image fields have no imageTypeSupported.
    static var imageFieldsWithoutTypes: EmulatorConfiguration {
        var configuration = EmulatorConfiguration.standard
        var display = configuration.capabilities["displayCapabilities"]?.objectValue ?? [:]
        display["imageFields"] = .array((1...10).map { index in
            ["name": index == 1 ? "softButtonImage" : "menuIcon", "imageResolution": ["resolutionWidth": 35, "resolutionHeight": 35]]
        })
        configuration.capabilities["displayCapabilities"] = .object(display)
        return configuration
    }

    @Test("a head unit's missing mandatory parameters are warnings, said once per mistake with how often")
    func violationsReported() async throws {
        let hello = Self.examples.appendingPathComponent("hello.json").path
        let result = try await Self.run(hello, configuration: Self.imageFieldsWithoutTypes)
        #expect(result.status == .passed, "a warning does not fail the run")
        #expect(!result.failedForSpec)
        let junit = JUnitWriter.document([result])
        #expect(junit.contains("the head unit's messages keep the RPC spec") && !junit.contains("type=\"spec\""), "\(junit)")
        let missing = result.specViolations.filter { $0.pattern == "RegisterAppInterface.displayCapabilities.imageFields[].imageTypeSupported" }
        #expect(missing.count == 10, "\(result.specViolations.map(\.path))")
        #expect(missing.first?.function == "RegisterAppInterface" && missing.first?.messageType == .response)
        // The same ten again in the DISPLAYS pushed after registration.
        let document = JSONResultWriter.document([result])
        #expect(document["scenarios"]?.arrayValue?.first?["specViolations"]?.arrayValue?.count == 20)
    }

    @Test("strict: the run fails and says what the head unit broke")
    func strictFails() async throws {
        let hello = Self.examples.appendingPathComponent("hello.json").path
        let result = try await Self.run(hello, configuration: Self.imageFieldsWithoutTypes, strict: true)
        #expect(result.status == .failed && result.failedForSpec)
        #expect(result.message?.contains("the head unit broke the RPC spec 20 times") == true, "\(result.message ?? "")")
        #expect(result.message?.contains("imageFields[0].imageTypeSupported is missing but mandatory in the RegisterAppInterface response (10 times, here the first)") == true,
                "\(result.message ?? "")")
        let junit = JUnitWriter.document([result])
        #expect(junit.contains("<failure message=\"--strict: the head unit broke the RPC spec"), "\(junit)")
    }
}
