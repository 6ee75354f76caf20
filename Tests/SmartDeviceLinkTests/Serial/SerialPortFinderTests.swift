import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Serial ports found through sysfs by the USB device they belong to, on a tree laid out as
/// Linux lays it out: a CDC-ACM port under its interface, a bridge's port one level further
/// down, a UART and a Bluetooth port with no USB device at all.
@Suite("Serial ports found by the USB device behind them")
struct SerialPortFinderTests {
    let root: TestFolder
    let finder: SerialPortFinder

    init() throws {
        root = try TestFolder("sysfs")
        var finder = SerialPortFinder()
        finder.ttyClass = root.path("sys/class/tty")
        finder.devices = root.path("dev")
        self.finder = finder
        try FileManager.default.createDirectory(atPath: finder.ttyClass, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: finder.devices, withIntermediateDirectories: true)
        try addUSBDevice("usb1/1-6", id: ("1d6b", "0104"), bus: 1, address: 6, serial: "TDK-7")
        try addPort("ttyACM0", under: "usb1/1-6/1-6:1.0")
        try addUSBDevice("usb1/1-2", id: ("0403", "6001"), bus: 1, address: 9, serial: "FT1234AB")
        try addPort("ttyUSB0", under: "usb1/1-2/1-2:1.0/ttyUSB0")
        try addPort("ttyS0", under: "platform/serial8250")
        try FileManager.default.createDirectory(atPath: "\(finder.ttyClass)/rfcomm0", withIntermediateDirectories: true)
    }

    func addUSBDevice(_ folder: String, id: (String, String), bus: Int, address: Int, serial: String) throws {
        let path = root.path("sys/devices/\(folder)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, value) in [("idVendor", id.0), ("idProduct", id.1), ("busnum", "\(bus)"), ("devnum", "\(address)"), ("serial", serial)] {
            try "\(value)\n".write(toFile: "\(path)/\(name)", atomically: true, encoding: .utf8)
        }
    }

    func addPort(_ name: String, under parent: String) throws {
        let device = root.path("sys/devices/\(parent)")
        try FileManager.default.createDirectory(atPath: "\(device)/tty/\(name)", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(finder.ttyClass)/\(name)", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(finder.ttyClass)/\(name)/device", withDestinationPath: device)
        _ = FileManager.default.createFile(atPath: "\(finder.devices)/\(name)", contents: nil)
    }

    @Test("the USB ports are listed with their device's ids, bus, address and serial; the UART and rfcomm0 are not")
    func listsUSBPorts() {
        let ports = finder.usbPorts()
        #expect(ports.map(\.name) == ["ttyACM0", "ttyUSB0"])
        #expect(ports.first?.path == "\(finder.devices)/ttyACM0")
        #expect(ports.first?.usbDevice == USBDeviceDescription(bus: 1, address: 6, id: USBVendorProduct(0x1D6B, 0x0104), serialNumber: "TDK-7"))
        #expect(ports.last?.usbDevice?.serialNumber == "FT1234AB")
    }

    @Test("a selector picks by VID:PID, by serial string, by bus and address, or by path while the node is there")
    func selects() throws {
        func names(_ text: String) throws -> [String] { finder.ports(matching: try SerialPortSelector(parsing: text)).map(\.name) }
        #expect(try names("1d6b:0104") == ["ttyACM0"])
        #expect(try names("serial=FT1234AB") == ["ttyUSB0"])
        #expect(try names("1:9") == ["ttyUSB0"])
        #expect(try names("18d1:2d00").isEmpty)
        let byID = root.path("dev/serial-by-id-TDK")
        try FileManager.default.createSymbolicLink(atPath: byID, withDestinationPath: "\(finder.devices)/ttyACM0")
        let found = finder.ports(matching: .path(byID))
        #expect(found.map(\.path) == [byID], "the path as given, so the run opens what the bench named")
        #expect(found.first?.usbDevice?.serialNumber == "TDK-7", "the device behind the link")
        try FileManager.default.removeItem(atPath: "\(finder.devices)/ttyACM0")
        #expect(finder.ports(matching: .path(byID)).isEmpty, "a link to a node that went counts as gone")
    }

    @Test("a selector that is neither a path nor a USB device says what it takes")
    func refusesGarbage() {
        #expect {
            try SerialPortSelector(parsing: "ttyACM0")
        } throws: { error in
            (error as? TransportError)?.description.contains("use a device path (/dev/ttyACM0)") == true
        }
    }
}
