import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Primary/secondary switching end to end: an in-memory primary (a USB cable to the
/// emulator) and a real TCP secondary to the emulator's listener.
@Suite("Secondary transport: registration, service moves and fallback", .serialized)
struct SecondaryTransportSwitchTests {
    /// Where the head unit records the streams: the test's own folder.
    let recordings: TestFolder
    init() throws { recordings = try TestFolder("secondary-recordings") }

    /// A head unit with core's [MultipleTransports] on: WiFi beside USB, video and audio
    /// preferred on TCP_WIFI, then on the USB primary (ACK lists [2, 1]).
    func headUnit(video: [String] = ["TCP_WIFI", "AOA_USB"], listening: Bool = true) async throws -> HeadUnitEmulator {
        var configuration = EmulatorConfiguration.standard
        configuration.multipleTransports.enabled = true
        configuration.multipleTransports.forUSB = ["WiFi"]
        configuration.multipleTransports.videoServiceTransports = video
        configuration.multipleTransports.audioServiceTransports = ["TCP_WIFI", "AOA_USB"]
        configuration.recordingDirectory = recordings.path
        let emulator = HeadUnitEmulator(configuration: configuration)
        if listening { _ = try await emulator.listen(port: 0) }
        return emulator
    }

    func manager(_ emulator: HeadUnitEmulator, appID: String,
                 change: (inout SDLConfiguration) -> Void = { _ in }) -> SDLManager {
        SDLManager(configuration: configuration(emulator, name: "Nav \(appID)", appID: appID) {
            $0.appTypes = [.navigation]
            $0.secondaryRetryDelay = .milliseconds(50)
            change(&$0)
        })
    }

    /// Waits until the head unit has counted `bytes` of video on `link` ("primary"/"secondary").
    func videoBytes(_ emulator: HeadUnitEmulator, appID: String, on link: String, reach bytes: Int) async -> Bool {
        await emulator.waitUntil { snapshot in
            let stream = snapshot.app(appID)?.streams["video"]
            return (link == "primary" ? stream?.bytesOnPrimary : stream?.bytesOnSecondary) ?? 0 >= bytes
        }
    }

    static func names(_ events: [TransportEvent]) -> [String] { events.map(\.name) }

    @Test("the secondary registers, video runs on it, falls back to the primary when it is cut, and returns on retry")
    func switchAndFallback() async throws {
        let emulator = try await headUnit()
        // The retry waits on this clock: the fallback is observed before the secondary returns.
        let clock = ManualClock()
        let manager = manager(emulator, appID: "secondary-1") {
            $0.secondaryRetryDelay = .seconds(5)
            $0.clock = LinkClock(clock)
        }
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        try await emulator.activateApp("secondary-1")  // core streams only in FULL or LIMITED
        #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRegistered" } })
        #expect(Self.names(await events.values) == ["primaryConnected", "secondaryOffered", "secondaryRegistered"])
        if case .secondaryOffered(.tcp(let host, let port)) = await events.values[1] {
            #expect(host == "127.0.0.1" && port > 0)
        } else {
            Issue.record("the offer is not the emulator's TCP endpoint: \(await events.values)")
        }

        let ack = try await manager.startService(.video, payload: ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264"))
        #expect(ack?.videoCodec == "H264", "the ACK answers the video parameters")
        try await manager.sendServiceData([UInt8](repeating: 0xAB, count: 4000), on: .video)
        #expect(await videoBytes(emulator, appID: "secondary-1", on: "secondary", reach: 4000))
        #expect(await emulator.snapshot().app("secondary-1")?.streams["video"]?.runningOn == "secondary")

        #expect(await emulator.cutSecondaryTransport(appID: "secondary-1") == 1)
        #expect(await events.waitUntil { $0.contains(.serviceMoved(.video, to: .primary)) })
        #expect(await events.values.contains { $0.name == "secondaryLost" })
        // The app keeps streaming through the fallback; the head unit sees it on the primary.
        try await manager.sendServiceData([UInt8](repeating: 0xCD, count: 3000), on: .video)
        #expect(await videoBytes(emulator, appID: "secondary-1", on: "primary", reach: 3000))

        // sdl_ios's retry, 5 s later: the secondary comes back and video moves to it again.
        #expect(Self.names(await events.values).filter { $0 == "secondaryRegistered" }.count == 1, "no retry before its time")
        // The retry's sleep may start only now on a loaded machine: time moves in 5 s steps
        // until it has run (nothing else waits on this clock meanwhile).
        var returned = false
        for _ in 0..<10 where !returned {
            clock.advance(by: .seconds(5))
            returned = await events.waitUntil(timeout: .milliseconds(500)) { $0.filter { $0 == .serviceMoved(.video, to: .secondary) }.count == 1 }
        }
        #expect(returned)
        #expect(Self.names(await events.values).filter { $0 == "secondaryRegistered" }.count == 2)
        #expect(await emulator.snapshot().app("secondary-1")?.streams["video"]?.runningOn == "secondary")
        #expect(await manager.state == .ready, "the RPC session never noticed")
        await manager.stop()
        task.cancel()
    }

    @Test("video started before the head unit offers TCP moves to the secondary once registered; a withdrawal brings it back")
    func moveOnOfferAndWithdrawal() async throws {
        let emulator = try await headUnit(listening: false)
        let manager = manager(emulator, appID: "secondary-2")
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        try await emulator.activateApp("secondary-2")  // core streams only in FULL or LIMITED
        try await manager.startService(.video)
        #expect(await emulator.snapshot().app("secondary-2")?.streams["video"]?.runningOn == "primary")

        let endpoint = try await emulator.offerSecondaryTransport()
        #expect(endpoint.hasPrefix("127.0.0.1:"))
        #expect(await events.waitUntil { $0.contains(.serviceMoved(.video, to: .secondary)) })
        #expect(await emulator.snapshot().app("secondary-2")?.streams["video"]?.runningOn == "secondary")

        await emulator.withdrawSecondaryTransport()
        // Video is moved back first, then the link is closed.
        let fellBack = await events.waitUntil { $0.contains(.serviceMoved(.video, to: .primary)) && $0.contains { $0.name == "secondaryLost" } }
        let seen = await events.values
        #expect(fellBack, "events: \(seen)")
        let names = Self.names(await events.values)
        #expect(names.contains("secondaryWithdrawn") && names.contains("secondaryLost"))
        // Withdrawn, nothing to retry: no third registration follows.
        #expect(names.filter { $0 == "secondaryRegistered" }.count == 1)
        await manager.stop()
        task.cancel()
    }

    @Test("a NAK is reported with the head unit's reason, and video stays on the primary")
    func refusedRegistration() async throws {
        let emulator = try await headUnit()
        // The secondary reaches a head unit that has never seen the session: core's NAK.
        let stranger = HeadUnitEmulator()
        let manager = manager(emulator, appID: "secondary-3") { configuration in
            configuration.makeSecondaryTransport = { _ in
                let (app, headUnit) = MemoryTransport.pair()
                Task { await stranger.serve(headUnit) }
                return app
            }
        }
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        try await emulator.activateApp("secondary-3")  // core streams only in FULL or LIMITED
        #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRejected" } })
        #expect(await events.values.contains(.secondaryRejected("RegisterSecondaryTransport session ID not found")))
        try await manager.startService(.video)
        #expect(await emulator.snapshot().app("secondary-3")?.streams["video"]?.runningOn == "primary")
        await manager.stop()
        task.cancel()
    }

    @Test("video allowed only on the secondary: refused before it registers, stopped when it drops, with the reason")
    func secondaryOnlyService() async throws {
        let emulator = try await headUnit(video: ["TCP_WIFI"], listening: false)
        let manager = manager(emulator, appID: "secondary-4") { $0.secondaryRetryDelay = nil }
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        try await emulator.activateApp("secondary-4")  // core streams only in FULL or LIMITED
        await #expect { try await manager.startService(.video) } throws: { error in
            "\(error)".contains("only on the secondary transport")
        }
        try await emulator.offerSecondaryTransport()
        #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRegistered" } })
        try await manager.startService(.video)
        #expect(await emulator.snapshot().app("secondary-4")?.streams["video"]?.runningOn == "secondary")
        await emulator.cutSecondaryTransport()
        #expect(await events.waitUntil { $0.contains { $0.name == "serviceStopped" } })
        await #expect { try await manager.sendServiceData([1, 2, 3], on: .video) } throws: { error in
            "\(error)".contains("video stopped: the secondary transport dropped")
        }
        await manager.stop()
        task.cancel()
    }

    @Test("the primary dropped: the manager reconnects and registers both links again")
    func primaryLost() async throws {
        let emulator = try await headUnit()
        let manager = manager(emulator, appID: "secondary-5")
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRegistered" } })
        #expect(await emulator.snapshot().connections == 2)
        try await emulator.dropTransport(appID: "secondary-5")
        #expect(await events.waitUntil { Self.names($0).filter { $0 == "secondaryRegistered" }.count == 2 })
        let names = Self.names(await events.values)
        let lost = try #require(names.firstIndex(of: "primaryLost"))
        #expect(Array(names[..<3]) == ["primaryConnected", "secondaryOffered", "secondaryRegistered"])
        // The head unit closes both links; which close the app reads first is up to the OS.
        #expect(names[3..<lost].allSatisfy { $0 == "secondaryLost" } && lost <= 4)
        #expect(Array(names[(lost + 1)...]) == ["primaryConnected", "secondaryOffered", "secondaryRegistered"])
        // The old secondary went with its primary: one pair of links, not two.
        #expect(await emulator.snapshot().connections == 2)
        await manager.stop()
        task.cancel()
    }

    @Test("beside a Bluetooth primary the head unit may offer USB (AOA_USB): with --secondary usb it is opened and registered")
    func usbBesideBluetooth() async throws {
        var configuration = EmulatorConfiguration.standard
        configuration.multipleTransports.enabled = true
        configuration.multipleTransports.forBluetooth = ["USB"]
        configuration.recordingDirectory = recordings.path
        let emulator = HeadUnitEmulator(configuration: configuration)
        let opened = Locked<[SecondaryEndpoint]>([])
        var settings = SDLConfiguration(
            appName: "BT App", appID: "secondary-6",
            transports: [TransportChoice("Bluetooth (in memory)") {
                let (app, headUnit) = MemoryTransport.pair()
                Task { await emulator.serve(headUnit, as: .bluetooth) }
                return app
            }])
        settings.secondaryTransports = [.usb]
        settings.lockScreen.fetchIcon = false
        // The USB link the library would open with libusb, here an in-memory cable.
        settings.makeSecondaryTransport = { endpoint in
            opened.withLock { $0.append(endpoint) }
            let (app, headUnit) = MemoryTransport.pair()
            Task { await emulator.serve(headUnit, as: .usb) }
            return app
        }
        let manager = SDLManager(configuration: settings)
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRegistered" } })
        #expect(await events.values.contains(.secondaryOffered(.usb)))
        #expect(opened.withLock { $0 } == [.usb])
        #expect(await manager.session?.ackPayload?.secondaryTransports == ["AOA_USB"])
        await manager.stop()
        task.cancel()
    }
}
