#if canImport(Glibc)
import Glibc
#endif
import CSDLShim

/// The SDL service through BlueZ's D-Bus API: `org.bluez.ProfileManager1.RegisterProfile`
/// with the SDL UUID, role server. bluetoothd publishes the SDP record, listens on RFCOMM and
/// hands over each connection in `org.bluez.Profile1.NewConnection`. This is how a stock
/// bluetoothd 5 (Debian, Ubuntu, Raspberry Pi OS) lets a program publish a service; the
/// legacy SDP socket exists only in its compatibility mode (`bluetoothd -C`).
enum BlueZProfile {
    /// The UUID as BlueZ reads it.
    static let uuid = "936da01f-9abd-4d9d-80c7-02af85c822a8"
    /// The service name a head unit shows (an Android SDL router's).
    static let serviceName = "SdlRouterService"

    /// Why D-Bus could not be used; the caller may try the legacy SDP socket instead.
    struct Unavailable: Error {
        var reason: String
        var advice: String
    }

    /// Registers the profile and waits for the head unit's connection (blocking).
    ///
    /// The registration always names an RFCOMM channel: for a UUID it has no defaults for,
    /// bluetoothd 5.66 publishes a record without one and listens on none, so every head
    /// unit's connect is refused (seen on a real bluetoothd in scripts/lab).
    /// With `adapter` ("hci1"), a head unit that reached another adapter is turned away and
    /// the wait goes on: bluetoothd serves a profile on every adapter it has.
    static func accept(busAddress: String?, channel: UInt8?, adapter: String?, timeout: Duration) throws(TransportError) -> Result<(descriptor: Int32, peer: String), Unavailable> {
        let channel = if let channel { channel } else { try freeChannel() }
        SDLLog.bluetooth.debug("registering the SDL profile with bluetoothd on RFCOMM channel \(channel)")
        var handle: UnsafeMutableRawPointer?
        var errorName = [CChar](repeating: 0, count: 256)
        var errorMessage = [CChar](repeating: 0, count: 512)
        let registered = sdl_bluez_profile_register(busAddress, uuid, serviceName, Int32(channel), &handle,
                                                    &errorName, errorName.count, &errorMessage, errorMessage.count)
        guard registered == 0, let handle else {
            let name = text(errorName), message = text(errorMessage)
            if name == "adapter-off" {
                throw TransportError.unsupported("\(message): turn it on (bluetoothctl power on) and wait again")
            }
            let reason = unavailable(code: -registered, name: name, message: message)
            SDLLog.bluetooth.info("BlueZ's D-Bus API: \(reason.reason); trying the legacy SDP socket")
            return .failure(reason)
        }
        defer { sdl_bluez_profile_close(handle) }
        let deadline = ContinuousClock.now + timeout
        var device = [CChar](repeating: 0, count: 128)
        var fd: Int32
        repeat {
            let left = max(0, (deadline - .now).seconds)
            fd = sdl_bluez_profile_wait(handle, Int32(clamping: Int64(left * 1000)), &device, device.count)
            guard fd >= 0, let adapter, !text(device).hasPrefix("/org/bluez/\(adapter)/") else { break }
            SDLLog.bluetooth.info("head unit \(address(ofDevicePath: text(device))) reached another adapter than \(adapter); turned away")
            _ = systemClose(fd)
        } while true
        switch fd {
        case 0...:
            SDLLog.bluetooth.info("head unit \(address(ofDevicePath: text(device))) connected to the SDL service")
            return .success((fd, address(ofDevicePath: text(device))))
        case -ETIMEDOUT:
            throw TransportError.timedOut(operation: "waiting for a head unit to connect to the SDL Bluetooth service", seconds: timeout.seconds)
        case -ECONNRESET:
            throw TransportError.closed("bluetoothd released the SDL profile (it stopped or restarted); wait again")
        default:
            throw TransportError.io(operation: "waiting for BlueZ's NewConnection", code: -fd, message: String(cString: strerror(-fd)))
        }
    }

    /// The first RFCOMM channel nothing listens on, found by binding each in turn; channel 1
    /// where this machine has no RFCOMM sockets to try (a bluetoothd there has no adapter).
    static func freeChannel() throws(TransportError) -> UInt8 {
        for channel in UInt8(1)...30 {
            guard let socket = try? BlueZConnector.rfcommSocket() else { return 1 }
            defer { _ = systemClose(socket) }
            if sdl_rfcomm_bind_listen(socket, channel) == 0 { return channel }
        }
        throw TransportError.busy(device: "RFCOMM channels 1…30")
    }

    /// What each D-Bus failure means and what to do about it.
    static func unavailable(code: Int32, name: String, message: String) -> Unavailable {
        switch name {
        case "bus":
            return Unavailable(reason: "no D-Bus system bus (\(message))", advice: "is D-Bus running?")
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return Unavailable(reason: "bluetoothd is not on the system bus", advice: "start it (sudo systemctl start bluetooth)")
        case "org.freedesktop.DBus.Error.AccessDenied":
            return Unavailable(reason: "D-Bus denied RegisterProfile (\(message))",
                               advice: "run as root, or allow this user in BlueZ's D-Bus policy (/etc/dbus-1/system.d/bluetooth.conf)")
        case "org.bluez.Error.AlreadyExists":
            return Unavailable(reason: "another program has registered the SDL profile", advice: "stop the other SDL router and retry")
        default:
            return Unavailable(reason: "RegisterProfile failed: \(name.isEmpty ? String(cString: strerror(code)) : name): \(message)",
                               advice: "check bluetoothd's log (journalctl -u bluetooth)")
        }
    }

    /// A C string buffer filled by the shim.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "/org/bluez/hci0/dev_00_11_22_33_44_55" → "00:11:22:33:44:55".
    static func address(ofDevicePath path: String) -> String {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return path }
        return last.dropFirst(4).replacingOccurrences(of: "_", with: ":")
    }
}
