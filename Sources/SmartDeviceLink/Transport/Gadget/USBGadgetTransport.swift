#if canImport(Glibc)
import Glibc
#endif
import CSDLShim
import Foundation

/// SDL over USB as the USB *device*: the phone's side of a head unit's USB host port.
///
/// A TDK's USB port is a host port, and the phone plugged into it is the device, which
/// sdl_core switches into Android accessory mode and then talks SDL to over the
/// accessory's bulk endpoints. A Linux board with a USB device controller (Raspberry Pi
/// 4/5, BeagleBone; dummy_hcd in a VM) plays that phone with configfs and FunctionFS:
/// ``open()`` makes the gadget, binds it, answers the accessory requests on ep0 and
/// re-enumerates as the accessory, and returns when the head unit
/// has enabled the bulk endpoints. Bytes then flow over bulk IN (sent) and bulk OUT
/// (received).
///
/// While the link is up, ep0 still reports what the host does: a DISABLE or UNBIND (cable
/// pulled, head unit reset or off) ends ``incoming`` with ``TransportError/closed(_:)``, so
/// a manager's reconnect policy applies as on TCP. One exception: before the head unit has
/// sent anything, a DISABLE that an ENABLE follows within ``reconfigureGrace`` is the host
/// setting the configuration a second time (a libusb host such as sdl_core sets it when it
/// finds none, which can race the kernel's own enumeration), and the reads and writes it
/// cut short are repeated. A suspend and resume are logged. ``close()`` unbinds the gadget: the head unit sees the
/// phone unplugged.
public final class USBGadgetTransport: SDLTransport {
    /// How the gadget is made and waits.
    public struct Options: Sendable, Hashable {
        /// The USB device controller to bind to (a name in /sys/class/udc); nil: the first.
        public var udc: String?
        /// Where configfs, FunctionFS and the UDC class are (a test's stand-in elsewhere).
        public var paths = USBGadgetPaths()
        /// The ids and strings the head unit sees.
        public var identity = USBGadgetIdentity()
        /// Start as the accessory (18d1:2d00) instead of a phone that a head unit switches:
        /// for a kernel or UDC that does not pass device-level requests to FunctionFS.
        public var startAsAccessory = false
        /// How long ``USBGadgetTransport/open()`` waits for a head unit to take the board.
        public var waitForHost: Duration = .seconds(60)
        /// The largest read of bulk OUT. Reads follow the SDL frames coming in, so that none
        /// waits for bytes the head unit is not sending; one packet (512 at high speed) reads
        /// a packet at a time whatever comes. A kernel that cannot give a read this large
        /// (ENOMEM) gets half as much from then on.
        public var largestRead = 65_536

        /// The defaults: the first controller, an Android-like phone, a minute's wait.
        public init() {}
    }

    /// USB.
    public let kind = TransportKind.usb
    public let incoming: AsyncThrowingStream<[UInt8], any Error>
    /// The options it was made with.
    public let options: Options
    private let endpoints: any FunctionFSEndpoints
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let writes = DispatchQueue(label: "sdl-gadget-write")
    private let state: Locked<State>

    private struct State {
        var label: String
        var link: GadgetLink?
        var closed = false
        var failure: TransportError?
        /// A pipe that wakes ep0's poll: the handshake's and the watcher's.
        var wake: (read: Int32, write: Int32) = (-1, -1)
        /// Bulk IN is closed (or queued to be): by the first of a failure and close().
        var bulkInClosed = false
        /// The files their threads have closed, set under the lock they are closed under: a
        /// number closed may already belong to another file, which close()'s shutdown must
        /// not reach (it once shut down a listening socket of the same process).
        var closedFiles = (bulkIn: false, bulkOut: false, ep0: false)
        /// Bulk IN's packet size at the speed the host chose, read once at open.
        var packetIn = 512
        /// How many times the host enabled the configuration since the link came up: a bulk
        /// read or write cut short by a DISABLE is repeated when this has grown.
        var enables = 0
        /// Whether the head unit has sent anything: after that a DISABLE is always a loss.
        var heardFromHost = false
    }

    /// How long a DISABLE may wait for the ENABLE that makes it a re-configuration rather
    /// than the head unit letting go.
    public static let reconfigureGrace: Duration = .seconds(1)

