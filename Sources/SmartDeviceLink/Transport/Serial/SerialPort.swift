#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// How a serial line holds the sender back when the receiver is full.
public enum SerialFlowControl: String, Sendable, Hashable, CaseIterable {
    /// None: the bytes go out at the baud rate whatever the other end does.
    case none
    /// Hardware handshake on the RTS and CTS lines (termios CRTSCTS).
    case rtsCts = "rtscts"
}

/// Which TTY, at what speed, with what flow control: `--serial /dev/ttyACM0[:BAUD]`.
public struct SerialPortOptions: Sendable, Hashable, CustomStringConvertible {
    /// The device node: /dev/ttyACM0 (USB CDC-ACM), /dev/ttyUSB0 (a USB-to-serial bridge),
    /// /dev/ttyGS0 (this board's CDC-ACM gadget), /dev/rfcomm0 (a bound Bluetooth serial port), a pty.
    public var path: String
    /// The line's speed in bits per second (a CDC-ACM or pty link ignores it).
    public var baudRate: Int
    /// RTS/CTS, or none.
    public var flowControl: SerialFlowControl
    /// Whether the carrier (the DCD line) is the link: it opens only while the other end
    /// raises DCD, and goes down when DCD drops (the kernel hangs the port up). For a modem, a
    /// bridge with DCD wired, or a CDC-ACM host port, whose gadget raises DCD while a program
    /// there holds its end open. Without it the port is up whenever it opens (CLOCAL).
    public var carrierDetect: Bool

    /// A port at `baudRate` (115,200 by default, what most bridges and boards start at).
    public init(path: String, baudRate: Int = 115_200, flowControl: SerialFlowControl = .none, carrierDetect: Bool = false) {
        self.path = path
        self.baudRate = baudRate
        self.flowControl = flowControl
        self.carrierDetect = carrierDetect
    }

    /// `PATH` or `PATH:BAUD`, as `--serial` takes it.
    public init(parsing text: String, flowControl: SerialFlowControl = .none, carrierDetect: Bool = false) throws(TransportError) {
        var path = text, baud = 115_200
        if let colon = text.lastIndex(of: ":"), !text[text.index(after: colon)...].contains("/") {
            guard let rate = Int(text[text.index(after: colon)...]), rate > 0 else {
                throw .unsupported("--serial takes PATH[:BAUD], e.g. /dev/ttyACM0:115200, not \(text)")
            }
            path = String(text[..<colon])
            baud = rate
        }
        guard path.hasPrefix("/") else { throw .unsupported("--serial takes a device path such as /dev/ttyACM0, not \(text)") }
        self.init(path: path, baudRate: baud, flowControl: flowControl, carrierDetect: carrierDetect)
    }

    public var description: String {
        "serial \(path) \(baudRate) baud" + (flowControl == .rtsCts ? " RTS/CTS" : "") + (carrierDetect ? " DCD" : "")
    }

    /// The termios speeds Linux has, by baud rate.
    static let speeds: [Int: speed_t] = [
        1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600), 19_200: speed_t(B19200),
        38_400: speed_t(B38400), 57_600: speed_t(B57600), 115_200: speed_t(B115200), 230_400: speed_t(B230400),
        460_800: speed_t(B460800), 500_000: speed_t(B500000), 576_000: speed_t(B576000), 921_600: speed_t(B921600),
        1_000_000: speed_t(B1000000), 1_152_000: speed_t(B1152000), 1_500_000: speed_t(B1500000), 2_000_000: speed_t(B2000000),
        2_500_000: speed_t(B2500000), 3_000_000: speed_t(B3000000), 3_500_000: speed_t(B3500000), 4_000_000: speed_t(B4000000),
    ]
}

