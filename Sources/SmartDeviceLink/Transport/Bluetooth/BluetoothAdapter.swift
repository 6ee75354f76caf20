#if canImport(Glibc)
import Glibc
#endif
import CSDLShim

/// A local Bluetooth controller: the one a link leaves from or arrives on.
///
/// A machine with two radios (a bench with the head unit's dongle and the phone's, or the
/// lab's two virtual controllers) names one with `--bt-adapter hci1` or by its address.
public struct BluetoothAdapter: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's device id (the N of hciN).
    public let id: Int32
    /// "hci1".
    public let name: String
    /// "00:AA:01:01:00:01".
    public let address: String
    /// Whether it was up when it was looked up.
    public let isPowered: Bool

    public var description: String { "\(name) (\(address))" }

    /// Finds an adapter by name ("hci1") or address; nil asks for the kernel's default one.
    public static func find(_ spec: String?) throws(TransportError) -> BluetoothAdapter {
        let (found, code) = lookUp(spec)
        if let found { return found }
        if code == EAFNOSUPPORT || code == EPROTONOSUPPORT { throw BlueZConnector.noBluetooth }
        if code == EINVAL {
            throw TransportError.unsupported("'\(spec ?? "")' is not a Bluetooth adapter: name it hciN or by its address (hciconfig lists them)")
        }
        if code == ENODEV {
            throw TransportError.noDevice(wanted: spec.map { "Bluetooth adapter \($0)" } ?? "a Bluetooth adapter", found: list().map(\.description))
        }
        throw TransportError.io(operation: "finding Bluetooth adapter \(spec ?? "(default)")", code: code, message: String(cString: strerror(code)))
    }

    /// Throws the one line that says this adapter is off.
    public func requirePowered() throws(TransportError) {
        guard isPowered else {
            throw TransportError.unreachable(endpoint: "Bluetooth adapter \(name)", reason: "it is powered off; turn it on (bluetoothctl power on)")
        }
    }

    /// Every adapter the kernel has, powered or not.
    public static func list() -> [BluetoothAdapter] {
        (0..<16).compactMap { lookUp("hci\($0)").adapter }
    }

    /// The adapter, or nil and the errno that says why not.
    private static func lookUp(_ spec: String?) -> (adapter: BluetoothAdapter?, errno: Int32) {
        var address = [CChar](repeating: 0, count: 18)
        var name = [CChar](repeating: 0, count: 16)
        var powered: Int32 = 0
        let id = sdl_bt_adapter(spec, &address, &name, &powered)
        guard id >= 0 else { return (nil, errno) }
        return (BluetoothAdapter(id: id, name: BlueZProfile.text(name), address: BlueZProfile.text(address), isPowered: powered != 0), 0)
    }

    /// The devices in range that answer an inquiry of about `seconds` (blocking), as a head
    /// unit's device scanner finds phones before it asks each for the SDL service.
    public func inquire(seconds: Int) throws(TransportError) -> [String] {
        var addresses = [(CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar,
                          CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar)](
            repeating: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), count: 32)
        try requirePowered()
        let count = sdl_bt_inquiry(id, Int32(seconds), &addresses, Int32(addresses.count))
        guard count >= 0 else {
            let code = errno
            throw TransportError.io(operation: "inquiry on \(name)", code: code, message: String(cString: strerror(code)))
        }
        return addresses.prefix(Int(count)).map { tuple in
            withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
    }
}
