import Foundation
import SmartDeviceLink
import Testing

/// `sdl-run watch BENCH.json`: a bench configuration with a mistake is refused before
/// anything is watched, with its path and a "did you mean". (A watch that serves plugged
/// devices runs end to end under umockdev: EndToEndOverUSBTests.)
@Suite("sdl-run watch: the bench configuration")
struct WatchCommandTests {
    func watch(_ configuration: String) async throws -> CommandRunner.Result {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json").path
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await CommandRunner.sdlRun(["watch", path])
    }

    @Test("mistakes exit 2 and name the place", arguments: [
        (#"{"devics": ["1d6b:0104"], "scenarios": ["/tmp"], "reports": "r"}"#, #"$.devics: unknown key; did you mean "devices"?"#),
        (#"{"devices": ["1d6b"], "scenarios": ["/tmp"], "reports": "r"}"#, "$.devices[0]: cannot read USB device"),
        (#"{"scenarios": [], "reports": "r"}"#, "$.scenarios: name at least one scenario"),
        (#"{"scenarios": ["/tmp"]}"#, "$.reports: is required"),
        (#"{"scenarios": ["/tmp"], "reports": "r", "retries": -1}"#, "$.retries: expected a whole number"),
        (#"{"devices": ["1d6b:0104"], "gadget": "default", "scenarios": ["/tmp"], "reports": "r"}"#,
         "$.gadget: a station is a host for devices or a board with a gadget, not both"),
        (#"{"gadgetAccessory": true, "scenarios": ["/tmp"], "reports": "r"}"#, #"$.gadgetAccessory: goes with "gadget""#),
        (#"{"gadget": "default", "pause": -1, "scenarios": ["/tmp"], "reports": "r"}"#, "$.pause: expected seconds ≥ 0"),
    ])
    func refused(configuration: String, message: String) async throws {
        let result = try await watch(configuration)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("the shipped example is a valid bench configuration: the station starts watching")
    func example() async throws {
        let example = CommandRunner.packageRoot.appendingPathComponent("examples/bench/bench.json").path
        // Reports under a folder of the test's own; everything else as shipped, beside the example's scenarios.
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bench-reports-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let copy = CommandRunner.packageRoot.appendingPathComponent("examples/bench/.test-\(UUID().uuidString).json").path
        try String(contentsOfFile: example, encoding: .utf8).replacingOccurrences(of: "/var/lib/sdl-bench/reports", with: reports)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let process = try await BackgroundProcess(CommandRunner.sdlRun.path, ["watch", copy])
        defer { process.stop() }
        let first = try JSONValue.parse(process.firstLine)
        #expect(first["event"] == "watching" && first["reports"] == .string(reports), "\(process.firstLine)")
        #expect(FileManager.default.fileExists(atPath: reports + "/watch.jsonl"))
    }

    @Test("a board station on a machine without a USB device controller says so and exits 3",
          .enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/udc")) ?? []).isEmpty))
    func boardWithoutController() async throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bench-reports-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let result = try await watch(#"{"gadget": "default", "scenarios": ["/tmp"], "reports": "\#(reports)"}"#)
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(result.stderr.contains("this machine has no USB device controller (/sys/class/udc is empty), so it cannot be the phone"), "\(result.stderr)")
    }

    @Test("scenarios that are not there are refused at start")
    func missingScenarios() async throws {
        let result = try await watch(#"{"scenarios": ["/nonexistent/bench/"], "reports": "r"}"#)
        #expect(result.exitCode == 2 && result.stderr.contains("$.scenarios: "), "\(result.stderr)")
    }
}
