import Foundation
import Logging

/// SDL over USB bulk endpoints, as the USB host, through libusb.
///
/// For a TDK or bridge that exposes SDL on a vendor-specific interface with one bulk IN
/// and one bulk OUT endpoint, and (with ``EndpointSelection/firstInAndOut``, like
/// sdl_core) for a phone in Android accessory mode. ``open()``:
/// finds the device (``USBDeviceSelector``), opens it, sets the configuration if another
/// one is active, detaches a bound kernel driver, claims the interface, finds the bulk
/// endpoints from the descriptors, then keeps ``Options/inTransfersPending`` IN transfers
/// of ``Options/inTransferSize`` bytes pending, resubmitting each as it completes.
///
/// Sends are queued FIFO and cut into OUT transfers of at most ``Options/outTransferSize``
/// bytes, ``Options/outTransfersInFlight`` of them in flight; after a short write the
/// remainder is sent next. Each OUT transfer has ``Options/sendTimeout``; a send that times out fails with
/// ``TransportError/timedOut(operation:seconds:)`` and the queue goes on.
///
/// When the device is unplugged (a transfer ends with "no device", or hotplug reports it
/// gone), pending sends fail and `incoming` throws `.closed("device unplugged")`.
/// ``close()`` cancels every transfer and waits for libusb to hand them back before
/// releasing the interface and closing the device.
public final class USBTransport: SDLTransport {
    /// Always ``TransportKind/usb``.
    public let kind = TransportKind.usb
    public let incoming: AsyncThrowingStream<[UInt8], any Error>

    private let selector: USBDeviceSelector
    let options: Options
    private let suppliedBackend: (any USBBackend)?
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    let state: Locked<State>

    /// A transport for the device `selector` picks.
    /// - Parameters:
    ///   - selector: which device: a VID:PID, a bus address, or any phone in accessory mode.
    ///   - options: how long to wait for the device, and the reads' size.
    ///   - backend: the USB host to use; by default a new ``LibUSBBackend`` at ``open()``.
    public init(_ selector: USBDeviceSelector = .default, options: Options = Options(), backend: (any USBBackend)? = nil) {
        self.selector = selector
        self.options = options
        self.suppliedBackend = backend
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        state = Locked(State(label: "USB \(selector)"))
    }

    /// "USB 18d1:2d01 bus 1 addr 6" once open; "USB <selector>" before.
    public var description: String { state.withLock { $0.label } }

    /// The device in use, once open.
    public var device: USBDeviceDescription? { state.withLock { $0.link?.handle.device } }

    // MARK: - State

    struct Link {
        let backend: any USBBackend
        let handle: any USBDeviceHandle
        let interface: UInt8
        let inEndpoint: UInt8
        let outEndpoint: UInt8
        let inSize: Int
        let outSize: Int
        let outLimit: Int
    }

    /// A ``send(_:)`` caller waiting for its bytes to leave.
    typealias SendWaiter = CheckedContinuation<Result<Void, TransportError>, Never>

    enum Phase { case idle, opening, open, closing, closed }

    struct State {
        var phase = Phase.idle
        var label: String
        var link: Link?
        var out = BulkOutQueue<SendWaiter>()
        var outTransfers: [ObjectIdentifier: any USBPendingTransfer] = [:]
        var inFlight: [ObjectIdentifier: any USBPendingTransfer] = [:]
        /// Submitted transfers whose completion has not run yet.
        var outstanding = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// Why the link closed: what later sends fail with.
        var closeError = TransportError.closed("not open")
        var hotplugTask: Task<Void, Never>?
        var teardown: Task<Void, Never>?
        /// Whether closing resets the device's port (the link dropped as a cable pulled).
        var resetOnClose = false
    }

    // MARK: - Open

