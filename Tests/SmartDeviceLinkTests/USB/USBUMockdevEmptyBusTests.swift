import SmartDeviceLink
import Testing

/// `fake_usb.py --scenario empty`: umockdev with no USB device at all.
@Suite(.enabled(if: UMockdevEnvironment.scenario == "empty", "runs under Tests/USB/fake_usb.py --scenario empty"))
struct USBUMockdevEmptyBusTests {
    @Test func noDeviceAtAllIsOneClearLine() async {
        let error = await transportError { try await USBTransport().open() }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("no USB support on this machine") || text.contains("no USB devices at all"), "got: \(text)")
        #expect(!text.contains("\n"))
    }
}
