@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// Hand-written frames (not our encoder) against the emulator's head-unit protocol side.
@Suite("Protocol acceptance")
struct ProtocolTests {
    /// BSON {protocolVersion: "5.4.1"}, 32 bytes (PROTOCOL.md Appendix A1).
    static let versionBSON: [UInt8] = [
        0x20, 0x00, 0x00, 0x00, 0x02, 0x70, 0x72, 0x6F, 0x74, 0x6F, 0x63, 0x6F, 0x6C, 0x56, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E,
        0x00, 0x06, 0x00, 0x00, 0x00, 0x35, 0x2E, 0x34, 0x2E, 0x31, 0x00, 0x00,
    ]

    /// Reads frames from the app end of a link.
    struct RawLink {
        let transport: MemoryTransport
        var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        var decoder = FrameDecoder(maximumPayloadSize: 1 << 20)
        var frames: [Frame] = []

        init(_ headUnit: HeadUnitEmulator) async {
            transport = await headUnit.connectInMemory()
            iterator = transport.incoming.makeAsyncIterator()
        }

        mutating func send(_ bytes: [UInt8]) async throws { try await transport.send(bytes) }

        /// The next frame, or nil when the link closed.
        mutating func nextFrame() async throws -> Frame? {
            while frames.isEmpty {
                guard let chunk = try await iterator.next() else { return nil }
                for case .frame(let frame) in decoder.decode(chunk) { frames.append(frame) }
            }
            return frames.removeFirst()
        }
    }