    /// Finds, opens and claims the device; see the type's documentation. Calling it on an
    /// open transport does nothing.
    public func open() async throws(TransportError) {
        let proceed: Bool = try state.withLock { (s: inout State) throws(TransportError) -> Bool in
            switch s.phase {
            case .idle: s.phase = .opening; return true
            case .opening, .open: return false
            case .closing, .closed: throw s.closeError
            }
        }
        guard proceed else { return }
        do {
            let backend = try makeBackend()
            if let wait = options.waitForDevice { try await USBDeviceFinder.waitFor(selector, on: backend, timeout: wait) }
            let link = try makeLink(on: backend)
            try start(link)
        } catch {
            state.withLock { $0.phase = .closed; $0.closeError = error }
            continuation.finish(throwing: error)
            throw error
        }
    }

    private func makeBackend() throws(TransportError) -> any USBBackend {
        if let suppliedBackend { return suppliedBackend }
        do { return try LibUSBBackend() } catch {
            throw TransportError.unsupported("cannot initialise libusb (\(error)); USB transports cannot work on this machine")
        }
    }

    private func makeLink(on backend: any USBBackend) throws(TransportError) -> Link {
        let device = try USBDeviceFinder.find(selector, on: backend)
        state.withLock { $0.label = "USB \(device)" }

        let handle: any USBDeviceHandle
        do { handle = try backend.open(device) } catch { throw error.transportError("open", on: device) }
        do {
            return try claim(handle, backend: backend)
        } catch {
            handle.close()
            throw error
        }
    }

    private func claim(_ handle: any USBDeviceHandle, backend: any USBBackend) throws(TransportError) -> Link {
        let device = handle.device
        do {
            let active = try handle.activeConfiguration()
            if active != options.configuration {
                SDLLog.usb.debug("USB \(device): configuration \(active) → \(options.configuration)")
                try handle.setConfiguration(options.configuration)
            }
        } catch {
            throw error.transportError("set configuration \(options.configuration)", on: device)
        }
        let config: USBConfigurationDescriptor
        do { config = try handle.configurationDescriptor(value: options.configuration) } catch {
            throw error.transportError("read configuration descriptor", on: device)
        }
        guard let (interface, inEP, outEP) = Self.endpoints(in: config, options.endpoints) else {
            switch options.endpoints {
            case .vendorInterface:
                throw TransportError.unsupported(
                    "USB \(device) has no vendor-specific interface with a bulk IN and a bulk OUT endpoint; is it an SDL TDK or bridge?")
            case .firstInAndOut:
                throw TransportError.unsupported("USB \(device) has no IN and OUT endpoint pair")
            }
        }
        do {
            if try handle.isKernelDriverActive(interface: interface) {
                SDLLog.usb.info("USB \(device): detaching the kernel driver from interface \(interface)")
                try handle.detachKernelDriver(interface: interface)
            }
        } catch where error == .notSupported {
            // No kernel-driver API on this platform: claiming will tell.
        } catch {
            throw error.transportError("detach kernel driver from interface \(interface)", on: device)
        }
        do { try handle.claimInterface(interface) } catch {
            throw error.transportError("claim interface \(interface)", on: device)
        }
        // Large transfers and several in flight only where the kernel keeps each whole.
        let whole = handle.takesBulkTransfersWhole
        let inSize = max(options.inTransferSize ?? (whole ? 65_536 : 16_384), Int(inEP.maxPacketSize))
        let outSize = max(1, options.outTransferSize ?? (whole ? 131_072 : 16_384))
        let outLimit = max(1, options.outTransfersInFlight ?? (whole ? 2 : 1))
        SDLLog.usb.info("""
            USB \(device): interface \(interface) claimed, bulk IN 0x\(String(inEP.address, radix: 16)) \
            (\(inSize)-byte transfers), OUT 0x\(String(outEP.address, radix: 16)) (\(outSize), \(outLimit) in flight)
            """)
        return Link(backend: backend, handle: handle, interface: interface, inEndpoint: inEP.address,
                    outEndpoint: outEP.address, inSize: inSize, outSize: outSize, outLimit: outLimit)
    }

