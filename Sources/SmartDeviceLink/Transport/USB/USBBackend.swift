/// The handful of USB host operations the USB transport and the AOA switch need.
///
/// ``LibUSBBackend`` implements it on libusb-1.0; it is the seam the transport's logic
/// (endpoint choice, transfer queueing and resubmission, unplug handling) sits on, and it
/// is what runs for real under umockdev in the tests.
public protocol USBBackend: AnyObject, Sendable {
    /// The devices on the bus now. With `readingStrings`, each device is briefly opened to
    /// read its manufacturer, product and serial strings (left nil where that fails).
    func devices(readingStrings: Bool) throws(USBError) -> [USBDeviceDescription]

    /// Opens the device at `device`'s bus and address.
    /// Throws ``USBError/noDevice`` when it is no longer there.
    func open(_ device: USBDeviceDescription) throws(USBError) -> any USBDeviceHandle

    /// Arrivals and departures from now on (and, with `enumerateExisting`, an arrival for
    /// each device already present). Finishing the consumer's iteration deregisters.
    func hotplugEvents(enumerateExisting: Bool) throws(USBError) -> AsyncStream<USBHotplugEvent>
}

/// An open device. Releasing the last reference closes it.
public protocol USBDeviceHandle: AnyObject, Sendable {
    /// The device this handle is open on.
    var device: USBDeviceDescription { get }

    /// `bConfigurationValue` of the active configuration (0 when unconfigured).
    func activeConfiguration() throws(USBError) -> UInt8
    /// Sets the configuration (libusb_set_configuration).
    func setConfiguration(_ value: UInt8) throws(USBError)
    /// The descriptor of the configuration with this value.
    func configurationDescriptor(value: UInt8) throws(USBError) -> USBConfigurationDescriptor

    /// Whether a kernel driver holds the interface.
    func isKernelDriverActive(interface: UInt8) throws(USBError) -> Bool
    /// Takes the interface from the kernel driver that holds it.
    func detachKernelDriver(interface: UInt8) throws(USBError)
    /// Claims the interface for this process.
    func claimInterface(_ number: UInt8) throws(USBError)
    /// Lets the interface go.
    func releaseInterface(_ number: UInt8)

    /// Submits a control transfer; `data` is the OUT data stage (`setup.length` bytes are
    /// read for IN). `completion` runs once, on the backend's event thread.
    func submitControl(_ setup: USBControlSetup, data: [UInt8], timeout: Duration?,
                       completion: @escaping @Sendable (USBTransferResult) -> Void) throws(USBError) -> any USBPendingTransfer

    /// Submits a bulk transfer: OUT sends `data`, IN (endpoint bit 7 set) reads up to
    /// `length` bytes. `nil` timeout waits forever. `completion` runs once, on the event thread.
    func submitBulk(endpoint: UInt8, data: ArraySlice<UInt8>, length: Int, timeout: Duration?,
                    completion: @escaping @Sendable (USBTransferResult) -> Void) throws(USBError) -> any USBPendingTransfer

    /// Whether the kernel takes a bulk transfer of any length as one request, so that a short
    /// packet ends it cleanly (usbfs reports scatter-gather or no packet size limit). Where
    /// it cannot, libusb cuts a large transfer into 16 KiB requests whose ends are not tied
    /// together, and a short one mid-way reorders what follows. False when it cannot tell.
    var takesBulkTransfersWhole: Bool { get }

    /// Resets the device's port: the device sees what a cable pulled and plugged back does
    /// and enumerates again (the handle is then stale).
    func resetPort() throws(USBError)

    /// Closes the handle. Cancel and drain every transfer first.
    func close()
}

/// A submitted transfer.
public protocol USBPendingTransfer: AnyObject, Sendable {
    /// Asks for cancellation; the completion then reports ``USBTransferStatus/cancelled``
    /// (or the status it had already reached).
    func cancel()
}

extension USBDeviceHandle {
    /// Unknown: a handle that cannot ask the kernel keeps transfers small.
    public var takesBulkTransfersWhole: Bool { false }

    /// Runs one control transfer to completion.
    public func control(_ setup: USBControlSetup, data: [UInt8] = [], timeout: Duration?) async throws(USBError) -> USBTransferResult {
        let submitted: Result<USBTransferResult, USBError> = await withCheckedContinuation { continuation in
            do throws(USBError) {
                _ = try submitControl(setup, data: data, timeout: timeout) { result in
                    continuation.resume(returning: .success(result))
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try submitted.get()
    }
}
