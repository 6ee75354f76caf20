#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal: the kernel's TTY layer between two ends, the fast tests' stand-in for a
/// serial line (the lab runs a real CDC-ACM one). The slave end is a device path, as a serial
/// port is; the master end is a descriptor.
public final class PseudoTerminal: @unchecked Sendable {
    /// The slave end's device path (/dev/pts/N).
    public let path: String
    private var master: Int32

    /// `TIOCGPTN` and `TIOCSPTLCK` (linux/tty.h): function-like macros Swift does not import.
    private static let getNumber: UInt = 0x8004_5430, setLock: UInt = 0x4004_5431

    public init() throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            throw PseudoTerminalError(code: errno)
        }
        path = "/dev/pts/\(number)"
    }

    /// The master descriptor, handed to whoever closes it from now on.
    public func takeMaster() -> Int32 {
        defer { master = -1 }
        return master
    }

    deinit { if master >= 0 { close(master) } }
}

/// Why a pseudo-terminal could not be made.
public struct PseudoTerminalError: Error, CustomStringConvertible {
    public let code: Int32
    public var description: String { "no pseudo-terminal: \(String(cString: strerror(code)))" }
}
