/// Switches an Android phone into accessory mode (Android Open Accessory), as the USB host
/// (head-unit side, e.g. `sdl-run emulate --usb` with a real phone), exactly as sdl_core does:
///
/// 1. control IN `0xC0`, request 51 GET_PROTOCOL, 2 bytes: the AOA version, u16
///    little-endian; 0 (or a stall) means the device does not speak AOA;
/// 2. six control OUT `0x40`, request 52 SEND_STRING, `wIndex` 0...5: manufacturer, model,
///    description, version, URI, serial (``Identity``);
/// 3. control OUT `0x40`, request 53 START;
/// 4. wait (hotplug arrival, with a timeout) for the phone to come back as 18d1:2d00 or
///    18d1:2d01, and open a ``USBTransport`` on it with the first IN and first OUT
///    endpoints, as core does.
///
/// Strings are sent **without** a terminating NUL, like sdl_core (`length = strlen`).
/// The AOA documentation describes zero-terminated strings, but Android's kernel function
/// (`f_accessory.c`) copies the bytes into a 256-byte buffer and adds the NUL itself, so
/// phones accept both; staying byte-identical with core means a phone (or app filter) that
/// works with core works here. Each string must therefore be at most 255 bytes of UTF-8
/// and must not contain NUL.
///
/// Deviation from core, on purpose: core uses no timeout (0) on these control transfers;
/// here each has ``controlTimeout`` so a wedged device gives an error instead of a hang.
/// Core claims interface 0 before the switch; vendor requests to the device need no claimed
/// interface, so this does not (a phone whose MTP interface is held elsewhere still switches).
public struct AOASwitcher: Sendable {
    /// The identification strings, AOA indices 0...5.
    public struct Identity: Sendable, Hashable {
        /// The accessory's manufacturer (sdl_core: "SDL").
        public var manufacturer: String
        /// Its model (sdl_core: "Core").
        public var model: String
        /// Its description.
        public var description: String
        /// Its version.
        public var version: String
        /// Where to get the app for it.
        public var uri: String
        /// Its serial number.
        public var serial: String

        /// An identity of these six strings, sent in this order.
        public init(manufacturer: String, model: String, description: String, version: String, uri: String, serial: String) {
            self.manufacturer = manufacturer
            self.model = model
            self.description = description
            self.version = version
            self.uri = uri
            self.serial = serial
        }

        /// sdl_core's defaults (`AOAFilter*` in its ini). SDL apps' accessory filters match
        /// manufacturer "SDL", model "Core" and version "1.0": change those only together
        /// with the apps.
        public static let sdlCore = Identity(
            manufacturer: "SDL", model: "Core", description: "SmartDeviceLink Core Component USB",
            version: "1.0", uri: "http://www.smartdevicelink.org", serial: "N000000")

        /// The strings in AOA index order (0 manufacturer ... 5 serial).
        public var strings: [String] { [manufacturer, model, description, version, uri, serial] }

        /// The largest string, in UTF-8 bytes: Android keeps 256 bytes including its NUL.
        public static let maximumLength = 255

        /// Throws when a string is too long for the phone or holds a NUL.
        public func validate() throws(TransportError) {
            let names = ["manufacturer", "model", "description", "version", "URI", "serial"]
            for (name, value) in zip(names, strings) {
                if value.utf8.count > Self.maximumLength {
                    throw TransportError.unsupported(
                        "AOA \(name) string is \(value.utf8.count) bytes; Android accepts at most \(Self.maximumLength)")
                }
                if value.utf8.contains(0) {
                    throw TransportError.unsupported("AOA \(name) string contains a NUL byte; Android would cut it there")
                }
            }
        }
    }

    /// AOA vendor requests.
    public static let getProtocol: UInt8 = 51
    /// ACCESSORY_SEND_STRING (52): one identity string.
    public static let sendString: UInt8 = 52
    /// ACCESSORY_START (53): switch to accessory mode.
    public static let start: UInt8 = 53

    /// The strings sent with SEND_STRING (default: sdl_core's).
    public var identity: Identity
    /// Timeout of each control transfer.
    public var controlTimeout: Duration
    /// How long to wait for the phone to come back in accessory mode after START.
    public var reenumerationTimeout: Duration
    /// Options for the returned transport (endpoints: first IN and first OUT, like core).
    public var transportOptions: USBTransport.Options
    private let backend: (any USBBackend)?

    /// A switcher; `backend` defaults to a new ``LibUSBBackend`` per ``connect(_:)``.
    public init(identity: Identity = .sdlCore, controlTimeout: Duration = .seconds(2),
                reenumerationTimeout: Duration = .seconds(10), backend: (any USBBackend)? = nil) {
        self.identity = identity
        self.controlTimeout = controlTimeout
        self.reenumerationTimeout = reenumerationTimeout
        self.backend = backend
        var options = USBTransport.Options()
        options.endpoints = .firstInAndOut
        self.transportOptions = options
    }

