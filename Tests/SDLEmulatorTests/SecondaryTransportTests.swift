@testable import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// RegisterSecondaryTransport against the emulator with hand-written frames, and core's
/// NAK reasons.
@Suite("Secondary transport registration")
struct SecondaryTransportTests {
    typealias RawLink = ProtocolTests.RawLink

    /// Starts an RPC session on a new link (hand-written v5 StartService); returns the link.
    func primary(_ headUnit: HeadUnitEmulator) async throws -> RawLink {
        var link = await RawLink(headUnit)
        try await link.send([0x50, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x01] + ProtocolTests.versionBSON)
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.frameInfo == 0x02 && ack.header.sessionID == 1)
        return link
    }

    /// Sends RegisterSecondaryTransport for `session` on `link`; nil for an ACK, else the NAK's reason.
    func register(_ session: UInt8, on link: inout RawLink) async throws -> String?? {
        try await link.send([0x50, 0x00, 0x07, session, 0, 0, 0, 0, 0, 0, 0, 1])
        while let frame = try await link.nextFrame() {
            guard frame.header.serviceType == .control else { continue }
            if frame.header.frameInfo == 0x08 { return .some(nil) }
            if frame.header.frameInfo == 0x09 { return .some(ControlPayload(bytes: frame.payload)?.reason) }
        }
        return nil
    }

    @Test("with secondary transports off, core's \"already registered\" NAK; session 0 and unknown sessions get their own")
    func disabled() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await primary(headUnit)
        var second = await RawLink(headUnit)
        #expect(try await register(1, on: &second) == .some("RegisterSecondaryTransport session ID has already been registered"))
        var third = await RawLink(headUnit)
        #expect(try await register(0, on: &third) == .some("RegisterSecondaryTransport MUST include a non-zero session ID"))
        var fourth = await RawLink(headUnit)
        #expect(try await register(9, on: &fourth) == .some("RegisterSecondaryTransport session ID not found"))
        _ = first
        await headUnit.stop()
    }

    @Test("one secondary per session; when it drops, the session may register another")
    func onePerSession() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.multipleTransports.enabled = true; $0.multipleTransports.forUSB = ["WiFi"] })
        let first = try await primary(headUnit)
        var second = await RawLink(headUnit)
        #expect(try await register(1, on: &second) == .some(nil))
        var third = await RawLink(headUnit)
        #expect(try await register(1, on: &third) == .some("RegisterSecondaryTransport session ID has already been registered"))
        await second.transport.close()
        var registered = false
        for _ in 0..<200 where !registered {
            var next = await RawLink(headUnit)
            registered = try await register(1, on: &next) == .some(nil)
            if !registered { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(registered, "the dropped secondary freed the session")
        _ = first
        await headUnit.stop()
    }

    /// Sends StartService(`service`) for `session` on `link` and returns the answer: nil for
    /// an ACK, else the NAK's reason.
    func startService(_ service: UInt8, session: UInt8, on link: inout RawLink) async throws -> String?? {
        try await link.send([0x50, service, 0x01, session, 0, 0, 0, 0, 0, 0, 0, 2])
        while let frame = try await link.nextFrame() {
            guard frame.header.serviceType.rawValue == service else { continue }
            if frame.header.frameInfo == 0x02 { return .some(nil) }
            if frame.header.frameInfo == 0x03 { return .some(ControlPayload(bytes: frame.payload)?.reason) }
        }
        return nil
    }

    @Test("video on a registered secondary is ACKed and runs there; [ServicesMap] and a second start get core's NAK reasons")
    func servicesOnTheSecondary() async throws {
        let recordings = try TestFolder("secondary-recordings")
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration {
            $0.recordingDirectory = recordings.path
            $0.multipleTransports.enabled = true
            $0.multipleTransports.forUSB = ["WiFi"]
            $0.multipleTransports.videoServiceTransports = ["TCP_WIFI", "AOA_USB"]
            $0.multipleTransports.audioServiceTransports = ["TCP_WIFI"]
        })
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register(appID: "nav-1", extra: ["appHMIType": ["NAVIGATION"]])
        try await headUnit.activateApp("nav-1")  // core streams only for navigation apps in FULL or LIMITED
        let ack = try #require(await app.connection.session?.ackPayload)
        // A memory link stands for USB: WiFi is offered beside it, video prefers TCP, audio is TCP only.
        #expect(ack.secondaryTransports == ["TCP_WIFI"] && ack.videoServiceTransports == [2, 1] && ack.audioServiceTransports == [2])
        var secondary = await RawLink(headUnit)
        #expect(try await register(1, on: &secondary) == .some(nil))
        #expect(try await startService(0x0B, session: 1, on: &secondary) == .some(nil), "video on the secondary (was NAKed with an empty payload)")
        #expect(await headUnit.snapshot().app("nav-1")?.streams["video"]?.runningOn == "secondary")
        // Audio is allowed on TCP_WIFI only, and this link is AOA_USB to the head unit.
        #expect(try await startService(0x0A, session: 1, on: &secondary) == .some("Service type: 10 disallowed by settings."))
        // One video per session across its links (core's AddNewService): the primary is refused.
        await #expect { _ = try await app.connection.startService(.video) } throws: { error in
            "\(error)" == "the head unit refused the session: Cannot start an unprotected service of type 11. "
        }
        // The secondary cut, its video ends and the primary may start one.
        let events = await headUnit.events()
        await secondary.transport.close()
        var ended = false
        for await event in events {
            if case .streamEnded(_, 1, "video", _) = event { ended = true; break }
        }
        #expect(ended)
        _ = try await app.connection.startService(.video)
        #expect(await headUnit.snapshot().app("nav-1")?.streams["video"]?.runningOn == "primary")
        await headUnit.stop()
    }

    @Test("core's ini mapping: secondaryTransports and service lists by the primary's kind")
    func iniMapping() {
        var transports = MultipleTransports()
        transports.videoServiceTransports = ["TCP_WIFI"]
        // Off: empty secondaries, and a list that names only TCP leaves a USB primary nothing (as core).
        #expect(transports.secondaryTransports(forPrimary: .usb) == [])
        #expect(transports.serviceTransports([], forPrimary: .usb) == [1])
        #expect(transports.serviceTransports(transports.videoServiceTransports, forPrimary: .usb) == [])
        transports.enabled = true
        transports.forUSB = ["WiFi"]
        transports.forWiFi = ["USB", "Bluetooth"]
        transports.forBluetooth = ["WiFi", "USB"]
        #expect(transports.secondaryTransports(forPrimary: .usb) == ["TCP_WIFI"])
        #expect(transports.secondaryTransports(forPrimary: .bluetooth) == ["TCP_WIFI", "AOA_USB"])
        // A TCP primary counts as iOS and Android: both names of each category.
        #expect(transports.secondaryTransports(forPrimary: .tcp) == ["IAP_USB", "AOA_USB", "IAP_BLUETOOTH", "SPP_BLUETOOTH"])
        #expect(transports.serviceTransports([], forPrimary: .usb) == [1, 2])
        #expect(transports.serviceTransports(["TCP_WIFI", "AOA_USB"], forPrimary: .usb) == [2, 1])
        #expect(transports.serviceTransports(["AOA_USB", "TCP_WIFI"], forPrimary: .usb) == [1, 2])
        #expect(transports.serviceTransports(["TCP_WIFI"], forPrimary: .tcp) == [1])
        #expect(transports.allows(.video, on: .tcp) && !transports.allows(.video, on: .usb) && transports.allows(.audio, on: .usb))
    }

    @Test("the JSON form reads core's keys and names a typo's path")
    func jsonConfiguration() throws {
        let configuration = try EmulatorConfiguration(json: ["secondaryTransport": ["videoServiceTransports": ["TCP_WIFI", "AOA_USB"]]])
        #expect(configuration.multipleTransports.enabled && configuration.multipleTransports.forUSB == ["WiFi"])
        #expect(throws: EmulatorConfigurationError.self) {
            try EmulatorConfiguration(json: ["secondaryTransport": ["forUSB": ["Wifi6"]]])
        }
        do {
            _ = try EmulatorConfiguration(json: ["secondaryTransport": ["videoServiceTransport": ["TCP_WIFI"]]])
            Issue.record("a misspelt key was accepted")
        } catch {
            #expect("\(error)".contains("$.secondaryTransport.videoServiceTransport") && "\(error)".contains("videoServiceTransports"))
        }
    }
}
