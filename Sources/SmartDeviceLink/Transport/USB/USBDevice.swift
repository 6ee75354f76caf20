/// A USB vendor and product ID pair, written `18d1:2d01` (hex, as `lsusb` shows it).
public struct USBVendorProduct: Hashable, Sendable, CustomStringConvertible {
    /// The vendor id (idVendor).
    public var vendorID: UInt16
    /// The product id (idProduct).
    public var productID: UInt16

    /// An id of these two numbers.
    public init(_ vendorID: UInt16, _ productID: UInt16) {
        self.vendorID = vendorID
        self.productID = productID
    }

    /// Parses `VVVV:PPPP` (four hex digits each). Returns nil for anything else.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 4 }),
              let v = UInt16(parts[0], radix: 16), let p = UInt16(parts[1], radix: 16) else { return nil }
        self.init(v, p)
    }

    /// "VVVV:PPPP" in hex, as lsusb writes it.
    public var description: String { hex4(vendorID) + ":" + hex4(productID) }

    /// Google's Android Open Accessory product in accessory mode.
    public static let androidAccessory = USBVendorProduct(0x18D1, 0x2D00)
    /// Accessory mode with ADB enabled.
    public static let androidAccessoryWithADB = USBVendorProduct(0x18D1, 0x2D01)
    /// The IDs sdl_core accepts as "already in accessory mode" (AOAv2 audio/HID PIDs are not
    /// recognised by core, so not here either).
    public static let accessoryMode: [USBVendorProduct] = [androidAccessory, androidAccessoryWithADB]

    /// Whether this is a phone already switched to accessory mode.
    public var isAccessoryMode: Bool { Self.accessoryMode.contains(self) }
}

/// One USB device as enumeration sees it, e.g. `18d1:4ee1 Pixel bus 1 addr 5`.
///
/// The strings are read from the device's string descriptors, which needs opening it;
/// they are nil when that was not asked for or not allowed.
public struct USBDeviceDescription: Hashable, Sendable, CustomStringConvertible {
    /// The bus it is on.
    public var bus: UInt8
    /// Its address on the bus.
    public var address: UInt8
    /// Its vendor and product id.
    public var id: USBVendorProduct
    /// Its manufacturer string, if it could be read.
    public var manufacturer: String?
    /// Its product string, if it could be read.
    public var product: String?
    /// Its serial number, if it could be read.
    public var serialNumber: String?

    /// A description of these parts.
    public init(bus: UInt8, address: UInt8, id: USBVendorProduct,
                manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil) {
        self.bus = bus
        self.address = address
        self.id = id
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
    }

    /// `18d1:4ee1 Pixel bus 1 addr 5`: what error messages list.
    public var description: String {
        var s = id.description
        if let product, !product.isEmpty { s += " " + product }
        return s + " bus \(bus) addr \(address)"
    }

    /// The usbfs node, `/dev/bus/usb/BBB/DDD`, whose permissions decide who may open it.
    public var devicePath: String { "/dev/bus/usb/" + pad3(bus) + "/" + pad3(address) }

    /// Whether two descriptions name the same plugged-in device (bus and address are
    /// reused only after the device left).
    func isSameDevice(as other: USBDeviceDescription) -> Bool {
        bus == other.bus && address == other.address && id == other.id
    }

    static let permissionHint =
        "install the udev rules (udev/60-smartdevicelink.rules) with scripts/install-udev-rules, "
        + "then unplug and replug the device; for a phone's normal-mode VID:PID or a TDK id not "
        + "listed there, add a line to the rules file (or add yourself to the plugdev group)"
}

/// Which device a USB transport should use.
public enum USBDeviceSelector: Hashable, Sendable, CustomStringConvertible {
    /// The first device whose VID:PID is in the list (by bus, then address).
    case ids([USBVendorProduct])
    /// The device at this bus number and address (as `lsusb` prints them).
    case busAddress(bus: UInt8, address: UInt8)
    /// The device whose serial-number string descriptor is this.
    case serial(String)

