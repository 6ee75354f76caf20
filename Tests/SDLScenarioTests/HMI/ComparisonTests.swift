import Foundation
import SDLEmulator
@testable import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run compare`'s judgement, on two emulators that are configured to differ the way
/// the emulator and sdl_core can: a value, a result code, a message only one sends.
@Suite("Comparing two head units")
struct ComparisonTests {
    static let scenario = """
        {"name": "compared", "app": {"appName": "Compared", "appID": "compared-1"},
         "steps": [
           {"driver": "activateApp"},
           {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}},
           {"getVehicleData": ["speed"]},
           {"send": "ListFiles"}
         ]}
        """

    static func run(_ config: String) async throws -> ScenarioResult {
        let scenario = try ScenarioParser.parse(Array(scenario.utf8), source: "compared.json")
        let configuration = try EmulatorConfiguration(json: try JSONValue.parse(Array(config.utf8)).objectValue ?? [:])
        return await ScenarioRunner(promptPolicy: .fail).run(scenario, on: EmbeddedEmulator.target(configuration: configuration))
    }

    @Test("the same head unit twice: no difference")
    func same() async throws {
        let config = #"{"vehicleData": {"values": {"speed": 10}}}"#
        let comparison = ScenarioComparison(left: try await Self.run(config), right: try await Self.run(config))
        #expect(comparison.differences.isEmpty, "\(comparison.differences)")
    }

    @Test("a value that differs on every run (a service id core draws at random) is left out, inside arrays too; the rest of them is compared")
    func volatileInsideArrays() {
        func update(_ id: String, published: Bool) -> JSONObject {
            ["appServices": [["updateReason": "REMOVED", "updatedAppServiceRecord": ["serviceID": .string(id), "servicePublished": .bool(published)]]]]
        }
        #expect(ScenarioComparison.parameterDifferences("Update", update("a1", published: false), update("b2", published: false)).isEmpty)
        #expect(ScenarioComparison.parameterDifferences("Update", update("a1", published: false), update("b2", published: true))
                == ["Update.appServices[0].updatedAppServiceRecord.servicePublished: false ≠ true"])
    }

    @Test("a different value and a different registration are reported under their step, with both values")
    func differentValue() async throws {
        let comparison = ScenarioComparison(
            left: try await Self.run(#"{"vehicleData": {"values": {"speed": 10}}, "systemSoftwareVersion": "a"}"#),
            right: try await Self.run(#"{"vehicleData": {"values": {"speed": 55}}, "systemSoftwareVersion": "b"}"#))
        #expect(comparison.differences.contains { $0.step == "$.steps[2]" && $0.detail == "GetVehicleData.speed: 10 ≠ 55" },
                "\(comparison.differences)")
        #expect(comparison.differences.contains { $0.step == "registration" && $0.detail == "differs in systemSoftwareVersion" })
        #expect(comparison.json["differences"]?.arrayValue?.isEmpty == false)
    }

    @Test("compare --html: both runs side by side in a real browser, the differences listed and their step marked in both")
    func htmlPage() async throws {
        let comparison = ScenarioComparison(
            left: try await Self.run(#"{"vehicleData": {"values": {"speed": 10}}}"#),
            right: try await Self.run(#"{"vehicleData": {"values": {"speed": 55}}}"#))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let page = HTMLReportWriter.document(comparisons: [comparison])
        try page.write(to: folder.appendingPathComponent("compare.html"), atomically: true, encoding: .utf8)
        #expect(page.contains("class=\"columns\""))
        // The browser check reads the run the page carries.
        let start = try #require(page.range(of: "<script type=\"application/json\" id=\"run\">")), end = try #require(page.range(of: "</script>"))
        try page[start.upperBound..<end.lowerBound].replacingOccurrences(of: "<\\/", with: "</")
            .write(to: folder.appendingPathComponent("run.json"), atomically: true, encoding: .utf8)
        let check = try await runChildProcess("/usr/bin/python3", [CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/report_browser.py").path,
                                                                   folder.appendingPathComponent("compare.html").path,
                                                                   folder.appendingPathComponent("run.json").path,
                                                                   folder.appendingPathComponent("compare.png").path], errorsIntoOutput: true)
        #expect(check.status == 0, "\(String(decoding: check.output, as: UTF8.self))")
        #expect(String(decoding: check.output, as: UTF8.self).contains("checked 2 scenarios"))
    }

    @Test("--ignore capabilities and --ignore permissions leave out a registration and a policy table set apart on purpose")
    func ignoring() async throws {
        let left = try await Self.run(#"{"vehicleData": {"values": {"speed": 10}}, "systemSoftwareVersion": "a"}"#)
        let right = try await Self.run(#"{"vehicleData": {"values": {"speed": 10}}, "systemSoftwareVersion": "b", "policy": {"default": {"ListFiles": ["FULL", "NONE"], "GetVehicleData": ["FULL"], "UnregisterAppInterface": ["FULL", "NONE"], "OnDriverDistraction": ["FULL", "NONE"]}}}"#)
        let everything = ScenarioComparison(left: left, right: right).differences
        #expect(everything.contains { $0.step == "registration" } && everything.contains { $0.detail.hasPrefix("OnPermissionsChange") }, "\(everything)")
        let neither = ScenarioComparison(left: left, right: right, ignoring: [.capabilities, .permissions]).differences
        #expect(neither.isEmpty, "\(neither)")
    }

    @Test("steps one side could not run (its transport) are set aside with the reason, not counted as differences; a step after a failure still is")
    func setAside() async throws {
        let ran = try await Self.run("{}")
        var couldNot = ran
        couldNot.steps[2].status = .skipped
        couldNot.steps[2].message = "cannot happen over a TCP primary (TCP 127.0.0.1:12345)"
        couldNot.steps[3].status = .skipped
        couldNot.steps[3].message = "not run: it depends on the secondary transport, which a TCP primary does not have"
        couldNot.messages.removeAll { message in couldNot.steps[2].startMS <= message.timeMS }
        let comparison = ScenarioComparison(left: ran, right: couldNot)
        #expect(comparison.differences.isEmpty, "\(comparison.differences)")
        #expect(comparison.setAside.map(\.step) == ["$.steps[2]", "$.steps[3]"])
        #expect(comparison.json["setAside"]?.arrayValue?.first?["reason"]?.stringValue?.hasPrefix("cannot happen over a TCP primary") == true)

        var failed = ran
        failed.steps[3].status = .skipped
        failed.steps[3].message = "not run: an earlier step failed"
        #expect(ScenarioComparison(left: ran, right: failed).differences.contains { $0.step == "$.steps[3]" })
    }

    @Test("a result code that differs names both, and a failed step says so")
    func differentResult() async throws {
        let steps = """
            {"name": "limited", "app": {"appName": "L", "appID": "l-1"},
             "steps": [{"send": "ListFiles"}, {"send": "ListFiles"}]}
            """
        let scenario = try ScenarioParser.parse(Array(steps.utf8), source: "limited.json")
        func run(_ limit: Int) async throws -> ScenarioResult {
            let configuration = try EmulatorConfiguration(json: try JSONValue.parse(Array(#"{"storage": {"inNone": {"listFiles": \#(limit)}}}"#.utf8)).objectValue ?? [:])
            return await ScenarioRunner(promptPolicy: .fail).run(scenario, on: EmbeddedEmulator.target(configuration: configuration))
        }
        let comparison = ScenarioComparison(left: try await run(5), right: try await run(1))
        let second = comparison.differences.filter { $0.step == "$.steps[1]" }.map(\.detail)
        #expect(second.contains { $0.hasPrefix("step passed ≠ failed") }, "\(second)")
        #expect(second.contains { $0.hasPrefix("ListFiles: resultCode SUCCESS ≠ REJECTED") }, "\(second)")
    }

    @Test("the answer to a request the library made in the background pairs up in whatever step it came; a notification two steps late does not")
    func backgroundAnswers() {
        func message(_ type: RPCMessageType, _ name: String, _ parameters: JSONObject) -> RPCEnvelope {
            RPCEnvelope(messageType: type, functionID: RPCRegistry.functionID(forName: name) ?? 0, functionName: name, correlationID: 9, parameters: parameters)
        }
        func differences(_ late: RPCEnvelope) -> [String] {
            let list = message(.response, "ListFiles", ["resultCode": "SUCCESS", "success": true])
            // `late` came during step 1 on one head unit, after the step 2's answer, in step 4, on the other.
            return ScenarioComparison.messageDifferences([(step: 1, envelope: late), (step: 2, envelope: list)],
                                                         [(step: 2, envelope: list), (step: 4, envelope: late)]).map(\.detail)
        }
        #expect(differences(message(.response, "SystemRequest", ["resultCode": "SUCCESS", "success": true])).isEmpty)
        #expect(differences(message(.notification, "OnHMIStatus", ["hmiLevel": "FULL"]))
                == ["only the first sent OnHMIStatus", "only the second sent OnHMIStatus"])
    }
}

@Suite("sdl-run compare on the command line")
struct CompareCommandTests {
    @Test("no core's HMI WebSocket there: exit 3 naming it; an --hmi-config that is not methods and results: exit 2")
    func unreachableCore() async throws {
        let hello = CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path
        let result = try await CommandRunner.sdlRun(["compare", hello, "--tcp", "127.0.0.1:1", "--hmi", "ws://127.0.0.1:1"])
        #expect(result.exitCode == 3)
        #expect(result.stderr.contains("cannot reach core's HMI WebSocket at 127.0.0.1:1"), "\(result.stderr)")
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hmi-\(UUID()).json")
        try Data(#"{"speed": 3}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let invalid = try await CommandRunner.sdlRun(["compare", hello, "--tcp", "127.0.0.1:1", "--hmi", "ws://127.0.0.1:1", "--hmi-config", config.path])
        #expect(invalid.exitCode == 2)
        #expect(invalid.stderr.contains("\"speed\" must be an HMI API method"), "\(invalid.stderr)")
    }

    @Test("--include and --exclude choose the suite as they do for a run, before core is reached")
    func tags() async throws {
        let examples = CommandRunner.packageRoot.appendingPathComponent("examples").path
        let core = ["--tcp", "127.0.0.1:1", "--hmi", "ws://127.0.0.1:1"]
        let none = try await CommandRunner.sdlRun(["compare", examples, "--include", "no-such-tag"] + core)
        #expect(none.exitCode == 2 && none.stderr.contains("no scenario has the tags asked for"), "\(none.stderr)")
        let withoutSecurity = try await CommandRunner.sdlRun(["compare", examples, "--exclude", "security"] + core)
        #expect(withoutSecurity.exitCode == 3, "core is not there: \(withoutSecurity.stderr)")
        #expect(withoutSecurity.stdout.hasPrefix("1 of ") && withoutSecurity.stdout.contains("scenarios left out by --include/--exclude"),
                "only protected.json is tagged security: \(withoutSecurity.stdout)")
    }
}
