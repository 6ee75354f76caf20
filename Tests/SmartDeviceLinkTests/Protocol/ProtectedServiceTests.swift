import SDLTestSupport
@testable import SmartDeviceLink
import Testing

/// Protected services between the two protocol machines (PROTOCOL.md §2.4): the head unit's
/// TLS client and the app's server talk in security queries, then every protected frame is
/// one record. Certificates are made per run with the openssl command line.
@Suite("Protected services: the handshake in security queries, E=1 frames, core's refusals")
struct ProtectedServiceTests {
    /// A link whose app holds `appIdentity` and whose head unit verifies by the test CA.
    static func link(_ certificates: TestCertificates, app appIdentity: String? = "app", flavour: SecurityConfiguration.Flavour = .dtls,
                     forceProtected: Set<ServiceType> = [], headUnitPayload: Int = 131_072) throws -> PTLink {
        var app = ProtocolConfiguration()
        app.security = SecurityConfiguration(identity: try appIdentity.map(certificates.identity), flavour: flavour)
        var hu = ProtocolConfiguration.headUnit
        hu.maximumPayloadSize = headUnitPayload
        hu.security = SecurityConfiguration(identity: nil, trustedCertificates: try certificates.pem("ca.pem"), flavour: flavour,
                                            forceProtected: forceProtected)
        var link = PTLink(app: app, hu: hu)
        try link.start()
        link.clearLog()
        return link
    }

    static func startProtected(_ service: ServiceType, on link: inout PTLink) throws {
        link.pump(fromApp: true, try link.app.startService(service, encrypted: true, now: PT.t0), now: PT.t0)
    }

    static func started(_ events: [ProtocolAction], _ service: ServiceType) -> Bool? {
        for case .serviceStarted(_, let started, _, let protected) in events where started == service { return protected }
        return nil
    }

