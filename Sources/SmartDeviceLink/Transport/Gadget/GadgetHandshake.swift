#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The open gadget after the handshake: ep0 and the two bulk endpoints, and how it got there.
struct GadgetLink: Sendable {
    var ep0: Int32
    var bulkIn: Int32
    var bulkOut: Int32
    var udc: String
    /// How the run reached accessory mode, for the link's description.
    var path: String
}

/// Brings the gadget up and waits, on ep0, until a head unit uses it as an Android
/// accessory (blocking; `USBGadgetTransport.open()` runs it on a thread of its own).
///
/// As a phone (the default): bound as 18d1:4ee1, it answers the head unit's Android Open
/// Accessory requests and at START re-enumerates as the accessory, as a phone does, by
/// unbinding the UDC, changing the product ID and binding again. Started as the accessory
/// (``USBGadgetTransport/Options/startAsAccessory``), for a kernel or UDC that does not
/// hand device-level requests to FunctionFS: sdl_core takes an 18d1:2d00 device at once.
/// Either way the link is up when the host enables the accessory's configuration.
struct GadgetHandshake {
    let options: USBGadgetTransport.Options
    let endpoints: any FunctionFSEndpoints
    /// Written by close() while the handshake waits: ends it at once. -1: nothing does (poll
    /// leaves a negative descriptor out).
    let wake: Int32

    func run() throws(TransportError) -> GadgetLink {
        let configfs = GadgetConfigFS(paths: options.paths)
        let udc = try configfs.controller(named: options.udc)
        if let holder = configfs.boundController {
            throw .busy(device: "the gadget \(options.paths.name) (bound to \(holder): another sdl-run is using it)")
        }
        let identity = options.identity
        let firstProduct = options.startAsAccessory ? identity.accessoryProduct : identity.product
        try configfs.create(identity, product: firstProduct)
        try endpoints.mount()
        let ep0 = try openWithDescriptors()
        var handedOver = false
        defer { if !handedOver { configfs.unbind(); _ = close(ep0) } }
        try Self.write(FunctionFS.strings(), to: ep0, what: "the FunctionFS strings")
        try configfs.bind(udc)
        SDLLog.usb.info("USB gadget bound to \(udc) as \(Self.id(identity.vendor, firstProduct)); waiting for a head unit")

        var accessory = AccessoryRequests()
        var inAccessoryIdentity: Bool { options.startAsAccessory || accessory.started }
        var enumerated = false
        let deadline = ContinuousClock.now + options.waitForHost
        while true {
            for event in try next(ep0, until: deadline, enumerated: enumerated, sawRequests: !accessory.strings.isEmpty) {
                switch event {
                case .enable where inAccessoryIdentity:
                    let bulkIn = try endpoints.open(1)
                    let bulkOut: Int32
                    do { bulkOut = try endpoints.open(2) } catch { _ = close(bulkIn); throw error }
                    handedOver = true
                    let path = accessory.started
                        ? "switched into accessory mode by \(accessory.headUnit)"
                        : "started as the accessory \(Self.id(identity.vendor, identity.accessoryProduct))"
                    SDLLog.usb.info("USB gadget on \(udc): \(path); the head unit enabled the bulk endpoints")
                    return GadgetLink(ep0: ep0, bulkIn: bulkIn, bulkOut: bulkOut, udc: udc, path: path)
                case .enable:
                    enumerated = true
                    SDLLog.usb.debug("a USB host enumerated the gadget; waiting for the accessory requests")
                case .setup(let setup) where !inAccessoryIdentity:
                    try answer(setup, on: ep0, with: &accessory)
                    if accessory.started {
                        SDLLog.usb.info("accessory START from \(accessory.headUnit); re-enumerating as \(Self.id(identity.vendor, identity.accessoryProduct))")
                        configfs.unbind()
                        try configfs.setProduct(identity.accessoryProduct)
                        try configfs.bind(udc)
                    }
                case .setup(let setup):
                    Self.stall(setup, on: ep0)
                default:
                    SDLLog.usb.debug("USB gadget event \(event)")
                }
            }
        }
    }

    /// Opens ep0 and writes the descriptors, trying again for up to 3 s while the function is
    /// still active (ESRCH): the threads of the link before this one (a reconnect after the
    /// cable was pulled) close their files as they end, and FunctionFS takes new descriptors
    /// only once every file of the function, this ep0 too, has been closed.
    private func openWithDescriptors() throws(TransportError) -> Int32 {
        var attempts = 0
        while true {
            let ep0 = try endpoints.open(0)
            do throws(TransportError) {
                try Self.write(FunctionFS.descriptors(), to: ep0, what: "the FunctionFS descriptors")
                return ep0
            } catch .io(let operation, let code, let message) {
                _ = close(ep0)
                guard code == ESRCH && attempts < 30 else { throw .io(operation: operation, code: code, message: message) }
                attempts += 1
                SDLLog.usb.debug("FunctionFS still active (a file of the last link is open); trying again")
                usleep(100_000)
            } catch {
                _ = close(ep0)
                throw error
            }
        }
    }

