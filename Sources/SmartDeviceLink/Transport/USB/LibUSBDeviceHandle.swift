import CLibUSB
import Foundation

/// An open `libusb_device_handle`. `deinit` closes it.
final class LibUSBDeviceHandle: USBDeviceHandle {
    let device: USBDeviceDescription
    /// Keeps the context (and its event thread) alive while the handle is open.
    private let backend: LibUSBBackend
    private let pointer: LibUSBPointer
    /// True once `libusb_close` ran.
    private let closed = Locked(false)

    init(raw: LibUSBPointer, device: USBDeviceDescription, backend: LibUSBBackend) {
        self.pointer = raw
        self.device = device
        self.backend = backend
    }

    deinit { close() }

    func close() {
        let wasOpen = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if wasOpen { libusb_close(pointer.raw) }
    }

    /// Asks usbfs on a descriptor of our own (libusb keeps its own private): one read-only
    /// ioctl, USBDEVFS_GET_CAPABILITIES. A fake usbfs (umockdev) answers for its device.
    var takesBulkTransfersWhole: Bool {
        let path = String(format: "/dev/bus/usb/%03u/%03u", device.bus, device.address)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        let getCapabilities: UInt = 0x8004_551A  // _IOR('U', 26, __u32)
        let noPacketSizeLimit: UInt32 = 0x04, scatterGather: UInt32 = 0x08
        var capabilities: UInt32 = 0
        guard ioctl(fd, getCapabilities, &capabilities) == 0 else { return false }
        return capabilities & (noPacketSizeLimit | scatterGather) != 0
    }

    func resetPort() throws(USBError) {
        let status = libusb_reset_device(pointer.raw)
        // NOT_FOUND: it came back as another device (a phone leaving accessory mode), which is the point.
        if status == LIBUSB_ERROR_NOT_FOUND.rawValue { return }
        try USBError.check(status)
    }

    func activeConfiguration() throws(USBError) -> UInt8 {
        var value: Int32 = 0
        try USBError.check(libusb_get_configuration(pointer.raw, &value))
        return UInt8(truncatingIfNeeded: value)
    }

    func setConfiguration(_ value: UInt8) throws(USBError) {
        try USBError.check(libusb_set_configuration(pointer.raw, Int32(value)))
    }

    func configurationDescriptor(value: UInt8) throws(USBError) -> USBConfigurationDescriptor {
        var config: UnsafeMutablePointer<libusb_config_descriptor>?
        try USBError.check(libusb_get_config_descriptor_by_value(libusb_get_device(pointer.raw), value, &config))
        guard let config else { throw USBError.notFound }
        defer { libusb_free_config_descriptor(config) }
        var interfaces: [USBInterfaceDescriptor] = []
        for i in 0..<Int(config.pointee.bNumInterfaces) {
            let interface = config.pointee.interface[i]
            for a in 0..<Int(interface.num_altsetting) {
                let alt = interface.altsetting[a]
                var endpoints: [USBEndpointDescriptor] = []
                for e in 0..<Int(alt.bNumEndpoints) {
                    let ep = alt.endpoint[e]
                    endpoints.append(USBEndpointDescriptor(
                        address: ep.bEndpointAddress, attributes: ep.bmAttributes, maxPacketSize: ep.wMaxPacketSize))
                }
                interfaces.append(USBInterfaceDescriptor(
                    number: alt.bInterfaceNumber, alternateSetting: alt.bAlternateSetting,
                    interfaceClass: alt.bInterfaceClass, interfaceSubclass: alt.bInterfaceSubClass,
                    interfaceProtocol: alt.bInterfaceProtocol, endpoints: endpoints))
            }
        }
        return USBConfigurationDescriptor(value: config.pointee.bConfigurationValue, interfaces: interfaces)
    }

    func isKernelDriverActive(interface: UInt8) throws(USBError) -> Bool {
        try USBError.check(libusb_kernel_driver_active(pointer.raw, Int32(interface))) == 1
    }

    func detachKernelDriver(interface: UInt8) throws(USBError) {
        try USBError.check(libusb_detach_kernel_driver(pointer.raw, Int32(interface)))
    }

    func claimInterface(_ number: UInt8) throws(USBError) {
        try USBError.check(libusb_claim_interface(pointer.raw, Int32(number)))
    }

    func releaseInterface(_ number: UInt8) {
        _ = libusb_release_interface(pointer.raw, Int32(number))
    }

    func submitControl(_ setup: USBControlSetup, data: [UInt8], timeout: Duration?,
                       completion: @escaping @Sendable (USBTransferResult) -> Void) throws(USBError) -> any USBPendingTransfer {
        let size = LibUSBTransfer.controlSetupSize + Int(setup.length)
        let transfer = try LibUSBTransfer(handle: self, bufferSize: size, kind: .control(isIn: setup.isIn), completion: completion)
        libusb_fill_control_setup(transfer.buffer, setup.requestType, setup.request, setup.value, setup.index, setup.length)
        if !setup.isIn {
            let n = min(data.count, Int(setup.length))
            data.withUnsafeBytes { source in
                if n > 0 { UnsafeMutableRawPointer(transfer.buffer + LibUSBTransfer.controlSetupSize).copyMemory(from: source.baseAddress!, byteCount: n) }
            }
        }
        libusb_fill_control_transfer(transfer.transfer, pointer.raw, transfer.buffer, libusbTransferCallback,
                                     nil, timeout?.libusbMilliseconds ?? 0)
        try transfer.submit()
        return transfer
    }

