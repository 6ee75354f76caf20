import CLibUSB
import Dispatch
import Foundation
import Logging
import Synchronization

/// A libusb pointer (context, device, device handle) that crosses threads. libusb
/// documents these as usable from any thread for the calls made here; the owning
/// classes below decide when they are freed.
struct LibUSBPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// ``USBBackend`` on libusb-1.0: one libusb context and its event thread.
///
/// ## Why one dedicated event thread, not a reactor
/// libusb does its work (reaping URBs, timeouts, hotplug dispatch) inside
/// `libusb_handle_events*`, and transfer and hotplug callbacks run there. libusb could
/// hand out its poll file descriptors for an external reactor, but then the reactor must
/// still call into libusb, take libusb's event lock and honour libusb's timeouts, and the
/// blocking call must never run on Swift's cooperative thread pool (two threads on a
/// two-core machine: one blocked call would stall half of every task in the process).
/// So, as libusb's own documentation and sdl_core do, one thread blocks in
/// `libusb_handle_events_timeout_completed` (1 s timeout, woken at once by
/// `libusb_interrupt_event_handler` on shutdown). Callbacks resume Swift continuations
/// or yield into `AsyncStream`s and return at once, so nothing else runs on that thread.
public final class LibUSBBackend: USBBackend {
    let context: LibUSBContext

    /// Creates a libusb context and starts its event thread.
    ///
    /// On Linux, libusb initialises even without `/dev/bus/usb` (it then finds no
    /// devices); ``USBTransport`` reports that case as "no USB support on this machine".
    public init() throws(USBError) {
        context = try LibUSBContext()
    }

    public func devices(readingStrings: Bool) throws(USBError) -> [USBDeviceDescription] {
        try context.withDeviceList { list in
            list.map { Self.describe($0, readingStrings: readingStrings) }
        }
        .sorted { ($0.bus, $0.address) < ($1.bus, $1.address) }
    }

    public func open(_ device: USBDeviceDescription) throws(USBError) -> any USBDeviceHandle {
        let raw: OpaquePointer = try context.withDeviceList { list throws(USBError) in
            guard let dev = list.first(where: { Self.describe($0, readingStrings: false).isSameDevice(as: device) }) else {
                throw USBError.noDevice
            }
            var handle: OpaquePointer?
            try USBError.check(libusb_open(dev, &handle))
            guard let handle else { throw USBError.other }
            return handle
        }
        return LibUSBDeviceHandle(raw: LibUSBPointer(raw: raw), device: device, backend: self)
    }

    public func hotplugEvents(enumerateExisting: Bool) throws(USBError) -> AsyncStream<USBHotplugEvent> {
        try context.hotplugEvents(enumerateExisting: enumerateExisting)
    }

    /// The description of one libusb device; strings only when asked (needs an open).
    static func describe(_ dev: OpaquePointer, readingStrings: Bool) -> USBDeviceDescription {
        var desc = libusb_device_descriptor()
        _ = libusb_get_device_descriptor(dev, &desc)
        var result = USBDeviceDescription(
            bus: libusb_get_bus_number(dev), address: libusb_get_device_address(dev),
            id: USBVendorProduct(desc.idVendor, desc.idProduct))
        guard readingStrings else { return result }
        var handle: OpaquePointer?
        guard libusb_open(dev, &handle) == 0, let handle else { return result }
        defer { libusb_close(handle) }
        result.manufacturer = readString(handle, desc.iManufacturer)
        result.product = readString(handle, desc.iProduct)
        result.serialNumber = readString(handle, desc.iSerialNumber)
        return result
    }

    static func readString(_ handle: OpaquePointer, _ index: UInt8) -> String? {
        guard index != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = libusb_get_string_descriptor_ascii(handle, index, &buffer, Int32(buffer.count))
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<Int(n)], as: UTF8.self)
    }
}

/// Owns a `libusb_context`, its event thread and its hotplug registrations.
final class LibUSBContext: Sendable {

    let pointer: LibUSBPointer
    private let events: LibUSBEventThread
    /// Hotplug registrations: handle → the box libusb's callback points at. Boxes stay
    /// here until deinit, because libusb may still be inside a callback while another
    /// thread deregisters it.
    private let hotplugBoxes = Locked<[Int32: HotplugBox]>([:])

    init() throws(USBError) {
        var ctx: OpaquePointer?
        try USBError.check(libusb_init(&ctx))
        guard let ctx else { throw USBError.other }
        pointer = LibUSBPointer(raw: ctx)
        events = LibUSBEventThread(context: pointer)
    }

