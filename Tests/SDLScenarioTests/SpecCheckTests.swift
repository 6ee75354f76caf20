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

    @Test("the emulator's answers to the recorded requests (valid calls and mistakes) keep the spec")
    func recordedRequestsKeepTheSpec() async throws {
        // With its default head unit, not the one the fixture names (core's bare capabilities, which break the spec).
        let path = CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/core-app/requests.json").path
        let result = try await Self.run(path, configuration: .standard)
        #expect(result.messages.count > 100)
        // Core 8.2 sends its seat layout as hmi_capabilities.json has it, the Grid's fields in
        // each seat instead of inside `grid`; the emulator answers as core does, so the check
        // reports it here as it would on core.
        let coresOwn = result.specViolations.filter { $0.pattern.hasPrefix("GetSystemCapability.systemCapability.seatLocationCapability.seats[].") }
        #expect(!coresOwn.isEmpty, "core's seat layout is reported")
        let others = result.specViolations.filter { !coresOwn.contains($0) }
        #expect(others.isEmpty, "\(others.map(\.problem))")
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
        let document = JSONResultWriter.document([result])
        #expect(document["scenarios"]?.arrayValue?.first?["specViolations"]?.arrayValue?.count == 10)
    }

    @Test("strict: the run fails and says what the head unit broke")
    func strictFails() async throws {
        let hello = Self.examples.appendingPathComponent("hello.json").path
        let result = try await Self.run(hello, configuration: Self.imageFieldsWithoutTypes, strict: true)
        #expect(result.status == .failed && result.failedForSpec)
        #expect(result.message?.contains("the head unit broke the RPC spec 10 times") == true, "\(result.message ?? "")")
        #expect(result.message?.contains("imageFields[0].imageTypeSupported is missing but mandatory in the RegisterAppInterface response (10 times, here the first)") == true,
                "\(result.message ?? "")")
        let junit = JUnitWriter.document([result])
        #expect(junit.contains("<failure message=\"--strict: the head unit broke the RPC spec"), "\(junit)")
    }
}
