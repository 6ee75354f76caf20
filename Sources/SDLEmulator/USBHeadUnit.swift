public import SmartDeviceLink
import Foundation

extension HeadUnitEmulator {
    /// Serves Android phones over USB the way sdl_core's USB adapter does: every matching
    /// device that arrives (also those present at start) is switched into accessory mode
    /// with the AOA sequence, and the accessory that re-enumerates (18d1:2d00/2d01) is
    /// served as a new connection. Runs until the task is cancelled.
    ///
    /// - Parameters:
    ///   - phones: which devices to switch (e.g. the phone's normal VID:PID); accessory-mode
    ///     devices are always served.
    ///   - identity: the six AOA strings; the phone's SDL app filters on manufacturer, model
    ///     and version ("SDL", "Core", "1.0" by default, as core).
    ///   - backend: the libusb seam (a new `LibUSBBackend` by default).
    /// - Throws: a one-line `TransportError` when this machine cannot do USB at all.
    public func serveUSB(phones: USBDeviceSelector?, identity: AOASwitcher.Identity = .sdlCore,
                         backend: (any USBBackend)? = nil) async throws(TransportError) {
        try identity.validate()
        guard backend != nil || FileManager.default.fileExists(atPath: "/dev/bus/usb") else {
            throw TransportError.unsupported(
                "no USB support on this machine: /dev/bus/usb does not exist (no usbfs in this kernel or container); "
                    + "emulate without --usb, or run where phones can be plugged in")
        }
        let usb: any USBBackend
        if let backend {
            usb = backend
        } else {
            do { usb = try LibUSBBackend() } catch {
                throw TransportError.unsupported("cannot initialise libusb (\(error)); USB cannot work on this machine")
            }
        }
        let events: AsyncStream<USBHotplugEvent>
        do { events = try usb.hotplugEvents(enumerateExisting: true) } catch {
            throw TransportError.unsupported("libusb cannot watch for USB devices (\(error)); is this a Linux kernel with usbfs?")
        }
        let switcher = AOASwitcher(identity: identity, backend: usb)
        var options = USBTransport.Options()
        options.endpoints = .firstInAndOut  // as core: the first IN and OUT endpoints of the accessory
        for await event in events {
            guard case .arrived(let device) = event else { continue }
            if device.id.isAccessoryMode {
                let transport = USBTransport(.busAddress(bus: device.bus, address: device.address), options: options, backend: usb)
                do {
                    try await transport.open()
                    await serve(transport)
                } catch {
                    emit(.usbDeviceFailed(device: device.description, reason: error.description))
                }
            } else if phones?.matches(device) == true {
                do {
                    // The accessory's own arrival event, later in this stream, opens it.
                    try await switcher.sendSwitch(to: device, backend: usb)
                    emit(.usbSwitched(device: device.description))
                } catch {
                    emit(.usbDeviceFailed(device: device.description, reason: error.description))
                }
            }
        }
    }
}
