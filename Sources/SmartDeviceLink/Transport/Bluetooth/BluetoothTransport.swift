#if canImport(Glibc)
import Glibc
#endif
import CSDLShim
import Foundation

/// The SDL service class UUID that head units look for over SDP.
public let sdlBluetoothServiceUUID: [UInt8] = [
    0x93, 0x6D, 0xA0, 0x1F, 0x9A, 0xBD, 0x4D, 0x9D, 0x80, 0xC7, 0x02, 0xAF, 0x85, 0xC8, 0x22, 0xA8,
]

/// The step that produces a connected RFCOMM socket: the seam of the Bluetooth transport.
///
/// After connect or accept an RFCOMM socket is an ordinary stream descriptor, so everything
/// after this step is the same code as TCP's and runs in tests over a `socketpair`.
public protocol RFCOMMConnector: Sendable {
    /// Phone role (what an Android SDL router does): listen on `channel` (nil: the first
    /// free one), publish the SDL service in SDP, and return the head unit's connection.
    func accept(channel: UInt8?, timeout: Duration) async throws(TransportError) -> (descriptor: Int32, peer: String)
    /// Client role: connect to `address` on `channel` (nil: look it up with SDP).
    func connect(address: String, channel: UInt8?, timeout: Duration) async throws(TransportError) -> Int32
    /// Client role: the devices in range, found in about `seconds` (a head unit's scan).
    func discover(seconds: Int) async throws(TransportError) -> [String]
}

/// An SDL link over Bluetooth RFCOMM through BlueZ.
///
/// In a car the head unit is the RFCOMM client and the phone publishes the SDL service,
/// so `.waitForHeadUnit` is the usual mode on Linux acting as the phone;
/// `.connect` reaches a device that publishes the service itself (a bridge, a TDK).
public final class BluetoothTransport: SDLTransport {
    /// Which side makes the connection.
    public enum Mode: Sendable, Hashable {
        /// Publish the SDL service and wait for the head unit to connect.
        case waitForHeadUnit(channel: UInt8?)
        /// Connect to a device's SDL service (channel from SDP when nil).
        case connect(address: String, channel: UInt8?)
    }

    /// Publish and wait, or connect.
    public let mode: Mode
    /// How long to wait for the head unit, or for the connection.
    public let timeout: Duration
    /// Bluetooth.
    public var kind: TransportKind { .bluetooth }
    public var description: String { mode.description }

    public var incoming: AsyncThrowingStream<[UInt8], any Error> { link.incoming }
    private let connector: any RFCOMMConnector
    private let link: StreamSocketTransport
    /// The connected socket under this link, for the driver's direct writes.
    var socket: StreamSocketTransport { link }

    /// An RFCOMM link, not yet open.
    /// - Parameters:
    ///   - mode: publish the SDL service and wait for the head unit, or connect to it.
    ///   - connector: the step that yields a connected socket; BlueZ by default.
    ///   - timeout: how long to wait for the head unit, or for the connection.
    public init(mode: Mode, timeout: Duration = .seconds(60), connector: any RFCOMMConnector = BlueZConnector()) {
        self.mode = mode
        self.timeout = timeout
        self.connector = connector
        // RFCOMM carries at most a few hundred bytes per packet; smaller reads waste nothing.
        self.link = StreamSocketTransport(description: "Bluetooth RFCOMM", kind: .bluetooth, readSize: 4096)
    }

    public func open() async throws(TransportError) {
        let descriptor: Int32
        switch mode {
        case .waitForHeadUnit(let channel):
            descriptor = try await connector.accept(channel: channel, timeout: timeout).descriptor
        case .connect(let address, let channel):
            descriptor = try await connector.connect(address: address, channel: channel, timeout: timeout)
        }
        link.attach(descriptor)
    }

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        try await link.send(bytes)
    }

    public func close() async {
        link.shutdownAndClose()
    }
}

/// RFCOMM through BlueZ: the phone role registers the SDL service with bluetoothd over
/// D-Bus (falling back to the legacy SDP socket of `bluetoothd -C`); the client role
/// connects an RFCOMM socket itself.
public struct BlueZConnector: RFCOMMConnector {
    /// The D-Bus bus bluetoothd is on: nil for the system bus; tests pass a private bus.
    public var busAddress: String?
    /// The local adapter ("hci1" or its address): connections leave from it, and in the
    /// phone role only head units that reach it are taken (through bluetoothd's D-Bus API;
    /// the legacy SDP socket listens on all). Nil: any adapter.
    public var adapter: String?

    /// A connector on `busAddress` (nil: the system bus) for `adapter` (nil: any).
    public init(busAddress: String? = nil, adapter: String? = nil) {
        self.busAddress = busAddress
        self.adapter = adapter
    }

    /// The one line a machine without Bluetooth gets.
    static let noBluetooth = TransportError.unsupported(
        "this machine has no Bluetooth support (the kernel offers no AF_BLUETOOTH sockets); use --tcp or --usb, "
            + "or run where BlueZ and a Bluetooth adapter are available")

