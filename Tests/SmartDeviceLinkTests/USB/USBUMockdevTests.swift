import Foundation
import SmartDeviceLink
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real USBTransport / AOASwitcher / libusb code against the fakes of
/// `Tests/USB/fake_usb.py` under umockdev. Run with `scripts/test-usb`.
/// Serialized: the fakes share one bus and the phone re-enumerates.
@Suite(.serialized, .enabled(if: UMockdevEnvironment.hasFakeDevices, "runs under Tests/USB/fake_usb.py (scripts/test-usb)"))
struct USBUMockdevTests {
    static let pixel = USBVendorProduct(0x18D1, 0x4EE1)
    static let tdk = USBVendorProduct(0x1D6B, 0x0104)

    // MARK: AOA (head-unit side), sdl_core's sequence

    @Test func aoaSwitchSendsCoresStringsAndUsesTheReenumeratedAccessory() async throws {
        let backend = try LibUSBBackend()
        let hotplug = try backend.hotplugEvents(enumerateExisting: false)
        let transport = try await AOASwitcher(backend: backend).connect(.ids([Self.pixel]))

        // The phone got GET_PROTOCOL, then core's six strings in index order, without NUL, then START.
        let phone = UMockdevEnvironment.records(device: "phone")
        #expect(phone.map { $0["event"] as? String } == ["get_protocol"] + Array(repeating: "string", count: 6) + ["start"])
        let strings = phone.filter { $0["event"] as? String == "string" }
        #expect(strings.map { $0["index"] as? Int } == [0, 1, 2, 3, 4, 5])
        #expect(strings.map { $0["value"] as? String } == [
            "SDL", "Core", "SmartDeviceLink Core Component USB", "1.0", "http://www.smartdevicelink.org", "N000000",
        ])
        #expect(strings.allSatisfy { !(($0["hex"] as? String) ?? "00").hasSuffix("00") })

        // The transport is on the re-enumerated accessory, 18d1:2d01 at bus 1 addr 6.
        #expect(transport.description == "USB 18d1:2d01 bus 1 addr 6")
        #expect(transport.device?.id == .androidAccessoryWithADB)

        // Hotplug saw the phone leave and the accessory arrive.
        var seen: [USBHotplugEvent] = []
        for await event in hotplug {
            seen.append(event)
            if case .arrived = event { break }
        }
        #expect(seen.contains(.left(USBDeviceDescription(bus: 1, address: 5, id: Self.pixel))))
        #expect(seen.contains(.arrived(USBDeviceDescription(bus: 1, address: 6, id: .androidAccessoryWithADB))))

        // First IN/OUT endpoints (interface 0, not ADB's): the accessory echoes there.
        try await transport.send(Array("hello phone".utf8))
        let echo = await readIncoming(transport, count: 11, within: .seconds(5))
        #expect(echo.bytes == Array("hello phone".utf8))
        await transport.close()
    }

    @Test func deviceThatStallsGetProtocolIsNotAOACapable() async {
        let error = await transportError { _ = try await AOASwitcher().connect(.ids([USBVendorProduct(0x046D, 0xC077)])) }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("046d:c077 bus 1 addr 3 is not AOA-capable"), "got: \(text)")
        #expect(text.contains("refused GET_PROTOCOL"))
    }

    @Test func deviceReportingProtocolZeroIsNotAOACapable() async {
        let error = await transportError { _ = try await AOASwitcher().connect(.busAddress(bus: 1, address: 4)) }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("0bb4:0c02 bus 1 addr 4 is not AOA-capable"), "got: \(text)")
        #expect(text.contains("returned version 0"))
    }

    @Test func getProtocolThatNeverCompletesTimesOutOnTime() async {
        var switcher = AOASwitcher()
        switcher.controlTimeout = .milliseconds(300)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await transportError { _ = try await switcher.connect(.serial("TDK-SILENT")) }
        let elapsed = clock.now - start
        guard case .timedOut(let operation, let seconds) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(operation.contains("GET_PROTOCOL"))
        #expect(seconds == 0.3)
        #expect(elapsed >= .milliseconds(250), "gave up after \(elapsed), before its timeout")
    }

    // MARK: TDK (app side)

    @Test func tdkTransportConfiguresDetachesClaimsTheVendorInterfaceAndEchoes() async throws {
        let transport = USBTransport(.serial("TDK-ECHO"))
        try await transport.open()
        #expect(transport.description == "USB 1d6b:0104 SDL TDK bus 1 addr 7")
        let seen = UMockdevEnvironment.records(device: "TDK-ECHO").map { ($0["event"] as? String ?? "") }
        #expect(seen == ["setconfig", "detach", "claim"], "fake saw \(seen)")
        #expect(UMockdevEnvironment.records(device: "TDK-ECHO").first { $0["event"] as? String == "claim" }?["interface"] as? Int == 1)

        // 40 KB through a device that accepts at most 4 KB per OUT transfer: every write is
        // short and the remainder is resubmitted, in order.
        let payload = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        try await transport.send(payload)
        let echo = await readIncoming(transport, count: payload.count, within: .seconds(10))
        #expect(echo.error == nil)
        #expect(echo.bytes == payload)

        // Consecutive sends arrive whole and in order.
        try await transport.send(Array("A".utf8))
        try await transport.send(Array("BC".utf8))
        #expect(await readIncoming(transport, count: 3, within: .seconds(5)).bytes == Array("ABC".utf8))

        await transport.close()
        #expect(UMockdevEnvironment.records(device: "TDK-ECHO").last?["event"] as? String == "release")
        let after = await readIncoming(transport, count: 1, within: .seconds(2))
        #expect(after.bytes.isEmpty && after.error == nil, "incoming finishes without error on close")
        #expect(await transportError { try await transport.send([1]) } == .closed("closed by the app"))
        await transport.close()   // twice is fine
    }

    @Test func aKernelThatTakesTransfersWholeGetsLargeOnesInOrder() async throws {
        // TDK-WHOLE's usbfs reports NO_PACKET_SIZE_LIM: libusb submits each transfer as one
        // URB, so the transport reads 64 KiB and writes 128 KiB a transfer, two in flight.
        let transport = USBTransport(.serial("TDK-WHOLE"))
        try await transport.open()
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try await transport.send(payload)
        try await transport.send(Array("after".utf8))
        let echo = await readIncoming(transport, count: payload.count + 5, within: .seconds(10))
        #expect(echo.error == nil)
        #expect(echo.bytes == payload + Array("after".utf8), "the bytes came back out of order or short")
        let records = UMockdevEnvironment.records(device: "TDK-WHOLE")
        let outs = records.filter { $0["event"] as? String == "out" }.compactMap { $0["length"] as? Int }
        #expect(outs.count >= 3 && outs.prefix(2) == [131_072, 131_072] && outs.reduce(0, +) == payload.count + 5, "OUT URBs: \(outs)")
        #expect(records.contains { $0["event"] as? String == "in" && $0["length"] as? Int == 65_536 })
        await transport.close()
    }

    @Test func claimedElsewhereIsBusy() async {
        let transport = USBTransport(.serial("TDK-BUSY"))
        let error = await transportError { try await transport.open() }
        #expect(error == .busy(device: "USB 1d6b:0104 SDL TDK bus 1 addr 8"))
        #expect(error.map(String.init(describing:))?.contains("is busy: another program or kernel driver holds it") == true)
    }

    @Test func nodeWithoutPermissionPointsAtTheUdevRules() async {
        // The harness made /dev/bus/usb/001/009 mode 000 and dropped CAP_DAC_OVERRIDE:
        // the kernel answers EACCES to libusb_open, as for a user without udev rules.
        let transport = USBTransport(.busAddress(bus: 1, address: 9))
        let error = await transportError { try await transport.open() }
        guard case .permissionDenied(let path, let hint) = error else {
            Issue.record("expected permissionDenied, got \(String(describing: error))")
            return
        }
        #expect(path == "/dev/bus/usb/001/009")
        #expect(hint.contains("udev/60-smartdevicelink.rules"))
        #expect(hint.contains("scripts/install-udev-rules"))
    }

    @Test func sendToADeviceThatNeverReadsTimesOutAndCloseIsPrompt() async throws {
        var options = USBTransport.Options()
        options.sendTimeout = .milliseconds(300)
        let transport = USBTransport(.serial("TDK-SILENT"), options: options)
        try await transport.open()
        let error = await transportError { try await transport.send(Array("anyone?".utf8)) }
        guard case .timedOut(let operation, let seconds) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(operation.contains("bulk OUT") && operation.contains("0 of 7 bytes"))
        #expect(seconds == 0.3)
        // The IN transfers never complete by themselves: close cancels them.
        await transport.close()
        let after = await readIncoming(transport, count: 1, within: .seconds(1))
        #expect(after.error == nil)
    }

    @Test func unplugMidTransferClosesTheTransportPromptly() async throws {
        let transport = USBTransport(.serial("TDK-UNPLUG"))
        try await transport.open()
        let reader = Task { await readIncoming(transport, count: 1, within: .seconds(5)) }
        try await transport.send(Array("UNPLUG".utf8))   // the fake leaves 0.3 s later, IN pending
        let result = await reader.value
        #expect(result.error as? TransportError == .closed("device unplugged"), "got \(String(describing: result.error))")
        #expect(await transportError { try await transport.send([1]) } == .closed("device unplugged"))
        await transport.close()
    }

    @Test func openWaitsForADevicePluggedInLater() async throws {
        var options = USBTransport.Options()
        options.waitForDevice = .seconds(20)
        let transport = USBTransport(.serial("TDK-LATE"), options: options)
        let opening = Task { try await transport.open() }
        // Not there yet: the open is waiting on hotplug, not failing.
        try await Task.sleep(for: .milliseconds(300))
        #expect(transport.device == nil)
        try UMockdevEnvironment.plugLateTDK(at: 13)
        try await opening.value
        #expect(transport.description == "USB 1d6b:0104 SDL TDK bus 1 addr 13")
        try await transport.send(Array("late hello".utf8))
        #expect(await readIncoming(transport, count: 10, within: .seconds(5)).bytes == Array("late hello".utf8))
        await transport.close()
    }

    @Test func waitingForADeviceGivesUpSayingWhatIsThere() async {
        var options = USBTransport.Options()
        options.waitForDevice = .milliseconds(300)
        let transport = USBTransport(.serial("NOBODY"), options: options)
        await #expect {
            try await transport.open()
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("waiting for a USB device matching serial NOBODY (found: ") && text.contains("SDL TDK bus 1 addr 7")
                && text.hasSuffix("timed out after 0.3 s")
        }
    }

    @Test func noMatchingDeviceListsWhatIsThere() async {
        let transport = USBTransport(.ids([USBVendorProduct(0xDEAD, 0xBEEF)]))
        let error = await transportError { try await transport.open() }
        guard case .noDevice(let wanted, let found) = error else {
            Issue.record("expected noDevice, got \(String(describing: error))")
            return
        }
        #expect(wanted == "dead:beef")
        #expect(found.contains("046d:c077 Mouse bus 1 addr 3"))
        #expect(found.contains("1d6b:0104 SDL TDK bus 1 addr 7"))
        #expect(found.contains("1d6b:0104 bus 1 addr 9"), "the unreadable device is listed without strings")
        #expect(!String(describing: error!).contains("\n"))
    }

    @Test func hotplugEnumeratesDevicesAlreadyPresent() async throws {
        let backend = try LibUSBBackend()
        var arrivals: [USBDeviceDescription] = []
        for await event in try backend.hotplugEvents(enumerateExisting: true) {
            if case .arrived(let device) = event { arrivals.append(device) }
            if arrivals.contains(where: { $0.address == 12 }) { break }
        }
        #expect(arrivals.contains(USBDeviceDescription(bus: 1, address: 7, id: Self.tdk)))
        #expect(arrivals.contains(USBDeviceDescription(bus: 1, address: 3, id: USBVendorProduct(0x046D, 0xC077))))
    }

    @Test(.enabled(if: UMockdevEnvironment.bridge != nil, "needs fake_usb.py --bridge HOST:PORT"))
    func tdkBridgesBulkDataToTCP() async throws {
        let bridge = try #require(UMockdevEnvironment.bridge)
        let server = try TCPTestServer(port: bridge.port)
        let transport = USBTransport(.serial("TDK-BRIDGE"))
        try await transport.open()
        try await transport.send(Array("ping over USB".utf8))
        let peer = try await server.accept()
        #expect(try await peer.read(13) == Array("ping over USB".utf8))
        try peer.write(Array("pong over TCP".utf8))
        #expect(await readIncoming(transport, count: 13, within: .seconds(5)).bytes == Array("pong over TCP".utf8))
        await transport.close()
    }
}

/// A one-connection TCP listener on 127.0.0.1 for the bridge test (blocking calls run
/// on a detached task; this is test code).
final class TCPTestServer: Sendable {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { _ = Glibc.close(fd) }

    func accept() async throws -> Peer {
        let fd = self.fd
        return try await Task.detached {
            let c = Glibc.accept(fd, nil, nil)
            guard c >= 0 else { throw POSIXError(.EIO) }
            return Peer(fd: c)
        }.value
    }

    final class Peer: Sendable {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { _ = Glibc.close(fd) }

        func read(_ count: Int) async throws -> [UInt8] {
            let fd = self.fd
            return try await Task.detached {
                var out: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while out.count < count {
                    let n = Glibc.read(fd, &buffer, buffer.count)
                    guard n > 0 else { throw POSIXError(.EIO) }
                    out += buffer[0..<n]
                }
                return out
            }.value
        }

        func write(_ bytes: [UInt8]) throws {
            guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
        }
    }
}
