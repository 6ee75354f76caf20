import CLibUSB

/// A libusb return code as a typed error, the way swift-system's `Errno` wraps `errno`.
///
/// Every libusb call in ``LibUSBBackend`` turns a negative return code into one of these;
/// ``USBTransport`` and ``AOASwitcher`` turn them into a ``TransportError`` that says what
/// to do.
public struct USBError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The libusb error code (`LIBUSB_ERROR_*`, always negative).
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Input/output error (`LIBUSB_ERROR_IO`).
    public static let io = USBError(rawValue: LIBUSB_ERROR_IO.rawValue)
    /// Invalid parameter (`LIBUSB_ERROR_INVALID_PARAM`).
    public static let invalidParameter = USBError(rawValue: LIBUSB_ERROR_INVALID_PARAM.rawValue)
    /// Access denied: usually missing udev rules (`LIBUSB_ERROR_ACCESS`, from EACCES/EPERM).
    public static let access = USBError(rawValue: LIBUSB_ERROR_ACCESS.rawValue)
    /// The device has been disconnected (`LIBUSB_ERROR_NO_DEVICE`).
    public static let noDevice = USBError(rawValue: LIBUSB_ERROR_NO_DEVICE.rawValue)
    /// Entity not found (`LIBUSB_ERROR_NOT_FOUND`).
    public static let notFound = USBError(rawValue: LIBUSB_ERROR_NOT_FOUND.rawValue)
    /// Another program or driver holds the resource (`LIBUSB_ERROR_BUSY`).
    public static let busy = USBError(rawValue: LIBUSB_ERROR_BUSY.rawValue)
    /// Operation timed out (`LIBUSB_ERROR_TIMEOUT`).
    public static let timeout = USBError(rawValue: LIBUSB_ERROR_TIMEOUT.rawValue)
    /// The device sent more data than asked for (`LIBUSB_ERROR_OVERFLOW`).
    public static let overflow = USBError(rawValue: LIBUSB_ERROR_OVERFLOW.rawValue)
    /// The endpoint stalled (`LIBUSB_ERROR_PIPE`).
    public static let pipe = USBError(rawValue: LIBUSB_ERROR_PIPE.rawValue)
    /// A system call was interrupted (`LIBUSB_ERROR_INTERRUPTED`).
    public static let interrupted = USBError(rawValue: LIBUSB_ERROR_INTERRUPTED.rawValue)
    /// Out of memory (`LIBUSB_ERROR_NO_MEM`).
    public static let noMemory = USBError(rawValue: LIBUSB_ERROR_NO_MEM.rawValue)
    /// Not supported on this platform or by this device (`LIBUSB_ERROR_NOT_SUPPORTED`).
    public static let notSupported = USBError(rawValue: LIBUSB_ERROR_NOT_SUPPORTED.rawValue)
    /// Any other error (`LIBUSB_ERROR_OTHER`).
    public static let other = USBError(rawValue: LIBUSB_ERROR_OTHER.rawValue)

    /// libusb's name for the code, e.g. `LIBUSB_ERROR_ACCESS`.
    public var name: String { String(cString: libusb_error_name(rawValue)) }

    public var description: String { "\(name): \(String(cString: libusb_strerror(rawValue)))" }

    /// Throws the error for a negative libusb return code and returns non-negative ones.
    @discardableResult
    static func check(_ code: Int32) throws(USBError) -> Int32 {
        if code < 0 { throw USBError(rawValue: code) }
        return code
    }
}

extension USBError {
    /// The ``TransportError`` a user should see when `operation` on `device` failed so.
    ///
    /// EACCES becomes ``TransportError/permissionDenied(path:hint:)`` naming the device
    /// node and the udev rules; busy, unplugged and timeouts get their own cases.
    func transportError(_ operation: String, on device: USBDeviceDescription, timeout: Duration? = nil) -> TransportError {
        switch self {
        case .access:
            return .permissionDenied(path: device.devicePath, hint: USBDeviceDescription.permissionHint)
        case .busy:
            return .busy(device: "USB \(device)")
        case .noDevice:
            return .closed("device unplugged")
        case .timeout:
            return .timedOut(operation: "\(operation) on USB \(device)", seconds: timeout?.seconds ?? 0)
        case .notSupported:
            return .unsupported("\(operation) is not supported for USB \(device) on this system (\(name))")
        default:
            return .io(operation: "\(operation) on USB \(device)", code: rawValue, message: description)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds as libusb wants it (0 means "no timeout" to libusb,
    /// so a positive duration never rounds down to 0).
    var libusbMilliseconds: UInt32 {
        let c = components
        let ms = c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
        if ms <= 0 { return self > .zero ? 1 : 0 }
        return ms > Int64(UInt32.max) ? UInt32.max : UInt32(ms)
    }
}
