import CLibUSB
import Dispatch
import Foundation
@_spi(RawLinks) import SmartDeviceLink

/// One end of a link with nothing over it: blocking reads and writes straight to the
/// endpoint or socket. The baselines of the real-link rows (`sdl-benchmark link`) run the
/// same work as the library's rows through these, so a ratio shows what the library adds on
/// that link.
protocol RawEnd: Sendable {
    /// Writes all of `bytes`: on USB one transfer.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Reads what has come, at most `buffer.count` bytes (at least one).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension RawEnd {
    /// Reads into `buffer`, at most `count` bytes of it.
    func read(atMost count: Int, into buffer: inout [UInt8]) throws -> Int {
        try buffer.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<min(count, $0.count)])) }
    }
}

struct RawLinkError: Error, CustomStringConvertible {
    let description: String
    init(_ operation: String, code: Int32) { description = "\(operation): \(String(cString: strerror(code)))" }
    init(_ description: String) { self.description = description }
}

/// An end on file descriptors: a FunctionFS endpoint pair, an RFCOMM socket.
struct FileEnd: RawEnd {
    let readFD: Int32
    let writeFD: Int32
    /// The largest single write. An RFCOMM socket builds a whole write's buffers before it
    /// sends any, so one larger than its send buffer waits for good (Linux 6.1); 4 KiB is
    /// what ``BluetoothTransport`` reads in.
    var largestWrite = Int.max

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(writeFD, bytes.baseAddress! + offset, min(largestWrite, bytes.count - offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw RawLinkError("raw write", code: count < 0 ? errno : EIO) }
            offset += count
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(readFD, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw RawLinkError("raw read", code: count < 0 ? errno : ESHUTDOWN) }
            return count
        }
    }
}

/// The host's end of a USB device's bulk pair through libusb's synchronous transfers.
final class LibUSBEnd: RawEnd, @unchecked Sendable {  // the handle is used by one reader and one writer thread, as libusb allows
    private let context: OpaquePointer
    private let handle: OpaquePointer
    private let inEndpoint: UInt8 = 0x81, outEndpoint: UInt8 = 0x02  // the gadget's (FunctionFS.descriptors)

    /// Opens the first device with this id, waiting up to `wait` for it to appear.
    init(_ id: USBVendorProduct, wait: Duration = .seconds(30)) throws {
        var context: OpaquePointer?
        guard libusb_init(&context) == 0, let context else { throw RawLinkError("libusb_init failed") }
        let deadline = ContinuousClock.now + wait
        var handle: OpaquePointer?
        while handle == nil {
            handle = libusb_open_device_with_vid_pid(context, id.vendorID, id.productID)
            if handle == nil {
                guard ContinuousClock.now < deadline else { libusb_exit(context); throw RawLinkError("no USB device \(id) appeared") }
                usleep(50_000)
            }
        }
        let status = libusb_claim_interface(handle, 0)
        guard status == 0 else {
            libusb_close(handle); libusb_exit(context)
            throw RawLinkError("claiming interface 0 of \(id): \(String(cString: libusb_error_name(status)))")
        }
        self.context = context
        self.handle = handle!
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try transfer(outEndpoint, UnsafeMutableRawBufferPointer(mutating: bytes))
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try transfer(inEndpoint, buffer)
    }

    @discardableResult
    private func transfer(_ endpoint: UInt8, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done: Int32 = 0
        let status = libusb_bulk_transfer(handle, endpoint, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count), &done, 0)
        guard status == 0 else { throw RawLinkError("bulk transfer on 0x\(String(endpoint, radix: 16)): \(String(cString: libusb_error_name(status)))") }
        return Int(done)
    }

    func close() {
        libusb_release_interface(handle, 0)
        libusb_close(handle)
        libusb_exit(context)
    }
}