    @Test("Java-style StartService: v1 header with BSON protocolVersion is ACKed on a v5 header with 5.4.0 (core ProtocolHandlerImpl)")
    func javaStyleV1HeaderWithBSON() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20] + Self.versionBSON)
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.version == 5)
        #expect(ack.header.frameInfo == 0x02)
        #expect(ack.header.serviceType == .rpc)
        #expect(ack.header.sessionID == 1)
        #expect(ack.header.messageID == 0)  // core's first ACK of a session carries message id 0
        let payload = try #require(ControlPayload(bytes: ack.payload))
        #expect(payload.protocolVersion == "5.4.0")
        #expect(payload.hashID == Int32(1 | 1 << 16))  // connection | session << 16, core's KeyFromPair
        #expect(payload.mtu == 131_072)
        await headUnit.stop()
    }

    @Test("StartService(RPC) again with E=1: NAKed in core's words for a core built without security (\"Cannot start an unprotected service of type 7. \")")
    func protectedRPCWithoutSecurity() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x50, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x01] + Self.versionBSON)
        let ack = try #require(try await link.nextFrame())
        // The same StartService in the session, E=1 (0x08 in the first byte).
        try await link.send([0x58, 0x07, 0x01, ack.header.sessionID, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02])
        let nak = try #require(try await link.nextFrame())
        #expect(nak.header.frameInfo == 0x03 && !nak.header.isEncrypted)
        #expect(ControlPayload(bytes: nak.payload)?.reason == "Cannot start an unprotected service of type 7. ")
        await headUnit.stop()
    }

    @Test("JS-style StartService: v5 header with BSON is ACKed with protocolVersion 5.4.0 (core)")
    func jsStyleV5Header() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x50, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x01] + Self.versionBSON)
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.version == 5)
        #expect(ack.header.frameInfo == 0x02)
        #expect(ControlPayload(bytes: ack.payload)?.protocolVersion == "5.4.0")
        await headUnit.stop()
    }

    @Test("Legacy empty v1 StartService: ACK capped at v4 with a raw 4-byte big-endian hash id (core, PS §4.1)")
    func legacyV1StartService() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.version == 4)
        #expect(ack.header.frameInfo == 0x02)
        #expect(ack.payload == [0x00, 0x01, 0x00, 0x01])
        await headUnit.stop()
    }

    @Test("StartService with protocolVersion below 5 in BSON is NAKed with rejectedParams (core ParseFullVersion)")
    func badVersionIsNAKed() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        var bson = Self.versionBSON
        bson[25] = 0x34  // "4.4.1"
        try await link.send([0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20] + bson)
        let nak = try #require(try await link.nextFrame())
        #expect(nak.header.frameInfo == 0x03)
        #expect(ControlPayload(bytes: nak.payload)?.rejectedParams == ["protocolVersion"])
        await headUnit.stop()
    }

    /// Measured on core 8.2 with raw frames: with no payload the NAK's BSON is empty; with
    /// protocolVersion 5.4.0 it says why.
    @Test("StartService(RPC) for a session that does not exist: the reason only when the frame announced 5.3 or later, as core")
    func unknownSessionReason() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x50, 0x07, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])
        let bare = try #require(try await link.nextFrame())
        #expect(bare.header.frameInfo == 0x03 && bare.payload == [0x05, 0x00, 0x00, 0x00, 0x00])
        try await link.send([0x50, 0x07, 0x01, 0x05, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x02] + Self.versionBSON)
        let announced = try #require(try await link.nextFrame())
        #expect(announced.header.frameInfo == 0x03)
        #expect(ControlPayload(bytes: announced.payload)?.reason == "Cannot start an unprotected service of type 7. Session 5 not found for connection 1")
        await headUnit.stop()
    }

    @Test("Session ids: lowest free 1…255 across all connections, several apps per connection (core findGap)")
    func sessionIDsAreGlobal() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let start: [UInt8] = [0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20] + Self.versionBSON
        var first = await RawLink(headUnit)
        try await first.send(start)
        try await first.send(start)
        #expect(try await first.nextFrame()?.header.sessionID == 1)
        #expect(try await first.nextFrame()?.header.sessionID == 2)
        var second = await RawLink(headUnit)
        try await second.send(start)
        #expect(try await second.nextFrame()?.header.sessionID == 3)
        await first.transport.close()
        // Once the first link's sessions are gone, id 1 is free again.
        var third = await RawLink(headUnit)
        var id: UInt8 = 0
        for _ in 0..<50 {
            try await third.send(start)
            id = try #require(try await third.nextFrame()?.header.sessionID)
            if id == 1 { break }
        }
        #expect(id == 1)
        await headUnit.stop()
    }

    @Test("Heartbeat is answered with HeartbeatACK echoing session and message id (core SendHeartBeatAck)")
    func heartbeatAck() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send([0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20] + Self.versionBSON)
        _ = try await link.nextFrame()
        try await link.send([0x50, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07])
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.encoded == [0x50, 0x00, 0xFF, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07])
        await headUnit.stop()
    }

    /// One malformed run (two bytes of garbage) followed by a valid heartbeat that ends the run.
    static let malformedRun: [UInt8] = [0xFF, 0xFF, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]

    @Test("Ten malformed runs within a second keep the connection (core MalformedFrequencyCount = 10)")
    func tenMalformedRunsAreTolerated() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var link = await RawLink(headUnit)
        try await link.send(Array([[UInt8]](repeating: Self.malformedRun, count: 10).joined()))
        for _ in 0..<10 {
            let frame = try #require(try await link.nextFrame())
            #expect(frame.header.frameInfo == 0xFF)  // each heartbeat still answered
        }
        try await link.send([0x10, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20] + Self.versionBSON)
        #expect(try await link.nextFrame()?.header.frameInfo == 0x02)
        await headUnit.stop()
    }

    @Test("More than ten malformed runs within a second close the connection (core MalformedFrequencyTime = 1000 ms)")
    func elevenMalformedRunsClose() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let events = await headUnit.events()
        var link = await RawLink(headUnit)
        try await link.send(Array([[UInt8]](repeating: Self.malformedRun, count: 11).joined()))
        var closed = false
        for await event in events {
            if case .connectionClosed(_, let reason) = event {
                #expect(reason.contains("malformed"))
                closed = true
                break
            }
        }
        #expect(closed)
        // The app end sees the link finish.
        while try await link.nextFrame() != nil {}
        await headUnit.stop()
    }

    @Test("More than 1000 messages within a second: OnAppInterfaceUnregistered(TOO_MANY_REQUESTS), session closed (core FrequencyCount)")
    func floodLimit() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        // The registration counts too, so the session may end before the last notification
        // goes out: on a loaded machine the head unit keeps up with the sender and does.
        var sent = 0
        do {
            for _ in 0..<1001 {
                try await app.connection.notify(functionID: RPCRegistry.functionID(forName: "OnHMIStatus")!, parameters: [:])
                sent += 1
            }
        } catch {
            #expect(sent >= 1000, "the session ended after \(sent) notifications: \(error)")
        }
        let notice = try await app.next("OnAppInterfaceUnregistered")
        #expect(notice["reason"] == "TOO_MANY_REQUESTS")
        #expect(await headUnit.snapshot().apps.isEmpty)
        await headUnit.stop()
    }

    @Test("the flood window counts only the last window's messages, across its compaction")
    func slidingWindow() {
        var window = SlidingWindow()
        let start = ContinuousClock.now
        let second = Duration.seconds(1)
        // 500 messages 10 ms apart: never more than 101 within any second (both ends included).
        let counts = (0..<500).map { window.record(start + .milliseconds(10 * $0), within: second) }
        #expect(counts.prefix(101) == ArraySlice(1...101))
        #expect(counts.dropFirst(101).allSatisfy { $0 == 101 })
        // After a quiet spell, only the new message counts.
        #expect(window.record(start + .seconds(60), within: second) == 1)
    }

    @Test("an app that settles on protocol 2 never gets a frame above the v2 limit of 1,488 payload bytes, even for an 8 KB RegisterAppInterface response (core-checked)")
    func version2FrameSize() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        var configuration = SDLConnection.Configuration(protocolConfiguration: ProtocolConfiguration(maximumVersion: ProtocolVersion(2)))
        configuration.startTimeout = .seconds(30)
        let connection = SDLConnection(transport: await headUnit.connectInMemory(), configuration: configuration)
        let received = Locked<[FrameHeader]>([])
        await connection.observeFrames { event in
            if event.direction == .received { received.withLock { $0.append(event.frame.header) } }
        }
        let session = try await connection.start()
        #expect(session.version.major == 2)
        let response = try await connection.request(
            functionID: RegisterAppInterface.functionID, functionName: "RegisterAppInterface", parameters: TestApp.registration(name: "Old App", appID: "v2-app"), timeout: nil)
        #expect(response.success == true)
        let headers = received.withLock { $0 }
        #expect(headers.contains { $0.frameType == .first }, "the response took more than one frame")
        #expect(headers.filter { $0.frameType != .control }.allSatisfy { $0.version == 2 })
        #expect(headers.allSatisfy { $0.dataSize <= 1488 }, "largest frame: \(headers.map(\.dataSize).max() ?? 0) bytes")
        await connection.stop()
        await headUnit.stop()
    }

    @Test("notifications carry 0xFFFFFFFF in the RPC header's correlation id, as core 8.2 writes it")
    func notificationCorrelationID() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let connection = SDLConnection(transport: await headUnit.connectInMemory())
        let payloads = Locked<[[UInt8]]>([])
        await connection.observeFrames { event in
            if event.direction == .received, event.frame.header.serviceType == .rpc, event.frame.header.frameType == .single {
                payloads.withLock { $0.append(event.frame.payload) }
            }
        }
        _ = try await connection.start()
        _ = try await connection.request(functionID: RegisterAppInterface.functionID, functionName: "RegisterAppInterface",
                                         parameters: TestApp.registration(name: "Corr App", appID: "corr-1"), timeout: nil)
        func notifications() -> [[UInt8]] { payloads.withLock { $0 }.filter { $0.count >= 12 && $0[0] >> 4 == 2 } }
        for _ in 0..<200 where notifications().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!notifications().isEmpty, "OnHMIStatus follows the registration")
        #expect(notifications().allSatisfy { Array($0[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF] })
        await connection.stop()
        await headUnit.stop()
    }

    @Test("the 5.4 StartServiceACK carries every vehicle-type field core sends, systemHardwareVersion from the configuration (core: the HMI's GetSystemInfo)")
    func ackVehicleFields() async throws {
        var configuration = fastConfiguration()
        configuration.systemHardwareVersion = "HW-7"
        let headUnit = HeadUnitEmulator(configuration: configuration)
        let connection = SDLConnection(transport: await headUnit.connectInMemory())
        let ack = try #require(try await connection.start().ackPayload)
        #expect(ack.make == "SDL" && ack.model == "Generic" && ack.modelYear == "2019" && ack.trim == "SE")
        #expect(ack.systemSoftwareVersion == configuration.systemSoftwareVersion)
        #expect(ack.systemHardwareVersion == "HW-7")
        await connection.stop()
        await headUnit.stop()
    }
}