    /// Phones in accessory mode (18d1:2d00, 18d1:2d01) plus the given TDK/bridge IDs.
    public static func sdlDevices(tdkIDs: [USBVendorProduct] = []) -> USBDeviceSelector {
        .ids(USBVendorProduct.accessoryMode + tdkIDs)
    }

    /// The default: a phone in accessory mode or a device with an ID from ``defaultTDKIDs``.
    public static var `default`: USBDeviceSelector { sdlDevices(tdkIDs: defaultTDKIDs) }

    /// TDK/bridge IDs selected by default, besides accessory mode. A Linux-based TDK that
    /// exposes SDL through a configfs gadget enumerates as the Linux Foundation's
    /// "multifunction composite gadget" 1d6b:0104 unless configured otherwise; add
    /// vendor-specific IDs with ``sdlDevices(tdkIDs:)``. Keep this list in step with
    /// `udev/60-smartdevicelink.rules`.
    public static let defaultTDKIDs: [USBVendorProduct] = [USBVendorProduct(0x1D6B, 0x0104)]

    /// Parses a command-line value: `VVVV:PPPP[,VVVV:PPPP...]` (hex IDs), `BUS:ADDR`
    /// (decimal, e.g. `1:5` or `001:005`), or `serial=XYZ`.
    public init(parsing text: String) throws(TransportError) {
        if text.hasPrefix("serial=") {
            let serial = String(text.dropFirst("serial=".count))
            guard !serial.isEmpty else { throw Self.badSyntax(text) }
            self = .serial(serial)
            return
        }
        let items = text.split(separator: ",")
        let ids = items.compactMap { USBVendorProduct(parsing: $0) }
        if !items.isEmpty, ids.count == items.count {
            self = .ids(ids)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy({ $0.isASCII && $0.isNumber }) }),
           let bus = UInt8(parts[0]), let address = UInt8(parts[1]) {
            self = .busAddress(bus: bus, address: address)
            return
        }
        throw Self.badSyntax(text)
    }

    private static func badSyntax(_ text: String) -> TransportError {
        .unsupported("cannot read USB device \"\(text)\": use VID:PID in hex (18d1:2d01), BUS:ADDR in decimal (1:5) or serial=SERIAL")
    }

    /// Whether matching needs the string descriptors (only for ``serial(_:)``).
    var needsStrings: Bool {
        if case .serial = self { return true }
        return false
    }

    /// Whether `device` is what this selector asks for.
    public func matches(_ device: USBDeviceDescription) -> Bool {
        switch self {
        case .ids(let ids): return ids.contains(device.id)
        case .busAddress(let bus, let address): return device.bus == bus && device.address == address
        case .serial(let serial): return device.serialNumber == serial
        }
    }

    public var description: String {
        switch self {
        case .ids(let ids): return ids.map(\.description).joined(separator: " or ")
        case .busAddress(let bus, let address): return "bus \(bus) addr \(address)"
        case .serial(let serial): return "serial \(serial)"
        }
    }
}

/// A device arriving or leaving, as libusb's hotplug reports it.
public enum USBHotplugEvent: Hashable, Sendable {
    /// A device was plugged in (or was there when watching began).
    case arrived(USBDeviceDescription)
    /// A device went away.
    case left(USBDeviceDescription)
}

// MARK: - Descriptors

/// The direction and type bits of an endpoint descriptor.
public struct USBEndpointDescriptor: Hashable, Sendable {
    /// `bEndpointAddress`: bit 7 set for IN.
    public var address: UInt8
    /// `bmAttributes`: bits 0-1 are the transfer type (2 = bulk).
    public var attributes: UInt8
    /// The largest packet it moves.
    public var maxPacketSize: UInt16

    /// An endpoint of these fields.
    public init(address: UInt8, attributes: UInt8, maxPacketSize: UInt16) {
        self.address = address
        self.attributes = attributes
        self.maxPacketSize = maxPacketSize
    }