/// The work of the real-link rows, done raw: each end's loop runs on a thread of its own.
enum RawWork {
    /// `count` requests of `requestSize` bytes from the app's end, each answered by the head
    /// unit's end with `responseSize` bytes, at most `window` unanswered: round trips with a
    /// window of one, an upload's chunks and their acknowledgements with four. Every read
    /// asks for no more than is still to come, so none waits on a USB transfer that a
    /// whole number of packets never ends.
    static func exchange(app: any RawEnd, unit: any RawEnd, count: Int, requestSize: Int, responseSize: Int,
                         window: Int) async throws -> Duration {
        let request = [UInt8](repeating: 2, count: requestSize)
        let response = [UInt8](repeating: 1, count: responseSize)
        let room = DispatchSemaphore(value: window)
        let failures = Failures()
        let unitDone = onThread(failures) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var received = 0, answered = 0
            while answered < count {
                received += try unit.read(atMost: count * requestSize - received, into: &buffer)
                while answered < received / requestSize {
                    try response.withUnsafeBytes { try unit.write($0) }
                    answered += 1
                }
            }
        }
        let start = ContinuousClock.now
        let writerDone = onThread(failures) {
            for _ in 0..<count {
                room.wait()
                try request.withUnsafeBytes { try app.write($0) }
            }
        }
        let readerDone = onThread(failures) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var received = 0
            while received < count * responseSize {
                let before = received / responseSize
                received += try app.read(atMost: count * responseSize - received, into: &buffer)
                for _ in before..<(received / responseSize) { room.signal() }
            }
        }
        await readerDone.value
        let elapsed = ContinuousClock.now - start
        await writerDone.value
        await unitDone.value
        try failures.check()
        return elapsed
    }

    /// The app's end writes each of `units` as it is (a video's access units, back to back,
    /// as fast as the link takes them); done when the head unit's end has read them all.
    static func stream(app: any RawEnd, unit: any RawEnd, units: [[UInt8]]) async throws -> Duration {
        let total = units.reduce(0) { $0 + $1.count }
        let failures = Failures()
        let start = ContinuousClock.now
        let unitDone = onThread(failures) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var received = 0
            while received < total {
                received += try unit.read(atMost: total - received, into: &buffer)
            }
        }
        let writerDone = onThread(failures) {
            for accessUnit in units { try accessUnit.withUnsafeBytes { try app.write($0) } }
        }
        await unitDone.value
        let elapsed = ContinuousClock.now - start
        await writerDone.value
        try failures.check()
        return elapsed
    }

    /// The first error of any end's thread.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var first: (any Error)?
        /// Keeps the first error and says it at once: the other ends may now wait for good, and
        /// a lab test's time limit is what ends them.
        func record(_ error: any Error) {
            FileHandle.standardError.write(Data("raw link failed: \(error)\n".utf8))
            lock.withLock { if first == nil { first = error } }
        }
        func check() throws { if let error = lock.withLock({ first }) { throw error } }
    }

    /// Runs `body` on a thread of its own (it blocks in reads and writes); the task ends with
    /// it, its error kept in `failures`.
    static func onThread(_ failures: Failures, _ body: @escaping @Sendable () throws -> Void) -> Task<Void, Never> {
        Task {
            do { try await RealLinks.blocking(body) } catch { failures.record(error) }
        }
    }
}

/// Two connected TCP sockets on loopback, Nagle off on both as the library's TCP transports
/// have it: the control link of `sdl-benchmark link tcp`, which shows what the emulated
/// machine's thread wake-ups cost the library where no USB or Bluetooth is involved.
enum LoopbackTCP {
    static func pair() throws -> (Int32, Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else { throw RawLinkError("listening on loopback", code: errno) }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        guard connected else { throw RawLinkError("connecting on loopback", code: errno) }
        let server = accept(listener, nil, nil)
        guard server >= 0 else { throw RawLinkError("accepting on loopback", code: errno) }
        var one: Int32 = 1
        for fd in [client, server] { setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        return (client, server)
    }
}
