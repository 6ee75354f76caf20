#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A serial port the kernel has: its device node and, for a USB-to-serial bridge or a
/// CDC-ACM device, the USB device it belongs to.
public struct SerialPortDescription: Hashable, Sendable, CustomStringConvertible {
    /// The kernel's name for it: `ttyACM0`, `ttyUSB0`.
    public var name: String
    /// Its device node: `/dev/ttyACM0`.
    public var path: String
    /// The USB device behind the port (ids, bus and address, strings), read from sysfs.
    public var usbDevice: USBDeviceDescription?

    /// A port of these parts.
    public init(name: String, path: String, usbDevice: USBDeviceDescription? = nil) {
        self.name = name
        self.path = path
        self.usbDevice = usbDevice
    }

    /// `/dev/ttyACM0 (1d6b:0104 SDL TDK bus 1 addr 3)`.
    public var description: String { path + (usbDevice.map { " (\($0))" } ?? "") }
}

/// Which serial port a bench station serves: one on a USB device picked as `--usb` picks it
/// (`1d6b:0104`, `serial=TDK-7`, `1:5`), or a device node by path (`/dev/rfcomm0`,
/// `/dev/serial/by-id/…`, `/dev/ttyGS0`), which counts as plugged in while it exists.
public enum SerialPortSelector: Hashable, Sendable, CustomStringConvertible {
    /// A port whose USB device the selector matches.
    case usb(USBDeviceSelector)
    /// The node at this path.
    case path(String)

    /// Parses a path (it starts with `/`) or a USB device as ``USBDeviceSelector`` reads it.
    public init(parsing text: String) throws(TransportError) {
        if text.hasPrefix("/") {
            self = .path(text)
        } else {
            do { self = .usb(try USBDeviceSelector(parsing: text)) } catch {
                throw .unsupported("cannot read serial port \"\(text)\": use a device path (/dev/ttyACM0), or the USB device "
                                   + "it belongs to as VID:PID in hex (1d6b:0104), BUS:ADDR (1:5) or serial=SERIAL")
            }
        }
    }

    public var description: String {
        switch self {
        case .usb(let device): return "serial port on USB \(device)"
        case .path(let path): return path
        }
    }
}

/// Finds serial ports through sysfs, the kernel's own view, so that a port is found by the
/// USB device behind it whatever name the kernel gave it (`ttyACM0` today, `ttyACM1` after
/// a replug).
public struct SerialPortFinder: Sendable {
    /// The kernel's TTYs (`/sys/class/tty`).
    public var ttyClass = "/sys/class/tty"
    /// Where their device nodes are.
    public var devices = "/dev"

    /// Linux's paths.
    public init() {}

    /// The ports that belong to a USB device, sorted by name. Virtual consoles, ptys and the
    /// legacy UARTs have no USB device and are not listed; select those by path.
    public func usbPorts() -> [SerialPortDescription] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: ttyClass)) ?? []
        return names.sorted().compactMap { name in
            guard let usb = usbDevice(of: name) else { return nil }
            return SerialPortDescription(name: name, path: "\(devices)/\(name)", usbDevice: usb)
        }
    }

    /// The ports `selector` picks among those present now. A path counts while its node
    /// exists (through a symbolic link, as /dev/serial/by-id has them).
    public func ports(matching selector: SerialPortSelector) -> [SerialPortDescription] {
        switch selector {
        case .path(let path):
            guard access(path, F_OK) == 0 else { return [] }
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
            let name = target.lastPathComponent
            return [SerialPortDescription(name: name, path: path, usbDevice: usbDevice(of: name))]
        case .usb(let device):
            return usbPorts().filter { $0.usbDevice.map(device.matches) ?? false }
        }
    }

    /// The USB device a TTY belongs to: the nearest folder above its `device` link that has
    /// a USB device's attributes (a CDC-ACM port hangs off an interface, a bridge's port one
    /// level further down).
    private func usbDevice(of name: String) -> USBDeviceDescription? {
        let link = "\(ttyClass)/\(name)/device"
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil else { return nil }
        var folder = URL(fileURLWithPath: link).resolvingSymlinksInPath()
        for _ in 0..<4 {
            folder.deleteLastPathComponent()
            func read(_ attribute: String) -> String? {
                (try? String(contentsOfFile: folder.appendingPathComponent(attribute).path, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let vendor = read("idVendor").flatMap({ UInt16($0, radix: 16) }) else { continue }
            guard let product = read("idProduct").flatMap({ UInt16($0, radix: 16) }),
                  let bus = read("busnum").flatMap({ UInt8($0) }), let address = read("devnum").flatMap({ UInt8($0) }) else { return nil }
            return USBDeviceDescription(bus: bus, address: address, id: USBVendorProduct(vendor, product),
                                        manufacturer: read("manufacturer"), product: read("product"), serialNumber: read("serial"))
        }
        return nil
    }
}
