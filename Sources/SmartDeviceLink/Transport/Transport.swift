/// The family of a link, as the protocol's secondary-transport names need it.
public enum TransportKind: String, Sendable, Hashable {
    /// TCP, the head unit's Wi-Fi or Ethernet (`TCP_WIFI`).
    case tcp
    /// USB: the host role through libusb, or the device role through FunctionFS (`AOA_USB`).
    case usb
    /// Bluetooth RFCOMM (`SPP_BLUETOOTH`).
    case bluetooth
    /// An in-memory pair, used by tests and by the embedded emulator.
    case memory
    /// A serial line: a UART, a USB CDC-ACM or serial bridge, a bound RFCOMM port (`/dev/rfcommN`).
    case serial
}

/// A byte pipe to a head unit (or, for the emulator, to an app).
///
/// Transports are thin: they move bytes and report open, closed and errors. They know
/// nothing of frames; one read may hold part of a frame or several frames.
public protocol SDLTransport: AnyObject, Sendable {
    /// What this link is, for logs and errors ("TCP 127.0.0.1:12345", "USB 18d1:2d01 bus 1 addr 6").
    var description: String { get }
    /// TCP, USB, Bluetooth or memory: what errors and traces name the link by.
    var kind: TransportKind { get }

    /// Opens the link. Throws a ``TransportError`` that says what to do when it cannot.
    func open() async throws(TransportError)

    /// Writes all of `bytes`, in order with earlier calls.
    func send(_ bytes: [UInt8]) async throws(TransportError)

    /// Incoming bytes, in arrival order. The stream finishes when the link closes and
    /// throws a ``TransportError`` when it fails. It has one consumer.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }

    /// Closes the link; pending sends fail, `incoming` finishes. Safe to call twice.
    func close() async

    /// The most bytes a second the link carries, when its medium fixes it (a serial line's
    /// baud rate), else nil.
    ///
    /// A request's time limit starts when it is queued. On a slow line the bytes queued ahead
    /// of it can take longer than the limit to leave (four 128 KB chunks take 45 s at
    /// 115,200 baud), so a request gets the time those bytes take on top of its limit.
    var bytesPerSecond: Int? { get }
}

extension SDLTransport {
    /// Most links are fast enough that the bytes queued ahead of a request do not count.
    public var bytesPerSecond: Int? { nil }
}

/// A failure of a link, with a message that says what happened and what to do about it.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nobody listens there (ECONNREFUSED).
    case connectionRefused(endpoint: String)
    /// No route, unknown host, network down.
    case unreachable(endpoint: String, reason: String)
    /// Opening or an operation did not finish in time.
    case timedOut(operation: String, seconds: Double)
    /// The link closed, by the peer or by us.
    case closed(String)
    /// No matching device; `found` lists what was seen, so the user can pick one.
    case noDevice(wanted: String, found: [String])
    /// No serial port at this path; `found` lists the ones there are.
    case noSerialPort(path: String, found: [String])
    /// The OS refused access (e.g. /dev/bus/usb without udev rules).
    case permissionDenied(path: String, hint: String)
    /// Another process or driver holds the device.
    case busy(device: String)
    /// A serial port opened with carrier detection whose other end does not raise DCD (yet).
    case noCarrier(path: String)
    /// The machine or device lacks what this transport needs (no Bluetooth, not AOA-capable).
    case unsupported(String)
    /// Any other OS or library error.
    case io(operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .connectionRefused(let endpoint):
            return "connection refused by \(endpoint): is the head unit (or `sdl-run emulate`) running and listening there?"
        case .unreachable(let endpoint, let reason):
            return "cannot reach \(endpoint): \(reason)"
        case .timedOut(let operation, let seconds):
            return "\(operation) timed out after \(seconds.formatted2) s"
        case .closed(let why):
            return "transport closed: \(why)"
        case .noDevice(let wanted, let found):
            let seen = found.isEmpty ? "no USB devices at all" : "found: " + found.joined(separator: ", ")
            return "no device matching \(wanted) (\(seen)); plug it in or pass --usb VID:PID or BUS:ADDR"
        case .noSerialPort(let path, let found):
            let seen = found.isEmpty ? "no serial ports at all" : "there are " + found.joined(separator: ", ")
            return "no serial port \(path) (\(seen)): plug the device in, or name one of those"
        case .permissionDenied(let path, let hint):
            return "permission denied on \(path): \(hint)"
        case .noCarrier(let path):
            return "no carrier on \(path): the other end is not there (its DCD line is low); it connects once the other end raises it"
        case .busy(let device):
            return "\(device) is busy: another program or kernel driver holds it; close it and retry"
        case .unsupported(let what):
            return what
        case .io(let operation, let code, let message):
            return "\(operation) failed (\(code)): \(message)"
        }
    }
}

extension Double {
    /// Seconds with at most one decimal, for messages.
    var formatted2: String {
        let tenths = (self * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
