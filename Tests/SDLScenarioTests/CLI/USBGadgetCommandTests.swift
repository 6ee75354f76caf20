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
    ])
    func usage(arguments: [String], message: String) async throws {
        let result = try await CommandRunner.sdlRun([Self.hello] + arguments)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
