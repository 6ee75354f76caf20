import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run emulate` in another process, reached over TCP (driver steps through its control
/// channel), must give the same result as the embedded emulator.
@Suite("sdl-run against `sdl-run emulate` over TCP equals the embedded run")
struct EmulateParityTests {
    func steps(_ path: String) throws -> [JSONValue] {
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return report["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
    }

    func outcome(_ steps: [JSONValue]) -> [String] {
        steps.map { "\($0["path"]?.stringValue ?? "") \($0["summary"]?.stringValue ?? "") \($0["status"]?.stringValue ?? "")" }
    }

    @Test("same steps, same verdicts", arguments: ["menu", "alert", "vehicle-data", "failure-report", "reconnect", "keyboard"])
    func sameResult(example: String) async throws {
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        defer { emulator.stop() }
        let listening = emulator.firstLine
        let control = await emulator.nextLine()
        #expect(listening.hasPrefix("listening on 127.0.0.1:"), "\(listening)")
        #expect(control.hasPrefix("control on 127.0.0.1:"), "\(control)")
        let endpoint = String(listening.dropFirst("listening on ".count))
        let controlEndpoint = String(control.dropFirst("control on ".count))
        let file = CommandRunner.packageRoot.appendingPathComponent("examples/\(example).json").path
        let scratch = try TestFolder("parity")
        let embeddedJSON = scratch.path("embedded.json"), tcpJSON = scratch.path("tcp.json")

        let embedded = try await CommandRunner.sdlRun([file, "--json", embeddedJSON])
        let overTCP = try await CommandRunner.sdlRun([file, "--tcp", endpoint, "--control", controlEndpoint, "--json", tcpJSON])
        #expect(embedded.exitCode == overTCP.exitCode, "embedded:\n\(embedded.stdout)\nTCP:\n\(overTCP.stdout)\n\(overTCP.stderr)")
        let embeddedSteps = try steps(embeddedJSON)
        #expect(!embeddedSteps.isEmpty)
        #expect(outcome(embeddedSteps) == outcome(try steps(tcpJSON)))
    }
}