    /// The interface and endpoints, chosen from the descriptor.
    static func endpoints(in config: USBConfigurationDescriptor, _ selection: EndpointSelection)
        -> (UInt8, USBEndpointDescriptor, USBEndpointDescriptor)?
    {
        switch selection {
        case .vendorInterface:
            for interface in config.interfaces where interface.interfaceClass == 0xFF && interface.alternateSetting == 0 {
                if let i = interface.endpoints.first(where: { $0.isIn && $0.isBulk }),
                   let o = interface.endpoints.first(where: { !$0.isIn && $0.isBulk }) {
                    return (interface.number, i, o)
                }
            }
            return nil
        case .firstInAndOut:
            var found: (in: (UInt8, USBEndpointDescriptor)?, out: (UInt8, USBEndpointDescriptor)?) = (nil, nil)
            for interface in config.interfaces {
                for ep in interface.endpoints {
                    if ep.isIn, found.in == nil { found.in = (interface.number, ep) }
                    if !ep.isIn, found.out == nil { found.out = (interface.number, ep) }
                }
            }
            guard let i = found.in, let o = found.out else { return nil }
            return (i.0, i.1, o.1)
        }
    }

    private func start(_ link: Link) throws(TransportError) {
        // Unplug: a transfer usually reports it first; hotplug covers an idle link.
        let events = try? link.backend.hotplugEvents(enumerateExisting: false)
        let device = link.handle.device
        let watcher: Task<Void, Never>? = events.map { events in
            Task { [weak self] in
                for await event in events {
                    if case .left(let gone) = event, gone.isSameDevice(as: device) {
                        self?.fail(.closed("device unplugged"))
                        return
                    }
                }
            }
        }
        let closedMeanwhile: TransportError? = state.withLock { s in
            guard s.phase == .opening else { return s.closeError }   // close() ran during open()
            s.link = link
            s.phase = .open
            s.hotplugTask = watcher
            return nil
        }
        if let closedMeanwhile {
            watcher?.cancel()
            link.handle.releaseInterface(link.interface)
            link.handle.close()
            throw closedMeanwhile
        }
        for _ in 0..<max(1, options.inTransfersPending) { submitIn() }
    }

    // MARK: - IN

    private func submitIn() {
        let submitted: Bool = state.withLock { s in
            guard s.phase == .open, let link = s.link else { return true }
            do throws(USBError) {
                let box = TransferBox()
                let transfer = try link.handle.submitBulk(
                    endpoint: link.inEndpoint, data: [], length: link.inSize, timeout: nil
                ) { [weak self] result in
                    self?.inCompleted(box, result)
                }
                box.id = ObjectIdentifier(transfer)
                s.inFlight[ObjectIdentifier(transfer)] = transfer
                s.outstanding += 1
                return true
            } catch {
                s.closeError = error.transportError("bulk IN submit", on: link.handle.device)
                return false
            }
        }
        if !submitted { fail(state.withLock { $0.closeError }) }
    }

    private func inCompleted(_ box: TransferBox, _ result: USBTransferResult) {
        let stillOpen: Bool = state.withLock { s in
            if let id = box.id { s.inFlight[id] = nil }
            return s.phase == .open
        }
        switch result.status {
        case .completed:
            if !result.data.isEmpty && stillOpen { continuation.yield(result.data) }
            if stillOpen { submitIn() }
        case .timedOut:
            if stillOpen { submitIn() }
        case .cancelled:
            break
        case .noDevice:
            fail(.closed("device unplugged"))
        case .stall, .error, .overflow:
            fail(.io(operation: "bulk IN on \(description)", code: -1, message: "transfer ended with \(result.status)"))
        }
        transferDone()
    }

    // MARK: - Closing