/// Opening a TTY for SDL: exclusive, locked, raw, at its speed; or a one-line error that says
/// what to do.
enum SerialPort {
    /// Opens and sets up the port; the descriptor is non-blocking.
    static func open(_ options: SerialPortOptions) throws(TransportError) -> Int32 {
        guard let speed = SerialPortOptions.speeds[options.baudRate] else {
            let rates = SerialPortOptions.speeds.keys.sorted().map(String.init).joined(separator: ", ")
            throw .unsupported("\(options.baudRate) baud is not a rate a Linux TTY takes; one of \(rates)")
        }
        let path = options.path
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw openError(path, errno) }
        guard isatty(fd) == 1 else {
            _ = Glibc.close(fd)
            throw .unsupported("\(path) is not a terminal device: --serial takes a TTY such as /dev/ttyACM0, /dev/ttyUSB0 or /dev/rfcomm0")
        }
        // One program at a time: a lock other sdl-runs see (and name the holder of), and the
        // kernel's exclusive mode against other openers.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = lockHolder(of: path)
            _ = Glibc.close(fd)
            throw .busy(device: path + (holder.map { " (held by \($0))" } ?? ""))
        }
        _ = ioctl(fd, UInt(TIOCEXCL))
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw .io(operation: "reading the settings of \(path)", code: code, message: String(cString: strerror(code)))
        }
        cfmakeraw(&settings)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        settings.c_cflag |= tcflag_t(CREAD)
        // CLOCAL off: the kernel hangs the port up when the carrier drops, which reads as the
        // link going down, as an unplug does.
        if options.carrierDetect { settings.c_cflag &= ~tcflag_t(CLOCAL) } else { settings.c_cflag |= tcflag_t(CLOCAL) }
        if options.flowControl == .rtsCts { settings.c_cflag |= tcflag_t(CRTSCTS) } else { settings.c_cflag &= ~tcflag_t(CRTSCTS) }
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw .io(operation: "setting \(path) raw at \(options.baudRate) baud", code: code, message: String(cString: strerror(code)))
        }
        if options.carrierDetect {
            var lines: Int32 = 0
            guard ioctl(fd, UInt(TIOCMGET), &lines) == 0 else {
                _ = Glibc.close(fd)
                throw .unsupported("\(path) has no modem lines to watch (a pty or a bridge without them): leave out carrier detection")
            }
            guard lines & TIOCM_CD != 0 else {
                _ = Glibc.close(fd)
                throw .noCarrier(path: path)
            }
        }
        // What waited in the driver's buffers is from before this link; with carrier
        // detection the link began when the carrier rose, and what came since is its first
        // bytes (an app that opened its end sends StartService at once).
        if !options.carrierDetect { _ = tcflush(fd, TCIOFLUSH) }
        return fd
    }

    static func openError(_ path: String, _ code: Int32) -> TransportError {
        switch code {
        case ENOENT, ENXIO, ENODEV:
            return .noSerialPort(path: path, found: candidates())
        case EACCES, EPERM:
            let group = groupName(of: path)
            return .permissionDenied(path: path, hint: "the port belongs to group \(group): add yourself with `sudo usermod -aG \(group) $USER` "
                                     + "and log in again, or install the project's udev rules (scripts/install-udev-rules)")
        case EBUSY:
            return .busy(device: path + (lockHolder(of: path).map { " (held by \($0))" } ?? ""))
        default:
            return .io(operation: "opening \(path)", code: code, message: String(cString: strerror(code)))
        }
    }

    /// The serial ports there are, for an error that names one that is not.
    static func candidates() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        let prefixes = ["ttyACM", "ttyUSB", "ttyGS", "rfcomm", "ttyAMA", "ttymxc", "ttyS"]
        return names.filter { name in prefixes.contains { name.hasPrefix($0) } && name.last?.isNumber == true }
            .filter { !$0.hasPrefix("ttyS") || isRealUART("/dev/\($0)") }
            .sorted().map { "/dev/\($0)" }
    }

    /// /dev/ttyS0…31 exist on every PC; only the ones with a UART behind them count.
    private static func isRealUART(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { _ = Glibc.close(fd) }
        var lines: Int32 = 0
        return ioctl(fd, UInt(TIOCMGET), &lines) == 0
    }

    private static func groupName(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0, let group = getgrgid(info.st_gid) else { return "dialout" }
        return String(cString: group.pointee.gr_name)
    }

    /// Who holds the port's lock, from /proc/locks: "pid 1234 (sdl-run)".
    static func lockHolder(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        // glibc's major()/minor(), which Swift does not import.
        let dev = UInt64(info.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff)), minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        let device = String(format: "%02llx:%02llx:%lu", major, minor, UInt(info.st_ino))
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 5, fields[1] == "FLOCK", fields[5] == device, let pid = Int32(fields[4]) else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            return "pid \(pid)" + (name.map { " (\($0))" } ?? "")
        }
        return nil
    }
}