    /// Waits for ep0's next events; a deadline passed says what the host did and did not do.
    private func next(_ ep0: Int32, until deadline: ContinuousClock.Instant, enumerated: Bool, sawRequests: Bool) throws(TransportError) -> [FunctionFS.Event] {
        let left = deadline - ContinuousClock.now
        var fds = [pollfd(fd: ep0, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, max(0, Int32(clamping: Int64(left.seconds * 1000))))
        if fds[1].revents != 0 { throw .closed("waiting for a head unit over USB was cancelled") }
        guard ready > 0 else {
            if ready < 0 && errno == EINTR { return [] }
            let seconds = options.waitForHost.seconds
            if sawRequests || enumerated {
                throw .timedOut(operation: "a USB host enumerated this board but never " + (sawRequests ? "sent the accessory START" : "sent the Android accessory requests")
                                + " (is it an SDL head unit? try --usb-gadget-accessory, which starts as the accessory); waiting", seconds: seconds)
            }
            throw .timedOut(operation: "waiting for a head unit to enumerate this board over USB (is the cable in the head unit's USB host port?)", seconds: seconds)
        }
        var buffer = [UInt8](repeating: 0, count: FunctionFS.Event.size * 4)
        let count = buffer.withUnsafeMutableBytes { read(ep0, $0.baseAddress, $0.count) }
        // A SETUP the host cancelled (it re-enumerated, say) is said once, as EIDRM, by the next read.
        if count < 0 && FunctionFS.setupCancelled(errno) { return [] }
        guard count > 0 else {
            throw .io(operation: "reading the gadget's ep0", code: count < 0 ? errno : EIO, message: count < 0 ? String(cString: strerror(errno)) : "end of file")
        }
        return FunctionFS.Event.parse(buffer[..<count])
    }

    /// Does what the accessory handshake says with one SETUP request.
    private func answer(_ setup: FunctionFS.Setup, on ep0: Int32, with accessory: inout AccessoryRequests) throws(TransportError) {
        switch accessory.reply(to: setup) {
        case .send(let bytes):
            try Self.write(Array(bytes.prefix(Int(setup.length))), to: ep0, what: "the answer to GET_PROTOCOL")
        case .receive(let length):
            // A host sends the data stage right after its SETUP; one that does not must not
            // hold the handshake past a cancellation.
            var fds = [pollfd(fd: ep0, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 5_000) > 0, fds[1].revents == 0 else {
                if fds[1].revents != 0 { throw .closed("waiting for a head unit over USB was cancelled") }
                throw .timedOut(operation: "waiting for the data of the head unit's accessory string \(setup.index)", seconds: 5)
            }
            var data = [UInt8](repeating: 0, count: length)
            let count = data.withUnsafeMutableBytes { read(ep0, $0.baseAddress, $0.count) }
            if count < 0 && FunctionFS.setupCancelled(errno) { return }  // the host gave up on this string; it sends it again
            guard count >= 0 else { throw .io(operation: "reading an accessory string", code: errno, message: String(cString: strerror(errno))) }
            accessory.received(Array(data.prefix(count)), for: setup)
        case .start:
            _ = read(ep0, nil, 0)  // the status stage: START is acknowledged
        case .stall:
            Self.stall(setup, on: ep0)
        }
    }

    /// FunctionFS stalls a request when ep0 is used in the wrong direction for it.
    static func stall(_ setup: FunctionFS.Setup, on ep0: Int32) {
        SDLLog.usb.debug("stalling control request type 0x\(String(setup.requestType, radix: 16)) request \(setup.request)")
        if setup.isIn { _ = Glibc.read(ep0, nil, 0) } else { _ = Glibc.write(ep0, nil, 0) }
    }

    static func write(_ bytes: [UInt8], to fd: Int32, what: String) throws(TransportError) {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written < 0 && FunctionFS.setupCancelled(errno) { return }  // the host gave up on the request: nothing to answer
        guard written == bytes.count else {
            let code = written < 0 ? errno : EIO
            throw .io(operation: "writing \(what) to ep0", code: code, message: String(cString: strerror(code)))
        }
    }

    static func id(_ vendor: UInt16, _ product: UInt16) -> String {
        USBVendorProduct(vendor, product).description
    }
}