    /// The USB device controller a gadget binds to: the one named (`wanted`), or the
    /// machine's first; a one-line error when there is none or not that one (what `open()`
    /// checks first). `paths` says where configfs and sysfs are (a test's stand-in).
    public static func controller(named wanted: String?, paths: USBGadgetPaths = USBGadgetPaths()) throws(TransportError) -> String {
        try GadgetConfigFS(paths: paths).controller(named: wanted)
    }

    /// The board's USB gadget as a link, not yet made.
    /// - Parameters:
    ///   - options: which controller, how long to wait for the head unit, the identity to start in.
    ///   - endpoints: the FunctionFS files; the kernel's by default, a test's stand-in otherwise.
    public init(options: Options = Options(), endpoints: (any FunctionFSEndpoints)? = nil) {
        self.options = options
        self.endpoints = endpoints ?? FunctionFSMount(paths: options.paths)
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        state = Locked(State(label: "USB gadget" + (options.udc.map { " on \($0)" } ?? "")))
    }

    /// "USB gadget on dummy_udc.0, switched into accessory mode by SDL Core 1.0 (…)" once open.
    public var description: String { state.withLock { $0.label } }

    public func open() async throws(TransportError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw .io(operation: "pipe", code: errno, message: String(cString: strerror(errno))) }
        for fd in pipeEnds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let wake = pipeEnds[0]
        let started = state.withLock { state -> Bool in
            guard !state.closed, state.wake.read < 0 else { return false }
            state.wake = (pipeEnds[0], pipeEnds[1])
            return true
        }
        guard started else {
            _ = Glibc.close(pipeEnds[0]); _ = Glibc.close(pipeEnds[1])
            throw .closed("this USB gadget link was closed or opened already; make a new one")
        }
        let handshake = GadgetHandshake(options: options, endpoints: endpoints, wake: wake)
        let link = try await BlockingCall.run(
            "sdl-gadget-open", discard: { Self.release($0, configfs: GadgetConfigFS(paths: self.options.paths)) },
            onCancel: { [self] in wakeUp(); return .closed("waiting for a head unit over USB was cancelled") }
        ) { () throws(TransportError) -> GadgetLink in try handshake.run() }
        let packetIn = Self.maxPacketSize(link.bulkIn)
        let kept = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.link = link
            state.packetIn = packetIn
            state.label = "USB gadget on \(link.udc), \(link.path)"
            return true
        }
        guard kept else {
            Self.release(link, configfs: GadgetConfigFS(paths: options.paths))
            throw .closed("the USB gadget link was closed while it opened")
        }
        let packet = Self.maxPacketSize(link.bulkOut)
        Thread.start(named: "sdl-gadget-ep0") { [self] in watch(link.ep0, wake: wake) }
        Thread.start(named: "sdl-gadget-read") { [self] in read(link.bulkOut, packet: packet) }
    }

    // MARK: - Sending

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        let outcome: Result<Void, TransportError> = await withCheckedContinuation { done in
            writes.async { [self] in done.resume(returning: write(bytes)) }
        }
        try outcome.get()
    }

    /// Writes all of `bytes` to bulk IN (on the write queue).
    ///
    /// FunctionFS sends no zero-length packet, and a host's bulk IN transfer ends only at a
    /// short packet or when its buffer is full; so a send whose length is a multiple of the
    /// packet size is written as two, the second one byte, and both end short.
    private func write(_ bytes: [UInt8]) -> Result<Void, TransportError> {
        guard let (fd, packet) = state.withLock({ state in
            state.failure == nil && !state.closed ? state.link.map { ($0.bulkIn, state.packetIn) } : nil
        }) else {
            return .failure(state.withLock { $0.failure } ?? .closed("the USB gadget link is not open"))
        }
        let cuts = bytes.count > 1 && bytes.count % packet == 0 ? [0, bytes.count - 1, bytes.count] : [0, bytes.count]
        return bytes.withUnsafeBytes { raw -> Result<Void, TransportError> in
            for (start, end) in zip(cuts, cuts.dropFirst()) {
                var offset = start
                while offset < end {
                    let enables = state.withLock { $0.enables }
                    let count = Glibc.write(fd, raw.baseAddress! + offset, end - offset)
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 && Self.cutByHost(errno) && reenabled(after: enables) { continue }
                    guard count > 0 else { return .failure(fail(code: count < 0 ? errno : EIO, during: "writing to bulk IN")) }
                    offset += count
                }
            }
            return .success(())
        }
    }

    // MARK: - Receiving and watching ep0

    /// Reads bulk OUT, each read as large as the frames going by make safe (``BulkReadSizer``):
    /// a read larger than what is on its way would wait for a short packet that a host
    /// sending a whole number of packets never sends.
    private func read(_ fd: Int32, packet: Int) {
        var sizer = BulkReadSizer(packet: packet, limit: options.largestRead)
        var buffer = [UInt8](repeating: 0, count: sizer.limit)
        while true {
            let enables = state.withLock { $0.enables }
            let size = sizer.nextRead
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, size) }
            if count > 0 {
                state.withLock { $0.heardFromHost = true }
                sizer.consumed(buffer[..<count])
                continuation.yield(Array(buffer[..<count]))
            } else if count < 0 && (errno == EINTR || (Self.cutByHost(errno) && reenabled(after: enables))) {
                continue
            } else if count < 0 && errno == ENOMEM && sizer.limit > sizer.packet {
                // FunctionFS allocates each read's buffer in the kernel: a fragmented board may not have 64 KiB in one piece.
                sizer = sizer.withLimit(sizer.limit / 2)
                SDLLog.usb.notice("the kernel had no memory for a \(size)-byte USB read; reading at most \(sizer.limit) from now on")
                continue
            } else {
                finish(fail(code: count < 0 ? errno : ESHUTDOWN, during: "reading bulk OUT"))
                state.withLock { state in  // here, once no read of it can follow
                    state.closedFiles.bulkOut = true
                    _ = Glibc.close(fd)
                }
                return
            }
        }
    }

    /// Follows ep0 while the link is up: the host letting go ends the link.
    private func watch(_ ep0: Int32, wake: Int32) {
        defer {  // closing ep0 also takes the function off the kernel's gadget
            state.withLock { state in
                state.closedFiles.ep0 = true
                _ = Glibc.close(ep0)
            }
        }
        var buffer = [UInt8](repeating: 0, count: FunctionFS.Event.size * 4)
        var disabledAt: ContinuousClock.Instant?
        while true {
            var fds = [pollfd(fd: ep0, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let timeout = disabledAt.map { max(0, Int32(clamping: Int64((Self.reconfigureGrace - $0.duration(to: .now)).seconds * 1000))) } ?? -1
            let ready = poll(&fds, 2, timeout)
            guard ready >= 0 || errno == EINTR else { break }
            if fds[1].revents != 0 { break }
            if ready == 0, disabledAt != nil {
                finish(fail(.closed(Self.letGo("DISABLE"))))
                break
            }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(ep0, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || FunctionFS.setupCancelled(errno)) { continue }
            guard count > 0 else { finish(fail(code: count < 0 ? errno : ESHUTDOWN, during: "reading ep0")); break }
            for event in FunctionFS.Event.parse(buffer[..<count]) {
                switch event {
                case .disable where state.withLock({ $0.heardFromHost }),
                     .enable where state.withLock({ $0.heardFromHost }):  // its DISABLE merged into it by the kernel
                    finish(fail(.closed(Self.letGo("DISABLE"))))
                case .disable:
                    disabledAt = disabledAt ?? .now
                case .enable:
                    disabledAt = nil
                    state.withLock { $0.enables += 1 }
                    SDLLog.usb.info("the head unit set the USB configuration again; the link goes on")
                case .unbind:
                    finish(fail(.closed(Self.letGo("UNBIND"))))
                case .suspend:
                    SDLLog.usb.notice("the head unit suspended the USB bus; the link waits for it to resume")
                case .resume:
                    SDLLog.usb.notice("the head unit resumed the USB bus")
                case .setup(let setup):
                    GadgetHandshake.stall(setup, on: ep0)
                default:
                    SDLLog.usb.debug("USB gadget event \(event)")
                }
            }
        }
    }

    private static func letGo(_ event: String) -> String {
        "the head unit let go of the USB link (\(event): the cable was pulled, or the head unit reset or switched off)"
    }

    /// A bulk read or write ended because the host disabled the endpoint: ESHUTDOWN when it
    /// was under way, EAGAIN (the files are non-blocking) when it began while disabled.
    private static func cutByHost(_ code: Int32) -> Bool { code == ESHUTDOWN || code == EAGAIN }

    /// After a bulk read or write was cut by the host: whether the host enabled the
    /// configuration again before it sent anything (so the transfer is to be repeated),
    /// waiting at most a little longer than ep0's watcher waits before it calls the DISABLE a loss.
    private func reenabled(after enables: Int) -> Bool {
        let deadline = ContinuousClock.now + Self.reconfigureGrace + .milliseconds(500)
        while ContinuousClock.now < deadline {
            let (now, over) = state.withLock { ($0.enables, $0.failure != nil || $0.closed || $0.heardFromHost) }
            if over { return false }
            if now > enables { return true }
            usleep(10_000)
        }
        return false
    }

    /// Records the first failure (later ones are its consequences) and returns it.
    private func fail(code: Int32, during operation: String) -> TransportError {
        if code == ESHUTDOWN || code == ENODEV || code == EPIPE || code == EAGAIN {
            return fail(.closed("the head unit let go of the USB link (the cable was pulled, or the head unit reset or switched off)"))
        }
        return fail(.io(operation: operation, code: code, message: String(cString: strerror(code))))
    }

    private func fail(_ error: TransportError) -> TransportError {
        state.withLock { state in
            if state.failure == nil { state.failure = state.closed ? .closed("closed by us") : error }
            return state.failure!
        }
    }

    private func finish(_ error: TransportError) {
        let byUs = state.withLock { $0.closed }
        if byUs { continuation.finish() } else { continuation.finish(throwing: error) }
        wakeUp()
        closeBulkIn()
    }

    /// Closes bulk IN once, after the writes queued before it: every file of the function
    /// must close for a new link to take it over. `link` nil: the open one, if any (close()
    /// passes the link it took, which a second close() would no longer find).
    private func closeBulkIn(of link: GadgetLink? = nil) {
        guard let fd = state.withLock({ state -> Int32? in
            guard let link = link ?? state.link, !state.bulkInClosed else { return nil }
            state.bulkInClosed = true
            return link.bulkIn
        }) else { return }
        writes.async { [state] in
            state.withLock { state in
                state.closedFiles.bulkIn = true
                _ = Glibc.close(fd)
            }
        }
    }

    // MARK: - Closing

    public func close() async {
        let link = state.withLock { state -> GadgetLink? in
            state.closed = true
            defer { state.link = nil }
            return state.link
        }
        wakeUp()
        continuation.finish()
        guard let link else { return }
        // Unbinding ends the endpoints' blocking reads and writes (ESHUTDOWN); a stand-in's
        // socket ends with the shutdown. Each thread closes the file it reads when it ends (a
        // file closed under a read could be reused by the next open); the write queue closes
        // bulk IN after its last write.
        GadgetConfigFS(paths: options.paths).unbind()
        state.withLock { state in
            let closed = state.closedFiles
            for (fd, gone) in [(link.bulkIn, closed.bulkIn), (link.bulkOut, closed.bulkOut), (link.ep0, closed.ep0)] where !gone {
                _ = shutdown(fd, Int32(SHUT_RDWR))
            }
        }
        closeBulkIn(of: link)
        await withCheckedContinuation { done in writes.async { done.resume() } }
    }

    /// Closes the files of a link that no thread reads yet, and unbinds its gadget.
    private static func release(_ link: GadgetLink, configfs: GadgetConfigFS) {
        configfs.unbind()
        for fd in [link.bulkIn, link.bulkOut, link.ep0] { _ = Glibc.close(fd) }
    }

    deinit {
        // The wake pipe lives as long as the transport: a late wake-up never writes to a reused number.
        let wake = state.withLock { $0.wake }
        if wake.read >= 0 { _ = Glibc.close(wake.read); _ = Glibc.close(wake.write) }
    }

    private func wakeUp() {
        let fd = state.withLock { $0.wake.write }
        if fd >= 0 { _ = Glibc.write(fd, "x", 1) }
    }

    /// The endpoint's packet size at the speed the host chose; 512, high speed's, where the
    /// file cannot say (a stand-in).
    static func maxPacketSize(_ fd: Int32) -> Int {
        let size = sdl_ffs_max_packet_size(fd)
        return size > 0 ? Int(size) : 512
    }
}
