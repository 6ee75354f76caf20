import SmartDeviceLink
import Testing

/// `fake_usb.py --scenario empty`: umockdev with no USB device at all.
@Suite(.enabled(if: UMockdevEnvironment.scenario == "empty", "runs under Tests/USB/fake_usb.py --scenario empty"))
struct USBUMockdevEmptyBusTests {
    @Test func noDeviceAtAllIsOneClearLine() async {
        let error = await transportError { try await USBTransport().open() }
        let text = error.map(String.init(describing:)) ?? ""
        // The empty testbed has no /dev/bus/usb either, like this CI machine.
        #expect(text.contains("no USB support on this machine: /dev/bus/usb does not exist"), "got: \(text)")
        #expect(!text.contains("\n"))
    }
}
