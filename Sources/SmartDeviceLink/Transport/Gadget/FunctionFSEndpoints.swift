#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where the board's USB gadget lives; the defaults are Linux's.
public struct USBGadgetPaths: Sendable, Hashable {
    /// configfs's mount point.
    public var configfs = "/sys/kernel/config"
    /// The USB device controllers the kernel has.
    public var udcClass = "/sys/class/udc"
    /// Where FunctionFS is mounted (mounted there when it is not).
    public var functionfs = "/dev/ffs-sdl"
    /// The gadget's name in configfs and FunctionFS's instance name.
    public var name = "sdl"

    /// Linux's default paths.
    public init() {}
}

/// How the board shows itself to the head unit: an Android phone before the accessory
/// switch, and the Android accessory after it (the IDs sdl_core's USB transport looks for).
public struct USBGadgetIdentity: Sendable, Hashable {
    /// The vendor ID: Google's, which sdl_core's USB transport looks for.
    public var vendor: UInt16 = 0x18D1
    /// The product ID before the switch (an Android phone's).
    public var product: UInt16 = 0x4EE1
    /// The product ID after START: 2d00, the accessory alone (this gadget has no ADB).
    public var accessoryProduct: UInt16 = 0x2D00
    /// The USB strings the head unit reads from the device descriptor.
    public var manufacturer = "SmartDeviceLink"
    /// The product string.
    public var productName = "SDL for Linux"
    /// The serial number string.
    public var serialNumber = "SDLLINUX0001"

    /// The default identity: Google's vendor ID and this library's strings.
    public init() {}
}

/// The FunctionFS files of the gadget's one function: the seam that tests replace with
/// socket pairs they drive (the kernel's files are only on a machine with a UDC).
public protocol FunctionFSEndpoints: Sendable {
    /// Makes ep0 available (mounts FunctionFS where it is not mounted yet).
    func mount() throws(TransportError)
    /// Opens endpoint file `number`: 0 control (read and write), 1 bulk IN (the head unit
    /// reads what is written), 2 bulk OUT (what the head unit writes is read).
    func open(_ number: Int) throws(TransportError) -> Int32
}

/// The kernel's FunctionFS, mounted at ``USBGadgetPaths/functionfs``.
public struct FunctionFSMount: FunctionFSEndpoints {
    /// Where configfs, FunctionFS and the controllers are.
    public let paths: USBGadgetPaths

    /// FunctionFS at `paths`.
    public init(paths: USBGadgetPaths = USBGadgetPaths()) {
        self.paths = paths
    }

    public func mount() throws(TransportError) {
        if isMounted { return }
        if mkdir(paths.functionfs, 0o755) != 0 && errno != EEXIST { throw GadgetConfigFS.failure("mkdir", paths.functionfs, errno) }
        guard Glibc.mount(paths.name, paths.functionfs, "functionfs", 0, nil) == 0 else {
            let code = errno
            if code == ENODEV {
                throw .unsupported("the kernel has no FunctionFS: modprobe usb_f_fs (CONFIG_USB_CONFIGFS_F_FS)")
            }
            throw GadgetConfigFS.failure("mount -t functionfs \(paths.name)", paths.functionfs, code)
        }
    }

    /// Whether /proc/self/mountinfo lists a FunctionFS at the mount point.
    private var isMounted: Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { return false }
            return fields[4] == paths.functionfs && fields[dash + 1] == "functionfs"
        }
    }

    public func open(_ number: Int) throws(TransportError) -> Int32 {
        let path = "\(paths.functionfs)/ep\(number)"
        // O_NONBLOCK on the bulk files changes one thing: a read or write while the host has
        // the endpoint disabled fails at once (EAGAIN) instead of waiting for it to come back,
        // which would keep the file, and so the whole function, open after the cable is pulled.
        let flags = number == 0 ? O_RDWR : (number == 1 ? O_WRONLY : O_RDONLY) | O_NONBLOCK
        let fd = Glibc.open(path, flags | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == EBUSY { throw .busy(device: "the FunctionFS function at \(paths.functionfs) (another sdl-run has it open)") }
            throw GadgetConfigFS.failure("open", path, code)
        }
        return fd
    }
}