    deinit {
        let boxes = hotplugBoxes.withLock { $0 }
        for handle in boxes.keys {
            libusb_hotplug_deregister_callback(pointer.raw, handle)
        }
        let events = self.events, ctx = pointer
        let shutDown: @Sendable () -> Void = {
            events.stop()
            // Consumers still iterating see their hotplug stream end (before libusb_exit:
            // finishing runs onTermination, which deregisters on the live context).
            for box in boxes.values { box.continuation.finish() }
            libusb_exit(ctx.raw)
        }
        if events.isCurrentThread {
            // The last reference went away inside a libusb callback (e.g. a transfer that
            // held the last handle): libusb is still using the context below us. Stop and
            // exit from another thread once the callback has returned.
            Thread(block: shutDown).start()
        } else {
            shutDown()
        }
    }

    /// Runs `body` with the current device list (freed afterwards, devices unreferenced).
    func withDeviceList<T>(_ body: ([OpaquePointer]) throws(USBError) -> T) throws(USBError) -> T {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(pointer.raw, &list)
        if count < 0 { throw USBError(rawValue: Int32(count)) }
        defer { libusb_free_device_list(list, 1) }
        var devices: [OpaquePointer] = []
        for i in 0..<Int(count) {
            if let dev = list?[i] { devices.append(dev) }
        }
        return try body(devices)
    }

    func hotplugEvents(enumerateExisting: Bool) throws(USBError) -> AsyncStream<USBHotplugEvent> {
        guard libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0 else {
            throw USBError.notSupported
        }
        let (stream, continuation) = AsyncStream.makeStream(of: USBHotplugEvent.self)
        let box = HotplugBox(continuation: continuation)
        var handle: libusb_hotplug_callback_handle = 0
        let mask = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        let flags = enumerateExisting ? Int32(LIBUSB_HOTPLUG_ENUMERATE.rawValue) : 0
        let unmanaged = Unmanaged.passRetained(box)   // balanced below or in deinit
        let rc = libusb_hotplug_register_callback(
            pointer.raw, mask, flags, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            LIBUSB_HOTPLUG_MATCH_ANY, hotplugCallback, unmanaged.toOpaque(), &handle)
        unmanaged.release()
        if rc < 0 {
            continuation.finish()
            throw USBError(rawValue: rc)
        }
        hotplugBoxes.withLock { $0[handle] = box }
        let ctx = pointer
        let registered = handle
        continuation.onTermination = { _ in
            libusb_hotplug_deregister_callback(ctx.raw, registered)
        }
        return stream
    }
}

/// What a hotplug callback's `user_data` points at. Its only state is the continuation,
/// which is itself thread-safe.
final class HotplugBox: Sendable {
    let continuation: AsyncStream<USBHotplugEvent>.Continuation
    init(continuation: AsyncStream<USBHotplugEvent>.Continuation) { self.continuation = continuation }
}

private let hotplugCallback: libusb_hotplug_callback_fn = { _, device, event, userData in
    guard let device, let userData else { return 0 }
    let box = Unmanaged<HotplugBox>.fromOpaque(userData).takeUnretainedValue()
    // Only descriptor reads here: libusb forbids opening a device inside this callback.
    let description = LibUSBBackend.describe(device, readingStrings: false)
    if event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED {
        box.continuation.yield(.arrived(description))
    } else {
        box.continuation.yield(.left(description))
    }
    return 0
}

/// The one thread that runs libusb's event handling for a context (see ``LibUSBBackend``).
final class LibUSBEventThread: Sendable {
    private let context: LibUSBPointer
    private let stopRequested = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)
    /// The pthread of the loop, to detect a stop requested from inside a callback.
    private let threadID = Locked<pthread_t?>(nil)

    init(context: LibUSBPointer) {
        self.context = context
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            threadID.withLock { $0 = pthread_self() }
            started.signal()
            run()
            exited.signal()
        }
        thread.name = "sdl-usb-events"
        thread.start()
        started.wait()
    }

    private func run() {
        while !stopRequested.load(ordering: .acquiring) {
            var tv = timeval(tv_sec: 1, tv_usec: 0)
            let rc = libusb_handle_events_timeout_completed(context.raw, &tv, nil)
            if rc < 0 && rc != LIBUSB_ERROR_INTERRUPTED.rawValue {
                SDLLog.usb.error("libusb event handling failed: \(USBError(rawValue: rc))")
                usleep(100_000)   // do not spin on a persistent error
            }
        }
    }

    /// Whether the caller runs on the event thread (inside a libusb callback).
    var isCurrentThread: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Stops the loop and waits for it to end. Never call it on the event thread.
    func stop() {
        precondition(!isCurrentThread, "LibUSBEventThread.stop() on its own thread would deadlock")
        stopRequested.store(true, ordering: .releasing)
        libusb_interrupt_event_handler(context.raw)
        exited.wait()
    }
}
