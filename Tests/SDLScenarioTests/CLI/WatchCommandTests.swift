import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run watch BENCH.json`: a bench configuration with a mistake is refused before
/// anything is watched, with its path and a "did you mean". (A watch that serves plugged
/// devices runs end to end under umockdev: EndToEndOverUSBTests.)
@Suite("sdl-run watch: the bench configuration")
struct WatchCommandTests {
    /// The test's own folder: the bench configuration, a scenario for it, its reports.
    let scratch: TestFolder
    /// A folder holding one scenario, for configurations whose mistake is elsewhere.
    let scenarios: String

    init() throws {
        scratch = try TestFolder("bench")
        scenarios = scratch.path("scenarios")
        try FileManager.default.createDirectory(atPath: scenarios, withIntermediateDirectories: true)
        try #"{"app": {"appName": "Smoke", "appID": "smoke-1"}, "steps": []}"#
            .write(toFile: scenarios + "/smoke.json", atomically: true, encoding: .utf8)
    }

    /// Runs `sdl-run watch` on `configuration`, with `SCENARIOS` replaced by the folder that holds a scenario.
    func watch(_ configuration: String) async throws -> CommandRunner.Result {
        let path = scratch.path("bench.json")
        try configuration.replacingOccurrences(of: "SCENARIOS", with: scenarios).write(toFile: path, atomically: true, encoding: .utf8)
        return try await CommandRunner.sdlRun(["watch", path])
    }

    @Test("mistakes exit 2 and name the place", arguments: [
        (#"{"devics": ["1d6b:0104"], "scenarios": ["SCENARIOS"], "reports": "r"}"#, #"$.devics: unknown key; did you mean "devices"?"#),
        (#"{"devices": ["1d6b"], "scenarios": ["SCENARIOS"], "reports": "r"}"#, "$.devices[0]: cannot read USB device"),
        (#"{"scenarios": [], "reports": "r"}"#, "$.scenarios: name at least one scenario"),
        (#"{"scenarios": ["SCENARIOS"]}"#, "$.reports: is required"),
        (#"{"scenarios": ["SCENARIOS"], "reports": "r", "retries": -1}"#, "$.retries: expected a whole number"),
        (#"{"devices": ["1d6b:0104"], "gadget": "default", "scenarios": ["SCENARIOS"], "reports": "r"}"#,
         "$.gadget: a station is a host for devices or a board with a gadget, not both"),
        (#"{"gadgetAccessory": true, "scenarios": ["SCENARIOS"], "reports": "r"}"#, #"$.gadgetAccessory: goes with "gadget""#),
        (#"{"gadget": "default", "pause": -1, "scenarios": ["SCENARIOS"], "reports": "r"}"#, "$.pause: expected seconds ≥ 0"),
        (#"{"serialPorts": ["ttyACM0"], "scenarios": ["SCENARIOS"], "reports": "r"}"#, "$.serialPorts[0]: cannot read serial port \"ttyACM0\""),
        (#"{"baud": 9600, "scenarios": ["SCENARIOS"], "reports": "r"}"#, #"$.baud: goes with "serialPorts""#),
        (#"{"serialPorts": ["/dev/ttyACM0"], "flowControl": "xon", "scenarios": ["SCENARIOS"], "reports": "r"}"#,
         #"$.flowControl: expected "none" or "rtscts""#),
        (#"{"carrierDetect": true, "scenarios": ["SCENARIOS"], "reports": "r"}"#, #"$.carrierDetect: goes with "serialPorts""#),
        (#"{"serialPorts": ["/dev/ttyACM0"], "carrierDetect": "yes", "scenarios": ["SCENARIOS"], "reports": "r"}"#,
         "$.carrierDetect: expected true or false"),
        (#"{"serialPorts": ["/dev/ttyGS0"], "gadget": "default", "scenarios": ["SCENARIOS"], "reports": "r"}"#,
         "$.gadget: a station is a host for devices or a board with a gadget, not both"),
    ])
    func refused(configuration: String, message: String) async throws {
        let result = try await watch(configuration)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("the shipped example is a valid bench configuration: the station starts watching")
    func example() async throws {
        let example = CommandRunner.packageRoot.appendingPathComponent("examples/bench/bench.json").path
        // Reports under the test's own folder, the scenarios the example's own (named where
        // they are); everything else as shipped.
        let reports = scratch.path("reports")
        let copy = scratch.path("bench-example.json")
        let shippedScenarios = CommandRunner.packageRoot.appendingPathComponent("examples/bench/scenarios").path
        try String(contentsOfFile: example, encoding: .utf8)
            .replacingOccurrences(of: "/var/lib/sdl-bench/reports", with: reports)
            .replacingOccurrences(of: #""scenarios/""#, with: "\"\(shippedScenarios)/\"")
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let process = try await BackgroundProcess(CommandRunner.sdlRun.path, ["watch", copy])
        defer { process.stop() }
        let first = try JSONValue.parse(process.firstLine)
        #expect(first["event"] == "watching" && first["reports"] == .string(reports), "\(process.firstLine)")
        #expect(FileManager.default.fileExists(atPath: reports + "/watch.jsonl"))
    }

    @Test("a board station on a machine without a USB device controller says so and exits 3",
          .enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/udc")) ?? []).isEmpty))
    func boardWithoutController() async throws {
        let result = try await watch(#"{"gadget": "default", "scenarios": ["SCENARIOS"], "reports": "\#(scratch.path("reports"))"}"#)
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(result.stderr.contains("this machine has no USB device controller (/sys/class/udc is empty), so it cannot be the phone"), "\(result.stderr)")
    }

    @Test("scenarios that are not there are refused at start")
    func missingScenarios() async throws {
        let result = try await watch(#"{"scenarios": ["/nonexistent/bench/"], "reports": "r"}"#)
        #expect(result.exitCode == 2 && result.stderr.contains("$.scenarios: "), "\(result.stderr)")
    }
}