    /// Device-to-host.
    public var isIn: Bool { address & 0x80 != 0 }
    /// A bulk endpoint (transfer type 2).
    public var isBulk: Bool { attributes & 0x03 == 2 }
}

/// One alternate setting of one interface.
public struct USBInterfaceDescriptor: Hashable, Sendable {
    /// The interface number.
    public var number: UInt8
    /// Its alternate setting.
    public var alternateSetting: UInt8
    /// `bInterfaceClass`; 0xFF is vendor-specific.
    public var interfaceClass: UInt8
    /// Its subclass.
    public var interfaceSubclass: UInt8
    /// Its protocol.
    public var interfaceProtocol: UInt8
    /// Its endpoints.
    public var endpoints: [USBEndpointDescriptor]

    /// An interface of these fields.
    public init(number: UInt8, alternateSetting: UInt8, interfaceClass: UInt8, interfaceSubclass: UInt8,
                interfaceProtocol: UInt8, endpoints: [USBEndpointDescriptor]) {
        self.number = number
        self.alternateSetting = alternateSetting
        self.interfaceClass = interfaceClass
        self.interfaceSubclass = interfaceSubclass
        self.interfaceProtocol = interfaceProtocol
        self.endpoints = endpoints
    }
}

/// A configuration: its value and every interface's alternate settings, in descriptor order.
public struct USBConfigurationDescriptor: Hashable, Sendable {
    /// The configuration value (bConfigurationValue).
    public var value: UInt8
    /// Its interfaces.
    public var interfaces: [USBInterfaceDescriptor]

    /// A configuration of these parts.
    public init(value: UInt8, interfaces: [USBInterfaceDescriptor]) {
        self.value = value
        self.interfaces = interfaces
    }
}

// MARK: - Transfers

/// The 8-byte setup packet of a control transfer.
public struct USBControlSetup: Hashable, Sendable {
    /// bmRequestType: direction, type and recipient.
    public var requestType: UInt8
    /// bRequest (51 GET_PROTOCOL, 52 SEND_STRING, 53 START for the accessory switch).
    public var request: UInt8
    /// wValue.
    public var value: UInt16
    /// wIndex.
    public var index: UInt16
    /// `wLength`: bytes to read for IN, bytes sent for OUT.
    public var length: UInt16

    /// A SETUP of these fields.
    public init(requestType: UInt8, request: UInt8, value: UInt16, index: UInt16, length: UInt16) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
        self.length = length
    }

    /// A device-to-host request.
    public var isIn: Bool { requestType & 0x80 != 0 }
}

/// How a transfer ended (libusb's `LIBUSB_TRANSFER_*`).
public enum USBTransferStatus: Hashable, Sendable {
    /// It moved all it could.
    case completed
    /// It failed for another reason.
    case error
    /// Its time limit passed.
    case timedOut
    /// It was cancelled (the link closing).
    case cancelled
    /// The endpoint or the control request stalled (the device refused it).
    case stall
    /// The device is gone (unplugged, or reset).
    case noDevice
    /// The device sent more than was asked for.
    case overflow
}

/// The outcome of one transfer.
public struct USBTransferResult: Hashable, Sendable {
    /// How it ended.
    public var status: USBTransferStatus
    /// The bytes read (IN transfers; for control IN the data stage only).
    public var data: [UInt8]
    /// Bytes actually moved (for OUT: how many the device accepted, the data stage only).
    public var actualLength: Int

    /// A result of these parts.
    public init(status: USBTransferStatus, data: [UInt8] = [], actualLength: Int) {
        self.status = status
        self.data = data
        self.actualLength = actualLength
    }
}

func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 4 - s.count) + s
}

private func pad3(_ v: UInt8) -> String {
    let s = String(v)
    return String(repeating: "0", count: 3 - s.count) + s
}