    static func rfcommSocket() throws(TransportError) -> Int32 {
        let fd = sdl_rfcomm_socket()
        guard fd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT { throw noBluetooth }
            throw TransportError.io(operation: "socket(AF_BLUETOOTH)", code: code, message: String(cString: strerror(code)))
        }
        return fd
    }

    static func validate(_ address: String) throws(TransportError) {
        guard sdl_bt_address_valid(address) != 0 else {
            throw TransportError.unreachable(endpoint: address, reason: "not a Bluetooth address; write it as 00:11:22:33:44:55")
        }
    }

    public func accept(channel: UInt8?, timeout: Duration) async throws(TransportError) -> (descriptor: Int32, peer: String) {
        try await BlockingCall.run(
            "sdl-bt-accept", discard: { _ = systemClose($0.descriptor) },
            onCancel: { .closed("waiting for a head unit over Bluetooth was cancelled") }
        ) { [busAddress, adapter] () throws(TransportError) -> (descriptor: Int32, peer: String) in
            // bluetoothd's path names the adapter ("/org/bluez/hci1/dev_…"); an address is looked up.
            var adapterName = adapter
            if let adapter, !adapter.hasPrefix("hci") { adapterName = try BluetoothAdapter.find(adapter).name }
            let unavailable: BlueZProfile.Unavailable
            switch try BlueZProfile.accept(busAddress: busAddress, channel: channel, adapter: adapterName, timeout: timeout) {
            case .success(let connection): return connection
            case .failure(let reason): unavailable = reason
            }
            // D-Bus could not be used: the legacy SDP socket may still be (bluetoothd -C).
            do throws(TransportError) {
                return try Self.acceptBlocking(channel: channel, timeout: timeout)
            } catch {
                let legacy = Self.firstClause(of: error.description)
                throw TransportError.unsupported("cannot publish the SDL service over Bluetooth: \(unavailable.reason), "
                                                 + "and the legacy SDP path failed too (\(legacy)); \(unavailable.advice)")
            }
        }
    }

    /// The cause part of a message, without the advice after its first ";" or ":".
    static func firstClause(of text: String) -> String {
        String(text.prefix { $0 != ";" && $0 != ":" })
    }

    public func connect(address: String, channel: UInt8?, timeout: Duration) async throws(TransportError) -> Int32 {
        try await BlockingCall.run(
            "sdl-bt-connect", discard: { _ = systemClose($0) },
            onCancel: { .closed("connecting to \(address) over Bluetooth was cancelled") }
        ) { [adapter] () throws(TransportError) -> Int32 in
            var source: String?
            if let adapter {
                let local = try BluetoothAdapter.find(adapter)
                try local.requirePowered()
                source = local.address
            }
            return try Self.connectBlocking(address: address, channel: channel, from: source, timeout: timeout)
        }
    }

    public func discover(seconds: Int) async throws(TransportError) -> [String] {
        try await BlockingCall.run(
            "sdl-bt-inquiry", discard: { _ in },
            onCancel: { .closed("looking for Bluetooth devices was cancelled") }
        ) { [adapter] () throws(TransportError) -> [String] in
            try BluetoothAdapter.find(adapter).inquire(seconds: seconds)
        }
    }

    /// Binds, publishes the SDL service in SDP and waits for the head unit (blocking).
    static func acceptBlocking(channel: UInt8?, timeout: Duration) throws(TransportError) -> (descriptor: Int32, peer: String) {
        let listener = try Self.rfcommSocket()
        defer { _ = systemClose(listener) }
        guard let bound = (channel.map { [$0] } ?? Array(1...30)).first(where: { sdl_rfcomm_bind_listen(listener, $0) == 0 }) else {
            throw TransportError.busy(device: "RFCOMM channel \(channel.map(String.init) ?? "1…30")")
        }
        guard let record = sdl_sdp_register_rfcomm(sdlBluetoothServiceUUID, bound, " SdlRouterService") else {
            let code = errno
            throw TransportError.unsupported("cannot publish the SDL service in SDP (\(String(cString: strerror(code)))): "
                                             + "is bluetoothd running (with --compat for the SDP socket)?")
        }
        defer { sdl_sdp_unregister(record) }
        var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(clamping: Int64(timeout.seconds * 1000))) > 0 else {
            throw TransportError.timedOut(operation: "waiting for a head unit on RFCOMM channel \(bound)", seconds: timeout.seconds)
        }
        var peer = [CChar](repeating: 0, count: 18)
        let client = sdl_rfcomm_accept(listener, &peer)
        guard client >= 0 else { throw TransportError.io(operation: "accept", code: errno, message: String(cString: strerror(errno))) }
        return (client, String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Looks the channel up in SDP when not given, and connects (blocking).
    static func connectBlocking(address text: String, channel: UInt8?, from source: String?, timeout: Duration) throws(TransportError) -> Int32 {
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1000))
        try Self.validate(text)
        let fd = try Self.rfcommSocket()
        var resolved = channel ?? 0
        if channel == nil {
            guard sdl_sdp_find_rfcomm_channel(source, text, sdlBluetoothServiceUUID, milliseconds, &resolved) == 0 else {
                let code = errno
                _ = systemClose(fd)
                if code == ENOENT {
                    throw TransportError.unreachable(endpoint: text, reason: "it does not publish the SDL service in SDP; is the SDL app running?")
                }
                throw TransportError.unreachable(endpoint: text, reason: "SDP lookup failed: \(String(cString: strerror(code))); is it on, in range and paired?")
            }
        }
        guard sdl_rfcomm_connect(fd, source, text, resolved, milliseconds) == 0 else {
            let code = errno
            _ = systemClose(fd)
            if code == ECONNREFUSED { throw TransportError.connectionRefused(endpoint: "\(text) channel \(resolved)") }
            throw TransportError.unreachable(endpoint: "\(text) channel \(resolved)", reason: "\(String(cString: strerror(code))); is it on, in range and paired?")
        }
        return fd
    }
}
