import SmartDeviceLink
import Testing

/// An app's command line names its link with sdl-run's options.
@Suite("The link on an app's command line")
struct CommandLineLinkTests {
    @Test("each option, with and without its value, leaves the app's own arguments alone")
    func options() throws {
        let tcp = try CommandLineLink.parse(["--verbose", "--tcp", "10.0.0.2:5000", "song.mp3"])
        #expect(tcp.link == .tcp(host: "10.0.0.2", port: 5000))
        #expect(tcp.rest == ["--verbose", "song.mp3"])
        #expect(try CommandLineLink.parse(["--tcp", "10.0.0.3"]).link == .tcp(host: "10.0.0.3", port: 12345))
        #expect(try CommandLineLink.parse(["--usb"]).link == .usb(.default))
        let usb = try CommandLineLink.parse(["--usb", "18d1:2d01", "-v"])
        #expect(usb.link == .usb(.ids([USBVendorProduct(0x18d1, 0x2d01)])) && usb.rest == ["-v"])
        #expect(try CommandLineLink.parse(["--usb-gadget"]).link == .usbGadget(udc: nil))
        #expect(try CommandLineLink.parse(["--usb-gadget", "dummy_udc.0"]).link == .usbGadget(udc: "dummy_udc.0"))
        #expect(try CommandLineLink.parse(["--bt"]).link == .bluetooth(.waitForHeadUnit(channel: nil)))
        #expect(try CommandLineLink.parse(["--bt", "00:1a:7d:da:71:13@3"]).link == .bluetooth(.connect(address: "00:1A:7D:DA:71:13", channel: 3)))
        #expect(try CommandLineLink.parse(["--serial", "/dev/ttyACM0:57600"]).link == .serial(SerialPortOptions(path: "/dev/ttyACM0", baudRate: 57_600)))
        #expect(try CommandLineLink.parse(["--name", "x"]).link == nil)
        #expect(try CommandLineLink.parse(["--tcp", "127.0.0.1:1"]).link?.choice.name == "TCP 127.0.0.1:1")
    }

    @Test("a value it cannot read, a missing one, two transports: one line naming the option", arguments: [
        (["--tcp"], "--tcp needs HOST:PORT"),
        (["--tcp", "host:99999"], "--tcp host:99999: "),
        (["--usb", "nonsense"], "--usb nonsense: cannot read USB device \"nonsense\""),
        (["--bt", "00:11"], "--bt 00:11: expected a Bluetooth address like 00:1A:7D:DA:71:13"),
        (["--bt", "00:11:22:33:44:55@31"], "--bt 00:11:22:33:44:55@31: an RFCOMM channel is 1…30"),
        (["--serial"], "--serial needs a TTY"),
        (["--usb", "--tcp", "1"], "choose one transport: --tcp, --usb, --usb-gadget, --bt, --serial"),
    ])
    func mistakes(arguments: [String], message: String) {
        #expect {
            _ = try CommandLineLink.parse(arguments)
        } throws: { error in
            "\(error)".contains(message) && !"\(error)".contains("\n")
        }
    }
}
