#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// A board's configfs, UDC list and FunctionFS, in a temporary folder and three socket
/// pairs that the test drives as the kernel would: ep0's events and data stages as
/// separate messages, each bulk write as one message.
final class GadgetStandIn: FunctionFSEndpoints, @unchecked Sendable {
    let root: String
    var paths = USBGadgetPaths()
    /// The kernel's ends: ep0, bulk IN (read by the host), bulk OUT (written by the host).
    private(set) var kernel: [Int32] = []
    private var gadgetSide: [Int32] = []

    init(udcs: [String] = ["dummy_udc.0"], configfsHasGadgets: Bool = true) {
        root = NSTemporaryDirectory() + "sdl-gadget-\(UUID().uuidString)"
        paths.configfs = root + "/config"
        paths.udcClass = root + "/udc"
        paths.functionfs = root + "/ffs"
        for dir in [paths.configfs, paths.udcClass] { try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        if configfsHasGadgets { try! FileManager.default.createDirectory(atPath: paths.configfs + "/usb_gadget", withIntermediateDirectories: true) }
        for udc in udcs { _ = FileManager.default.createFile(atPath: paths.udcClass + "/" + udc, contents: nil) }
        for _ in 0..<3 {
            var pair: [Int32] = [0, 0]
            precondition(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
            gadgetSide.append(pair[0]); kernel.append(pair[1])
            // A gadget that never writes fails the test instead of hanging it; 30 s, because
            // with every suite running at once on two cores 5 s was sometimes too short.
            var limit = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(pair[1], SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        // ep0 answers a zero-length read (an acknowledged status stage) at once, as the kernel does.
        _ = fcntl(gadgetSide[0], F_SETFL, fcntl(gadgetSide[0], F_GETFL) | O_NONBLOCK)
    }

    deinit {
        for fd in kernel { close(fd) }
        for (number, fd) in gadgetSide.enumerated() where !handedOut.contains(number) { close(fd) }
        try? FileManager.default.removeItem(atPath: root)
    }

    func mount() throws(TransportError) {}
    /// The gadget's end itself, once: the transport owns it from then on, so its closing shows
    /// on the kernel's end as an end of file.
    func open(_ number: Int) throws(TransportError) -> Int32 {
        handedOut.insert(number)
        return gadgetSide[number]
    }
    private var handedOut: Set<Int> = []

    var options: USBGadgetTransport.Options {
        var options = USBGadgetTransport.Options()
        options.paths = paths
        options.waitForHost = .seconds(10)
        return options
    }

    /// A configfs attribute as the gadget wrote it. Read with read(2): Foundation's file reading
    /// leaks its buffer when it catches a file empty, between the gadget's truncate and write
    /// (LeakSanitizer saw it).
    func attribute(_ name: String) -> String? {
        let fd = Glibc.open("\(paths.configfs)/usb_gadget/\(paths.name)/\(name)", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `struct usb_functionfs_event`: the SETUP packet (or zeros), the type, three pad bytes.
    func event(_ type: UInt8, _ setup: [UInt8] = Array(repeating: 0, count: 8)) { send(0, setup + [type, 0, 0, 0]) }
    func setup(type requestType: UInt8, request: UInt8, index: UInt16 = 0, length: UInt16) {
        event(4, [requestType, request, 0, 0, UInt8(index & 0xFF), UInt8(index >> 8), UInt8(length & 0xFF), UInt8(length >> 8)])
    }
    func send(_ endpoint: Int, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(kernel[endpoint], $0.baseAddress, $0.count) }
    }
    /// The next message the gadget wrote to `endpoint` (blocking, so off the pool).
    func receive(_ endpoint: Int) async -> [UInt8] {
        let fd = kernel[endpoint]
        return await offThePool { () -> [UInt8] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var count: Int
            repeat { count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } } while count < 0 && errno == EINTR
            return Array(buffer.prefix(max(count, 0)))
        }
    }
    /// Whether the gadget closed its end of `endpoint`, seen from the kernel's end (an end of
    /// file once what is queued is read). Not by probing the descriptor number: with every
    /// suite running at once another test may already have been given that number again.
    func gadgetClosed(_ endpoint: Int) async -> Bool {
        for _ in 0..<300 {
            var byte: UInt8 = 0
            let received = recv(kernel[endpoint], &byte, 1, Int32(MSG_DONTWAIT))
            if received == 0 { return true }
            if received < 0 { try? await Task.sleep(for: .milliseconds(10)) }
        }
        return false
    }
    /// Whether the gadget's end of `endpoint` is closed: a read on the kernel's end sees an end of file.
    func closedByGadget(_ endpoint: Int) -> Bool {
        var byte: UInt8 = 0
        return recv(kernel[endpoint], &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }
    /// A message the gadget wrote to `endpoint` and nobody read yet, without waiting.
    func pending(_ endpoint: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(kernel[endpoint], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count >= 0 ? Array(buffer.prefix(count)) : nil
    }
    /// Makes the gadget's bulk OUT file non-blocking or blocking again. The kernel's file is
    /// always non-blocking and says EAGAIN only while the host has the endpoint disabled; so a
    /// non-blocking stand-in with nothing to read plays the endpoint between DISABLE and ENABLE.
    func bulkOutDisabled(_ disabled: Bool) {
        let flags = fcntl(gadgetSide[2], F_GETFL)
        _ = fcntl(gadgetSide[2], F_SETFL, disabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }
    /// Waits (a few seconds at most) until a configfs attribute holds `value`.
    func waitFor(_ name: String, _ value: String) async -> Bool {
        for _ in 0..<500 {
            if attribute(name) == value { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

@Suite("USB device role: the gadget a head unit switches into accessory mode (FunctionFS stand-in)")
struct USBGadgetTransportTests {
    static let headUnitStrings = ["SDL", "Core", "SmartDeviceLink Core Component USB", "1.0", "http://www.smartdevicelink.org", "N000000"]

    /// Plays sdl_core's usb_connection up to START, as the kernel hands it to ep0.
    func switchIntoAccessoryMode(_ board: GadgetStandIn) async {
        board.event(0)  // BIND
        board.event(2)  // ENABLE: a host enumerated the phone
        board.setup(type: 0xC0, request: 51, length: 2)
        #expect(await board.receive(0) == [2, 0], "GET_PROTOCOL is answered with protocol 2")
        for (index, text) in Self.headUnitStrings.enumerated() {
            board.setup(type: 0x40, request: 52, index: UInt16(index), length: UInt16(text.utf8.count + 1))
            board.send(0, Array(text.utf8) + [0])
        }
        board.setup(type: 0xC0, request: 99, length: 4)  // an unknown request is stalled, not answered
        board.setup(type: 0x40, request: 53, length: 0)  // START
    }

    @Test("the accessory switch, the re-enumeration as 18d1:2d00, and bytes both ways")
    func accessorySwitch() async throws {
        let board = GadgetStandIn()
        let link = USBGadgetTransport(options: board.options, endpoints: board)
        let opened = Task { try await link.open() }
        let descriptors = await board.receive(0)
        #expect(Array(descriptors.prefix(4)) == [3, 0, 0, 0] && descriptors.count == 8 + 12 + 2 * (9 + 7 + 7),
                "FunctionFS descriptors v2, full and high speed: \(descriptors)")
        try #require(descriptors.count > 8)
        #expect(descriptors[8] == 1 | 2 | 64, "all control recipients, so device-level requests reach ep0")
        #expect(Array(await board.receive(0).prefix(4)) == [2, 0, 0, 0], "the strings follow")
        #expect(await board.waitFor("UDC", "dummy_udc.0"))
        #expect(board.attribute("idVendor") == "0x18d1" && board.attribute("idProduct") == "0x4ee1")

        await switchIntoAccessoryMode(board)
        #expect(await board.waitFor("idProduct", "0x2d00"), "START re-enumerates with the accessory's product ID")
        #expect(await board.waitFor("UDC", "dummy_udc.0"), "and binds again")
        board.event(2)  // ENABLE of the accessory's configuration
        try await opened.value
        #expect(board.pending(0) == nil, "the unknown request got no answer, only GET_PROTOCOL did")
        #expect(link.description == "USB gadget on dummy_udc.0, switched into accessory mode by SDL Core 1.0 (SmartDeviceLink Core Component USB)")

        try await link.send([1, 2, 3])
        #expect(await board.receive(1) == [1, 2, 3])
        try await link.send(Array(repeating: 7, count: 1024))
        let first = await board.receive(1), second = await board.receive(1)
        #expect(first.count == 1023 && second == [7], "a send of whole packets ends short: FunctionFS sends no zero-length packet")
        var incoming = link.incoming.makeAsyncIterator()
        board.send(2, [9, 8, 7])
        #expect(try await incoming.next() == [9, 8, 7])
        board.event(5)  // SUSPEND and RESUME: the bus sleeps and wakes; the link stays
        board.event(6)
        board.send(2, [6])
        #expect(try await incoming.next() == [6])

        board.event(3)  // DISABLE: the cable pulled
        do {
            _ = try await incoming.next()
            Issue.record("the link went on after DISABLE")
        } catch {
            #expect("\(error)".contains("the head unit let go of the USB link (DISABLE"), "\(error)")
        }
        await link.close()
        #expect(board.attribute("UDC") == "", "closing unbinds: the head unit sees the phone unplugged")
    }

    /// A link started as the accessory, opened by the host's first ENABLE.
    func openAsAccessory(_ board: GadgetStandIn, bulkOutDisabled: Bool = false) async throws -> USBGadgetTransport {
        var options = board.options
        options.startAsAccessory = true
        let link = USBGadgetTransport(options: options, endpoints: board)
        let opened = Task { try await link.open() }
        _ = await board.receive(0); _ = await board.receive(0)  // descriptors, strings
        #expect(await board.waitFor("UDC", "dummy_udc.0"))
        board.bulkOutDisabled(bulkOutDisabled)
        board.event(2)
        try await opened.value
        return link
    }

    @Test("started as the accessory, the link is up at the first ENABLE, with no switch")
    func startAsAccessory() async throws {
        let board = GadgetStandIn()
        let link = try await openAsAccessory(board)
        #expect(board.attribute("idProduct") == "0x2d00")
        #expect(link.description == "USB gadget on dummy_udc.0, started as the accessory 18d1:2d00")
        await link.close()
    }

    /// Found in the lab: a host that sets the configuration while the kernel's enumeration
    /// does (both SET_CONFIGURATIONs reach the gadget) disables and enables the function
    /// right after the link came up, cutting the bulk read short.
    @Test("before the head unit has spoken, a DISABLE that an ENABLE follows is a re-configuration: the read is repeated")
    func reconfiguration() async throws {
        let board = GadgetStandIn()
        let link = try await openAsAccessory(board, bulkOutDisabled: true)  // the first read finds it disabled
        var incoming = link.incoming.makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(100))
        board.bulkOutDisabled(false)
        board.event(3)  // DISABLE
        board.event(2)  // ENABLE
        board.send(2, [5])
        #expect(try await incoming.next() == [5])
        try await link.send([6])
        #expect(await board.receive(1) == [6])
        await link.close()
    }

    @Test("once the head unit has spoken, a DISABLE ends the link even when an ENABLE follows (a reset: a new session)")
    func resetAfterTraffic() async throws {
        let board = GadgetStandIn()
        let link = try await openAsAccessory(board)
        var incoming = link.incoming.makeAsyncIterator()
        board.send(2, [4])
        #expect(try await incoming.next() == [4])
        board.event(3)
        board.event(2)
        await #expect(throws: TransportError.self) { _ = try await incoming.next() }
        await link.close()
    }

    /// Found in the lab: a second close() while the first was unbinding made the first skip
    /// bulk IN, which stayed open, so FunctionFS refused every later link's descriptors.
    @Test("two close() at once still close every file of the function")
    func concurrentCloses() async throws {
        let board = GadgetStandIn()
        let link = try await openAsAccessory(board)
        // The first close() is held in its unbind (UDC is now a FIFO nobody reads yet) while a
        // second one runs, as the kernel held it in the lab.
        let udc = "\(board.paths.configfs)/usb_gadget/\(board.paths.name)/UDC"
        try FileManager.default.removeItem(atPath: udc)
        #expect(mkfifo(udc, 0o600) == 0)
        let first = Task { await link.close() }
        for _ in 0..<500 where !board.closedByGadget(0) { try await Task.sleep(for: .milliseconds(10)) }  // it has begun
        await link.close()
        let release = await offThePool { () -> Int32 in
            let fd = open(udc, O_RDONLY)  // lets the first close() write its unbind
            var drained = [UInt8](repeating: 0, count: 16)
            while read(fd, &drained, drained.count) > 0 {}
            return close(fd)
        }
        #expect(release == 0)
        await first.value
        for endpoint in 0..<3 {
            #expect(await board.gadgetClosed(endpoint), "endpoint \(endpoint) is still open")
        }
    }

    @Test("a host that enumerates the phone but never sends the accessory requests: one line that says so")
    func hostWithoutAccessoryRequests() async throws {
        let board = GadgetStandIn()
        var options = board.options
        // Long enough that the ENABLE below is read before it ends, even with every suite
        // running at once (300 ms was not, on two loaded cores).
        options.waitForHost = .seconds(2)
        let link = USBGadgetTransport(options: options, endpoints: board)
        let opened = Task { try await link.open() }
        _ = await board.receive(0); _ = await board.receive(0)
        board.event(2)
        do {
            try await opened.value
            Issue.record("opened without a head unit")
        } catch {
            #expect("\(error)".contains("enumerated this board but never sent the Android accessory requests"), "\(error)")
            #expect("\(error)".contains("--usb-gadget-accessory"), "\(error)")
        }
        #expect(board.attribute("UDC") == "", "a failed open leaves the controller free")
    }

    @Test("what the board lacks, one line each with what to do", arguments: [
        (GadgetStandIn.Lack.udc, "no USB device controller", "dtoverlay=dwc2"),
        (.configfs, "configfs is not mounted", "mount -t configfs none"),
        (.libcomposite, "configfs has no usb_gadget", "modprobe libcomposite"),
        (.namedUDC, "no USB device controller musb-hdrc.0", "dummy_udc.0"),
    ])
    func boardLacks(lack: GadgetStandIn.Lack, cause: String, advice: String) async throws {
        let board = GadgetStandIn(udcs: lack == .udc ? [] : ["dummy_udc.0"], configfsHasGadgets: lack != .libcomposite && lack != .configfs)
        if lack == .libcomposite { _ = FileManager.default.createFile(atPath: board.paths.configfs + "/some-other-subsystem", contents: nil) }
        var options = board.options
        if lack == .namedUDC { options.udc = "musb-hdrc.0" }
        do {
            try await USBGadgetTransport(options: options, endpoints: board).open()
            Issue.record("opened on a board without \(lack)")
        } catch {
            #expect(error.description.contains(cause) && error.description.contains(advice), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }
}

extension GadgetStandIn {
    enum Lack: String, Sendable, CustomTestStringConvertible {
        case udc, configfs, libcomposite, namedUDC
        var testDescription: String { rawValue }
    }
}
