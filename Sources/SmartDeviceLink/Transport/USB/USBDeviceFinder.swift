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

    /// Returns once a device `selector` matches is on the bus: at once when one is there,
    /// else when hotplug reports one, or throws after `timeout`.
    static func waitFor(_ selector: USBDeviceSelector, on backend: any USBBackend, timeout: Duration) async throws(TransportError) {
        let arrivals: AsyncStream<USBHotplugEvent>
        do {
            // Registered before the first look, so a device plugged in between is not missed.
            arrivals = try backend.hotplugEvents(enumerateExisting: false)
        } catch {
            throw TransportError.io(operation: "watch for USB devices (hotplug)", code: error.rawValue, message: error.description)
        }
        if (try? find(selector, on: backend)) != nil { return }
        let arrived = await USBHotplugWait.first(in: arrivals, within: timeout) { _ in (try? find(selector, on: backend)) != nil } != nil
        guard arrived else {
            // What is there now, as the plain lookup says it.
            do { _ = try find(selector, on: backend) } catch {
                if case .noDevice(let wanted, let found) = error {
                    let seen = found.isEmpty ? "no USB devices at all" : "found: " + found.joined(separator: ", ")
                    throw TransportError.timedOut(operation: "waiting for a USB device matching \(wanted) (\(seen))", seconds: timeout.seconds)
                }
                throw error
            }
            return
        }
    }
}

/// Waits for hotplug to report an arrival: the one step the AOA switch (the phone coming
/// back as an accessory) and a run waiting for its device (`--wait`) share.
enum USBHotplugWait {
    /// The first device that arrives and `matches`, or nil when `timeout` passes first.
    static func first(in events: AsyncStream<USBHotplugEvent>, within timeout: Duration,
                      where matches: @escaping @Sendable (USBDeviceDescription) -> Bool) async -> USBDeviceDescription? {
        await withTaskGroup(of: USBDeviceDescription?.self) { group in
            group.addTask {
                for await event in events {
                    if case .arrived(let device) = event, matches(device) { return device }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