    /// Switches the phone `selector` picks into accessory mode (unless it already is) and
    /// returns an open transport on the re-enumerated device.
    public func connect(_ selector: USBDeviceSelector) async throws(TransportError) -> USBTransport {
        try identity.validate()
        let backend: any USBBackend
        if let supplied = self.backend {
            backend = supplied
        } else {
            do { backend = try LibUSBBackend() } catch {
                throw TransportError.unsupported("cannot initialise libusb (\(error)); USB cannot work on this machine")
            }
        }
        let phone = try USBDeviceFinder.find(selector, on: backend)
        let accessory: USBDeviceDescription
        if phone.id.isAccessoryMode {
            accessory = phone
        } else {
            // Listen before START, so the arrival cannot be missed.
            let events: AsyncStream<USBHotplugEvent>
            do { events = try backend.hotplugEvents(enumerateExisting: false) } catch {
                throw error.transportError("register for hotplug events", on: phone)
            }
            try await sendSwitch(to: phone, backend: backend)
            accessory = try await waitForAccessory(events, after: phone)
        }
        let transport = USBTransport(.busAddress(bus: accessory.bus, address: accessory.address),
                                     options: transportOptions, backend: backend)
        try await transport.open()
        return transport
    }

    /// Runs GET_PROTOCOL, the six SEND_STRINGs and START on `phone`.
    /// Returns the AOA protocol version the phone reported.
    @discardableResult
    public func sendSwitch(to phone: USBDeviceDescription, backend: any USBBackend) async throws(TransportError) -> UInt16 {
        try identity.validate()
        let handle: any USBDeviceHandle
        do { handle = try backend.open(phone) } catch { throw error.transportError("open", on: phone) }
        defer { handle.close() }

        let reply = try await control(handle, "GET_PROTOCOL (AOA request 51)", USBControlSetup(
            requestType: 0xC0, request: Self.getProtocol, value: 0, index: 0, length: 2))
        switch reply.status {
        case .completed: break
        case .stall:
            throw TransportError.unsupported(
                "USB \(phone) is not AOA-capable: it refused GET_PROTOCOL (request 51); pick an Android phone (or another device)")
        default:
            throw failure(reply.status, "GET_PROTOCOL (AOA request 51)", phone)
        }
        let version = reply.data.count >= 2 ? UInt16(reply.data[0]) | UInt16(reply.data[1]) << 8 : 0
        guard version != 0 else {
            throw TransportError.unsupported(
                "USB \(phone) is not AOA-capable: GET_PROTOCOL (request 51) returned version 0; pick an Android phone (or another device)")
        }
        SDLLog.usb.debug("USB \(phone): AOA protocol \(version); sending the accessory strings and START")
        for (index, string) in identity.strings.enumerated() {
            let bytes = Array(string.utf8)   // no NUL, like sdl_core; see the type's documentation
            let what = "SEND_STRING \(index) (AOA request 52)"
            let r = try await control(handle, what, USBControlSetup(
                requestType: 0x40, request: Self.sendString, value: 0, index: UInt16(index), length: UInt16(bytes.count)), data: bytes)
            guard r.status == .completed else { throw failure(r.status, what, phone) }
        }
        let r = try await control(handle, "START (AOA request 53)", USBControlSetup(
            requestType: 0x40, request: Self.start, value: 0, index: 0, length: 0))
        // A phone may drop off the bus before the status stage: that is the switch happening.
        guard r.status == .completed || r.status == .noDevice else { throw failure(r.status, "START (AOA request 53)", phone) }
        SDLLog.usb.info("USB \(phone) switched to accessory mode; waiting for it to come back")
        return version
    }

    private func control(_ handle: any USBDeviceHandle, _ what: String, _ setup: USBControlSetup,
                         data: [UInt8] = []) async throws(TransportError) -> USBTransferResult {
        do {
            return try await handle.control(setup, data: data, timeout: controlTimeout)
        } catch {
            throw error.transportError(what, on: handle.device, timeout: controlTimeout)
        }
    }

    private func failure(_ status: USBTransferStatus, _ what: String, _ phone: USBDeviceDescription) -> TransportError {
        switch status {
        case .timedOut: return .timedOut(operation: "\(what) to USB \(phone)", seconds: controlTimeout.seconds)
        case .noDevice: return .closed("device unplugged")
        default: return .io(operation: "\(what) to USB \(phone)", code: -1, message: "transfer ended with \(status)")
        }
    }

    private func waitForAccessory(_ events: AsyncStream<USBHotplugEvent>, after phone: USBDeviceDescription) async throws(TransportError) -> USBDeviceDescription {
        let arrived = await USBHotplugWait.first(in: events, within: reenumerationTimeout) { $0.id.isAccessoryMode }
        guard let arrived else {
            throw TransportError.timedOut(
                operation: "waiting for USB \(phone) to come back in accessory mode (18d1:2d00/2d01) after AOA START",
                seconds: reenumerationTimeout.seconds)
        }
        return arrived
    }
}