    func submitBulk(endpoint: UInt8, data: ArraySlice<UInt8>, length: Int, timeout: Duration?,
                    completion: @escaping @Sendable (USBTransferResult) -> Void) throws(USBError) -> any USBPendingTransfer {
        let isIn = endpoint & 0x80 != 0
        let size = isIn ? length : data.count
        let transfer = try LibUSBTransfer(handle: self, bufferSize: size, kind: .bulk(isIn: isIn), completion: completion)
        if !isIn {
            data.withUnsafeBytes { source in
                if let start = source.baseAddress { UnsafeMutableRawPointer(transfer.buffer).copyMemory(from: start, byteCount: source.count) }
            }
        }
        libusb_fill_bulk_transfer(transfer.transfer, pointer.raw, endpoint, transfer.buffer, Int32(size),
                                  libusbTransferCallback, nil, timeout?.libusbMilliseconds ?? 0)
        try transfer.submit()
        return transfer
    }
}

/// One `libusb_transfer` and its buffer, both owned (freed in `deinit`).
///
/// `@unchecked Sendable`: `transfer` and `buffer` are written only before submission;
/// between `submit()` and the callback libusb owns them and this object keeps itself alive
/// (a retained reference in `user_data`); the callback, on the event thread, reads them
/// once. `cancel()` only calls `libusb_cancel_transfer`, which is thread-safe.
final class LibUSBTransfer: USBPendingTransfer, @unchecked Sendable {
    enum Kind { case control(isIn: Bool), bulk(isIn: Bool) }
    static let controlSetupSize = MemoryLayout<libusb_control_setup>.size

    let transfer: UnsafeMutablePointer<libusb_transfer>
    let buffer: UnsafeMutablePointer<UInt8>
    private let bufferSize: Int
    private let kind: Kind
    private let completion: @Sendable (USBTransferResult) -> Void
    /// Keeps the device handle open while the transfer is in flight.
    private let handle: LibUSBDeviceHandle

    init(handle: LibUSBDeviceHandle, bufferSize: Int, kind: Kind,
         completion: @escaping @Sendable (USBTransferResult) -> Void) throws(USBError) {
        guard let transfer = libusb_alloc_transfer(0) else { throw USBError.noMemory }
        self.transfer = transfer
        self.bufferSize = max(bufferSize, 1)
        self.buffer = .allocate(capacity: self.bufferSize)
        self.buffer.initialize(repeating: 0, count: self.bufferSize)
        self.kind = kind
        self.completion = completion
        self.handle = handle
    }

    deinit {
        libusb_free_transfer(transfer)
        buffer.deallocate()
    }

    func submit() throws(USBError) {
        let me = Unmanaged.passRetained(self)
        transfer.pointee.user_data = me.toOpaque()
        let rc = libusb_submit_transfer(transfer)
        if rc < 0 {
            me.release()
            throw USBError(rawValue: rc)
        }
    }

    func cancel() {
        _ = libusb_cancel_transfer(transfer)
    }

    /// Called once, on the event thread, by libusb.
    fileprivate func finished() {
        let t = transfer.pointee
        let status: USBTransferStatus
        switch t.status {
        case LIBUSB_TRANSFER_COMPLETED: status = .completed
        case LIBUSB_TRANSFER_TIMED_OUT: status = .timedOut
        case LIBUSB_TRANSFER_CANCELLED: status = .cancelled
        case LIBUSB_TRANSFER_STALL: status = .stall
        case LIBUSB_TRANSFER_NO_DEVICE: status = .noDevice
        case LIBUSB_TRANSFER_OVERFLOW: status = .overflow
        default: status = .error
        }
        let actual = max(0, Int(t.actual_length))
        var data: [UInt8] = []
        switch kind {
        case .control(isIn: true):
            data = Array(UnsafeBufferPointer(start: buffer + Self.controlSetupSize,
                                             count: min(actual, bufferSize - Self.controlSetupSize)))
        case .bulk(isIn: true):
            data = Array(UnsafeBufferPointer(start: buffer, count: min(actual, bufferSize)))
        default:
            break
        }
        completion(USBTransferResult(status: status, data: data, actualLength: actual))
    }
}

private let libusbTransferCallback: libusb_transfer_cb_fn = { transfer in
    guard let transfer, let userData = transfer.pointee.user_data else { return }
    // Balances the retain in submit(): the transfer may be freed once this returns.
    let me = Unmanaged<LibUSBTransfer>.fromOpaque(userData).takeRetainedValue()
    me.finished()
}
