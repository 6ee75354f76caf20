#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The USB gadget in configfs (`/sys/kernel/config/usb_gadget/NAME`): one configuration with
/// one FunctionFS function, bound to a USB device controller (UDC). Every failure says which
/// part of the board's set-up is missing and how to add it.
struct GadgetConfigFS: Sendable {
    let paths: USBGadgetPaths

    var gadget: String { "\(paths.configfs)/usb_gadget/\(paths.name)" }

    /// The UDC to bind to: the one named, or the machine's only (first) one.
    func controller(named wanted: String?) throws(TransportError) -> String {
        let all = Self.list(paths.udcClass).sorted()
        guard !all.isEmpty else {
            throw .unsupported("this machine has no USB device controller (\(paths.udcClass) is empty), so it cannot be the phone: "
                               + "use a board whose USB port can be a device (on a Raspberry Pi 4/5: dtoverlay=dwc2 in config.txt, "
                               + "then modprobe dwc2), or the VM lab's dummy_hcd")
        }
        guard let wanted else { return all[0] }
        guard all.contains(wanted) else {
            throw .unsupported("no USB device controller \(wanted) on this machine; it has \(all.joined(separator: ", "))")
        }
        return wanted
    }

    /// Creates the gadget (or takes over the one a set-up script left) with this identity.
    func create(_ identity: USBGadgetIdentity, product: UInt16) throws(TransportError) {
        let gadgets = "\(paths.configfs)/usb_gadget"
        guard Self.isDirectory(gadgets) else {
            if Self.list(paths.configfs).isEmpty {
                throw .unsupported("configfs is not mounted at \(paths.configfs): mount -t configfs none \(paths.configfs) "
                                   + "(a kernel without CONFIG_USB_CONFIGFS cannot make USB gadgets)")
            }
            throw .unsupported("configfs has no usb_gadget: load the gadget framework (modprobe libcomposite)")
        }
        try make(gadget)
        try write("0x\(hex4(identity.vendor))", to: "idVendor")
        try write("0x\(hex4(product))", to: "idProduct")
        try write("0x0200", to: "bcdUSB")
        try make("\(gadget)/strings/0x409")
        try write(identity.manufacturer, to: "strings/0x409/manufacturer")
        try write(identity.productName, to: "strings/0x409/product")
        try write(identity.serialNumber, to: "strings/0x409/serialnumber")
        try make("\(gadget)/configs/c.1/strings/0x409")
        try write("SDL", to: "configs/c.1/strings/0x409/configuration")
        try make("\(gadget)/functions")  // configfs made it with the gadget; a plain folder has not
        let function = "\(gadget)/functions/ffs.\(paths.name)"
        if mkdir(function, 0o755) != 0 && errno != EEXIST {
            let code = errno
            if code == ENOENT || code == ENODEV || code == EINVAL {
                throw .unsupported("the kernel has no FunctionFS for gadgets: modprobe usb_f_fs (CONFIG_USB_CONFIGFS_F_FS)")
            }
            throw Self.failure("mkdir", function, code)
        }
        let link = "\(gadget)/configs/c.1/ffs.\(paths.name)"
        if symlink(function, link) != 0 && errno != EEXIST { throw Self.failure("symlink", link, errno) }
    }

    /// Binds the gadget to `udc`: the host sees a device plugged in.
    func bind(_ udc: String) throws(TransportError) {
        do throws(TransportError) {
            try write(udc, to: "UDC")
        } catch .io(_, let code, _) where code == EBUSY {
            let holder = Self.list("\(paths.configfs)/usb_gadget").first { name in
                name != paths.name && Self.read("\(paths.configfs)/usb_gadget/\(name)/UDC") == udc
            }
            throw .busy(device: "USB device controller \(udc) (" + (holder.map { "the gadget \($0) is bound to it" } ?? "another gadget is bound to it") + ")")
        }
    }

    /// The device controller the gadget is bound to, nil when it is not bound (or not made).
    var boundController: String? {
        guard let udc = Self.read("\(gadget)/UDC"), !udc.isEmpty else { return nil }
        return udc
    }

    /// Unbinds the gadget: the host sees the device unplugged. Harmless when not bound.
    ///
    /// Checked and tried again for a moment: a gadget left bound by a close is "busy" to the
    /// next open of the same gadget (seen once in the lab, twenty reopens into a benchmark).
    func unbind() {
        for attempt in 1...20 {
            var failure: TransportError?
            do throws(TransportError) {
                try write("\n", to: "UDC")
            } catch {
                failure = error  // also what an unbound gadget answers: only a gadget still bound is news
            }
            guard let holder = boundController else { return }
            SDLLog.usb.notice("the USB gadget \(paths.name) is still bound to \(holder) after unbind \(attempt)\(failure.map { ": \($0)" } ?? "")")
            usleep(10_000)
        }
        SDLLog.usb.error("the USB gadget \(paths.name) stays bound after 20 unbinds; its next open will find it busy")
    }

    /// Changes the product ID (between an unbind and a bind, as a phone re-enumerates).
    func setProduct(_ product: UInt16) throws(TransportError) {
        try write("0x\(hex4(product))", to: "idProduct")
    }

    // MARK: - Files

    private func make(_ path: String) throws(TransportError) {
        var built = ""
        for part in path.split(separator: "/") {
            built += "/\(part)"
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw Self.failure("mkdir", built, errno) }
        }
    }

    private func write(_ value: String, to attribute: String) throws(TransportError) {
        let path = "\(gadget)/\(attribute)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open", path, errno) }
        defer { _ = close(fd) }
        let bytes = Array(value.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Self.failure("write", path, written < 0 ? errno : EIO) }
    }

    static func failure(_ operation: String, _ path: String, _ code: Int32) -> TransportError {
        if code == EACCES || code == EPERM {
            return .permissionDenied(path: path, hint: "making a USB gadget needs root, or run scripts/setup-gadget-board once as root "
                                                       + "and be in group plugdev")
        }
        return .io(operation: "\(operation) \(path)", code: code, message: String(cString: strerror(code)))
    }

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func read(_ path: String) -> String? {
        // Non-blocking: a test's stand-in for UDC is a FIFO, which a blocking open would wait on.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
