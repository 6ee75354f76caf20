import Foundation

/// Finds the device a selector names, with errors that list what was seen.
enum USBDeviceFinder {
    static func find(_ selector: USBDeviceSelector, on backend: any USBBackend) throws(TransportError) -> USBDeviceDescription {
        let devices: [USBDeviceDescription]
        do { devices = try backend.devices(readingStrings: selector.needsStrings) } catch {
            throw TransportError.io(operation: "list USB devices", code: error.rawValue, message: error.description)
        }
        if let match = devices.first(where: selector.matches) { return match }
        if devices.isEmpty, !FileManager.default.fileExists(atPath: "/dev/bus/usb") {
            throw TransportError.unsupported(
                "no USB support on this machine: /dev/bus/usb does not exist (no usbfs in this kernel or container), so no device matching \(selector) can be found")
        }
        let seen = selector.needsStrings ? devices : ((try? backend.devices(readingStrings: true)) ?? devices)
        throw TransportError.noDevice(wanted: selector.description, found: seen.map(\.description))
    }
}