    func transferDone() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.outstanding -= 1
            guard s.outstanding <= 0 else { return [] }
            defer { s.drainWaiters = [] }
            return s.drainWaiters
        }
        for w in waiters { w.resume() }
    }

    /// Ends the link with `error`: pending sends fail with it and `incoming` throws it.
    func fail(_ error: TransportError) {
        shutDown(error, incomingError: error)
    }

    /// Cancels every transfer, fails queued sends with `error`, finishes `incoming` (with
    /// `incomingError`, or normally when nil), then tears down in the background.
    private func shutDown(_ error: TransportError, incomingError: TransportError?) {
        let work: (sends: [SendWaiter], transfers: [any USBPendingTransfer], hotplug: Task<Void, Never>?)? = state.withLock { s in
            guard s.phase == .open || s.phase == .opening || s.phase == .idle else { return nil }
            let wasOpen = s.phase == .open
            s.phase = .closing
            s.closeError = error
            let sends = s.out.removeAll()
            let transfers = Array(s.inFlight.values) + Array(s.outTransfers.values)
            let hotplug = s.hotplugTask
            s.hotplugTask = nil
            if !wasOpen { s.phase = .closed }
            // Recorded with the phase change, so a concurrent close() always finds it and
            // waits (it runs once this lock is released).
            s.teardown = Task { await self.tearDown() }
            return (sends, transfers, hotplug)
        }
        guard let work else { return }
        for send in work.sends { send.resume(returning: .failure(error)) }
        if let incomingError { continuation.finish(throwing: incomingError) } else { continuation.finish() }
        for transfer in work.transfers { transfer.cancel() }
        work.hotplug?.cancel()
    }

    /// Waits for cancelled transfers (up to `cancelGrace`), then releases and closes.
    private func tearDown() async {
        let drained = await waitForTransfers(within: options.cancelGrace)
        let link: Link? = state.withLock { s in
            defer { s.link = nil; s.phase = .closed }
            return s.link
        }
        guard let link else { return }
        if drained {
            link.handle.releaseInterface(link.interface)
            if state.withLock({ $0.resetOnClose }) {
                do { try link.handle.resetPort() } catch {
                    SDLLog.usb.warning("\(link.handle.device): port reset failed (\(error)); the device may not notice the link dropped")
                }
            }
            link.handle.close()
        } else {
            // libusb still owns some transfer: closing the handle now could let it write
            // into freed memory. Leak the handle instead (its transfers keep it alive).
            SDLLog.usb.warning("\(link.handle.device): transfers did not come back within \(options.cancelGrace); leaving the handle open")
        }
    }

    private func waitForTransfers(within grace: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let drained: Bool = self.state.withLock { s in
                        if s.outstanding > 0 { s.drainWaiters.append(c) }
                        return s.outstanding <= 0
                    }
                    if drained { c.resume() }
                }
                return true
            }
            group.addTask { try? await Task.sleep(for: grace); return false }
            let drained = await group.next() ?? false
            group.cancelAll()
            // Timed out: release the drain waiter so the first child can end.
            if !drained {
                for waiter in self.state.withLock({ s in defer { s.drainWaiters = [] }; return s.drainWaiters }) { waiter.resume() }
            }
            return drained
        }
    }

    /// Closes the link: pending and queued sends fail with `.closed("closed by the app")`,
    /// `incoming` finishes, transfers are cancelled and the interface released. Safe to
    /// call twice.
    public func close() async { await close(.closed("closed by the app")) }

    /// Closes the link and resets the device's port, so that the device sees it end as it
    /// would a cable pulled and plugged back (a plain close is invisible to a USB device):
    /// a head unit dropping a phone's link.
    public func closeResettingDevice() async {
        state.withLock { $0.resetOnClose = true }
        await close(.closed("dropped by the head unit"))
    }

    private func close(_ reason: TransportError) async {
        shutDown(reason, incomingError: nil)
        await state.withLock { $0.teardown }?.value
    }
}

/// Lets a completion find its own transfer in the in-flight table.
/// `@unchecked Sendable`: `id` is written once, under the transport's `state` lock, right
/// after submission and before the transfer can be reaped (the completion takes the same lock).
final class TransferBox: @unchecked Sendable {
    var id: ObjectIdentifier?
}
