import Foundation
import SmartDeviceLink
import Testing

/// What a user sees on a machine without USB (this CI machine: no /dev/bus/usb).
@Suite struct USBNoHardwareTests {
    static var noUSBHere: Bool {
        !UMockdevEnvironment.isActive && !FileManager.default.fileExists(atPath: "/dev/bus/usb")
    }

    @Test(.enabled(if: noUSBHere, "needs a machine without /dev/bus/usb and without umockdev"))
    func openWithoutUSBFailsWithOneClearLine() async {
        let transport = USBTransport()
        let error = await transportError { try await transport.open() }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("no USB support on this machine"), "got: \(text)")
        #expect(text.contains("/dev/bus/usb"))
        #expect(!text.contains("\n"))
        // The stream ends with the same error, and a later send says why.
        let read = await readIncoming(transport, count: 1, within: .seconds(2))
        #expect(read.error as? TransportError == error)
        #expect(await transportError { try await transport.send([1]) } == error)
    }

    @Test(.enabled(if: noUSBHere, "needs a machine without /dev/bus/usb and without umockdev"))
    func aoaSwitchWithoutUSBFailsWithOneClearLine() async {
        let error = await transportError { _ = try await AOASwitcher().connect(.ids([USBVendorProduct(0x18D1, 0x4EE1)])) }
        #expect(error.map(String.init(describing:))?.contains("no USB support on this machine") == true)
    }
}

@Suite struct USBSelectorTests {
    @Test(arguments: [
        ("18d1:2d01", USBDeviceSelector.ids([.androidAccessoryWithADB])),
        ("18d1:2d00,1d6b:0104", .ids([.androidAccessory, USBVendorProduct(0x1D6B, 0x0104)])),
        ("1:5", .busAddress(bus: 1, address: 5)),
        ("001:012", .busAddress(bus: 1, address: 12)),
        ("serial=TDK-ECHO", .serial("TDK-ECHO")),
    ])
    func parsesCommandLineForms(text: String, expected: USBDeviceSelector) throws {
        #expect(try USBDeviceSelector(parsing: text) == expected)
    }

    @Test(arguments: ["", "18d1", "18d1:2d0", "pixel", "serial=", "1:5:6"])
    func rejectsOtherTextSayingWhatIsAccepted(text: String) async {
        let error = await transportError { _ = try USBDeviceSelector(parsing: text) }
        #expect(error.map(String.init(describing:))?.contains("VID:PID") == true)
    }

    @Test func defaultSelectsAccessoryModeAndTDKs() {
        let selector = USBDeviceSelector.default
        #expect(selector.matches(USBDeviceDescription(bus: 1, address: 2, id: .androidAccessory)))
        #expect(selector.matches(USBDeviceDescription(bus: 1, address: 2, id: .androidAccessoryWithADB)))
        #expect(selector.matches(USBDeviceDescription(bus: 1, address: 2, id: USBVendorProduct(0x1D6B, 0x0104))))
        #expect(!selector.matches(USBDeviceDescription(bus: 1, address: 2, id: USBVendorProduct(0x18D1, 0x4EE1))))
    }

    @Test func deviceDescriptionIsWhatErrorsList() {
        let pixel = USBDeviceDescription(bus: 1, address: 5, id: USBVendorProduct(0x18D1, 0x4EE1), product: "Pixel")
        #expect(pixel.description == "18d1:4ee1 Pixel bus 1 addr 5")
        #expect(pixel.devicePath == "/dev/bus/usb/001/005")
    }

    @Test func aoaStringsMustFitAndholdNoNUL() async {
        var identity = AOASwitcher.Identity.sdlCore
        #expect(await transportError { try identity.validate() } == nil)
        identity.uri = String(repeating: "u", count: 256)
        #expect(await transportError { try identity.validate() }.map(String.init(describing:))?.contains("at most 255") == true)
        identity.uri = "a\u{0}b"
        #expect(await transportError { try identity.validate() }.map(String.init(describing:))?.contains("NUL") == true)
    }
}