    @Test("RPC started again protected: the handshake runs in security queries, the ACK is E=1 with its BSON a record, RPCs go both ways encrypted",
          arguments: SecurityConfiguration.Flavour.allCases)
    func protectedRPC(flavour: SecurityConfiguration.Flavour) async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates, flavour: flavour)
        try Self.startProtected(.rpc, on: &link)

        let queries = link.wire.filter { $0.frame.header.serviceType == .control && $0.frame.header.frameType == .single }
        #expect(queries.first?.fromApp == false, "the head unit (the TLS client) speaks first")
        #expect(queries.count >= 3 && queries.contains { $0.fromApp })
        let hello = try SecurityQuery(decoding: try #require(queries.first).frame.payload)
        #expect(hello.kind == .request && hello.query == .handshakeData && hello.sequenceNumber == 1)
        let ack = try #require(link.wire.last { $0.frame.header.controlInfo == .startServiceACK })
        #expect(ack.frame.header.isEncrypted && ack.frame.header.serviceType == .rpc)
        #expect(ControlPayload(bytes: ack.frame.payload)?.mtu == nil, "the ACK's BSON travels as a record")
        #expect(Self.started(link.appEvents, .rpc) == true)
        #expect(link.app.protectedServices == [.rpc] && link.hu.protectedServices(of: 1) == [.rpc])
        #expect(link.app.tlsVersion == (flavour == .dtls ? "DTLSv1.2" : "TLSv1.2"))

        // A request larger than one record: each Consecutive frame a record, the First Frame plain.
        link.clearLog()
        let bulk = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let packet = RPCPacket(messageType: .request, functionID: 32, correlationID: 5, json: Array(#"{"syncFileName":"a"}"#.utf8), bulkData: bulk[...])
        link.pump(fromApp: true, try link.app.send(packet, protected: true, now: PT.t0), now: PT.t0)
        let frames = link.wire.map(\.frame)
        #expect(frames.first?.header.frameType == .first && frames.first?.header.isEncrypted == false)
        #expect(frames.dropFirst().allSatisfy { $0.header.isEncrypted && $0.payload.count <= TLSSession.maximumPlaintext + 256 })
        #expect(frames.count == 1 + (packet.encodedSize + TLSSession.maximumPlaintext - 1) / TLSSession.maximumPlaintext)
        #expect(!frames.contains { $0.payload.indices.count > 1000 && Array($0.payload.prefix(1000)) == Array(bulk.prefix(1000)) },
                "no plaintext on the wire")
        #expect(link.huEvents == [.message(sessionID: 1, serviceType: .hybrid, payload: packet.encoded, protected: true)], "bulk data goes on the Hybrid service")

        link.clearLog()
        let answer = RPCPacket(messageType: .response, functionID: 32, correlationID: 5, json: Array(#"{"success":true}"#.utf8))
        link.pump(fromApp: false, try link.hu.send(answer, sessionID: 1, protected: true, now: PT.t0), now: PT.t0)
        #expect(link.wire.allSatisfy { $0.frame.header.isEncrypted })
        #expect(link.appEvents == [.message(sessionID: 1, serviceType: .rpc, payload: answer.encoded, protected: true)])
        // Unprotected RPCs still travel on the protected service (RPC encryption is per message).
        link.clearLog()
        link.pump(fromApp: true, try link.app.send(answer, now: PT.t0), now: PT.t0)
        #expect(link.huEvents == [.message(sessionID: 1, serviceType: .rpc, payload: answer.encoded, protected: false)])
    }

    @Test("a handshake whose flights outgrow a frame travels in First and Consecutive frames on the Control service")
    func splitHandshake() async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates, headUnitPayload: 500)
        try Self.startProtected(.rpc, on: &link)
        #expect(link.wire.contains { $0.fromApp && $0.frame.header.serviceType == .control && $0.frame.header.frameType == .first })
        #expect(Self.started(link.appEvents, .rpc) == true)
    }

    @Test("video after RPC reuses the session's handshake: its ACK comes at once, and every video frame is a record")
    func protectedVideo() async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates)
        try Self.startProtected(.rpc, on: &link)
        link.clearLog()
        try Self.startProtected(.video, on: &link)
        #expect(!link.wire.contains { $0.frame.header.serviceType == .control }, "no second handshake")
        #expect(Self.started(link.appEvents, .video) == true)
        link.clearLog()
        let video = [UInt8](repeating: 0x41, count: 70_000)
        link.pump(fromApp: true, try link.app.send(video, service: .video, now: PT.t0), now: PT.t0)
        #expect(link.wire.dropFirst().allSatisfy { $0.frame.header.isEncrypted })
        #expect(link.huEvents == [.message(sessionID: 1, serviceType: .video, payload: video, protected: true)])
    }

    @Test("core's refusals: the head unit says why, ends the RPC service, then NAKs 'Invalid certificate: …'",
          arguments: [("stranger", "Invalid certificate: Certificate is not signed", SecurityErrorCode.invalidCertificate, "Certificate is not signed"),
                      ("expired", "Invalid certificate: Certificate already expired", .expiredCertificate, "Certificate is expired")])
    func refused(identity: String, reason: String, code: SecurityErrorCode, said: String) async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates, app: identity)
        try Self.startProtected(.rpc, on: &link)
        let fromHeadUnit = link.wire.filter { !$0.fromApp }.map(\.frame)
        let end = try #require(fromHeadUnit.firstIndex { $0.header.controlInfo == .endService && $0.header.serviceType == .rpc })
        let nak = try #require(fromHeadUnit.firstIndex { $0.header.controlInfo == .startServiceNAK })
        #expect(end < nak, "core ends the RPC service before it NAKs")
        #expect(ControlPayload(bytes: fromHeadUnit[nak].payload)?.reason == reason)
        #expect(link.appEvents.contains(.securityFailed(sessionID: 1, SecurityFailure(code: code, text: said, fromPeer: true))), "\(link.appEvents)")
        #expect(link.appEvents.contains(.sessionEnded(sessionID: 1)) && link.hu.activeSessions.isEmpty)
    }

    @Test("a new service whose handshake fails starts unprotected, unless ForceProtectedService lists it")
    func unprotectedFallback() async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates, app: "stranger", forceProtected: [.audio])
        try Self.startProtected(.video, on: &link)
        #expect(Self.started(link.appEvents, .video) == false, "video starts unprotected, as core's handshake handler does")
        link.clearLog()
        try Self.startProtected(.audio, on: &link)
        #expect(link.appEvents.contains { if case .serviceStartFailed(1, .audio, "Invalid certificate: Certificate is not signed", _) = $0 { true } else { false } },
                "\(link.appEvents)")
        #expect(!link.wire.contains { $0.frame.header.controlInfo == .endService }, "the RPC service stays")
    }

    @Test("an app without a certificate: it tells the head unit it cannot (NOT_SUPPORTED), and RPC is refused")
    func appWithoutIdentity() async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates, app: nil)
        try Self.startProtected(.rpc, on: &link)
        let notice = try #require(link.wire.last { $0.fromApp && $0.frame.header.serviceType == .control })
        let query = try SecurityQuery(decoding: notice.frame.payload)
        #expect(query.error?.code == .notSupported)
        let nak = try #require(link.wire.last { !$0.fromApp && $0.frame.header.controlInfo == .startServiceNAK })
        #expect(ControlPayload(bytes: nak.frame.payload)?.reason == "Invalid certificate")
        #expect(link.appEvents.contains(.sessionEnded(sessionID: 1)), "core ends the RPC service it would not protect")
    }

    @Test("a protected frame on a service that is not protected is not delivered; the head unit says SERVICE_NOT_PROTECTED")
    func protectedFrameWithoutProtection() async throws {
        let certificates = try await TestCertificates()
        var link = try Self.link(certificates)
        var frame = Frame(header: FrameHeader(version: 5, isEncrypted: true, frameType: .single, serviceType: .rpc, frameInfo: 0,
                                              sessionID: 1, dataSize: 0, messageID: 9), payload: Array("not a record".utf8))
        frame.header.dataSize = UInt32(frame.payload.count)
        link.pump(fromApp: true, [.send(frame.encoded)], now: PT.t0)
        #expect(!link.huEvents.contains { if case .message = $0 { true } else { false } })
        let notice = try #require(link.wire.last { !$0.fromApp && $0.frame.header.serviceType == .control })
        #expect(try SecurityQuery(decoding: notice.frame.payload).error?.code == .serviceNotProtected)
    }
}
