import Foundation
import Testing

/// `--usb-gadget` on the command line. This machine (and CI outside the lab) has no USB device
/// controller, so what is tested here is what a bench user meets first; the gadget itself is
/// tested on a FunctionFS stand-in and, end to end, on the real kernel in scripts/lab.
@Suite("sdl-run --usb-gadget")
struct USBGadgetCommandTests {
    static let hello = CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path

    @Test("on a machine without a USB device controller: exit 3 and one line that says what the board needs")
    func noController() async throws {
        let result = try await CommandRunner.sdlRun([Self.hello, "--usb-gadget", "--wait", "2"])
        #expect(result.exitCode == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("this machine has no USB device controller") && result.stdout.contains("dtoverlay=dwc2"),
                "\(result.stdout)\(result.stderr)")
    }

    @Test("usage errors: with another transport, or --usb-gadget-accessory alone", arguments: [
        (["--usb-gadget", "--tcp", "127.0.0.1:1"], "choose one transport"),
        (["--usb-gadget-accessory"], "--usb-gadget-accessory goes with --usb-gadget"),
        (["--usb-gadget", "dummy_udc.0", "--wait", "0"], "--wait must be positive"),
        (["--usb-gadget", "--secondary", "usb-gadget"], "the primary is USB already"),
        (["--usb", "--secondary", "usb"], "the primary is USB already"),
    ])
    func usage(arguments: [String], message: String) async throws {
        let result = try await CommandRunner.sdlRun([Self.hello] + arguments)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("--secondary usb-gadget on a machine without a device controller: the secondary is rejected with the board's reason, the run goes on over TCP")
    func secondaryWithoutController() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gadget-secondary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hu.json"), scenario = folder.appendingPathComponent("s.json")
        try Data(#"{"secondaryTransport": {"forWiFi": ["USB"], "videoServiceTransports": ["AOA_USB", "TCP_WIFI"]}}"#.utf8).write(to: config)
        try Data("""
            {"name": "no-board", "app": {"appName": "Navigator", "appID": "navigator-1", "appTypes": ["NAVIGATION"]},
             "steps": [{"expect": {"transport": "secondaryRejected"}},
                       {"driver": "activateApp"},
                       {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}},
                       {"show": {"text": "still on TCP"}}]}
            """.utf8).write(to: scenario)
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, [
            "emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--config", config.path])
        defer { emulator.stop() }
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let result = try await CommandRunner.sdlRun([scenario.path, "--tcp", endpoint, "--control", control, "--secondary", "usb-gadget"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("secondary rejected") && result.stdout.contains("this machine has no USB device controller"),
                "\(result.stdout)")
    }
}
