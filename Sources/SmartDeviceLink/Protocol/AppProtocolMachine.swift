/// The app's side of the SDL protocol on one link: one RPC session, as sdl_java_suite and
/// sdl_ios run it, or the registration of this link as the secondary transport of the
/// primary's session.
package struct AppProtocolMachine: ProtocolMachine {
    package let configuration: ProtocolConfiguration
    var input: FrameInput
    private var phase: Phase = .idle
    /// The session while `phase` is `running` or `registeringSecondary`, nil otherwise.
    ///
    /// Kept beside the phase, not in it: every frame sent or received updates the session,
    /// and an enum payload can only be copied out and back in, which for a session is a
    /// copy of its sets, limits and ACK payload per frame (perf: 4% of a round trip).
    var session: AppSession?

    private enum Phase: Sendable {
        /// Nothing started on this link.
        case idle
        /// StartService(RPC) sent; waiting for ACK or NAK. `offered` is nil for v1–4 style.
        case starting(offered: ProtocolVersion?)
        /// The RPC session (or, after its ACK, a registered secondary link) is up.
        case running
        /// RegisterSecondaryTransport sent for the primary's session; waiting for ACK or NAK.
        case registeringSecondary
    }

    /// What only the app tracks per session: audio or video starts awaiting an answer.
    struct AppSide: Sendable {
        var starting: Set<ServiceType> = []
    }
    typealias AppSession = Session<AppSide>

    package init(configuration: ProtocolConfiguration = ProtocolConfiguration()) {
        self.configuration = configuration
        self.input = FrameInput(configuration: configuration, fromHeadUnit: true)
    }

    package var activeSessions: [UInt8: SessionInfo] {
        guard let info = session?.info else { return [:] }
        return [info.sessionID: info]
    }

    /// The services currently started in the session.
    package var services: Set<ServiceType> { session?.services ?? [] }

    package var droppedByteCount: Int { input.decoder.droppedByteCount }
    package var receivePayloadLimit: Int { input.decoder.maximumPayloadSize }

    /// Throws unless a session is up; after it, `session!` is safe.
    ///
    /// Static, with the session borrowed: as an instance method called from the mutating
    /// ones it ran on a copy of the whole machine (objdump of `send`: a copy and a destroy
    /// of the machine per RPC, 1.3% of a round trip's profile).
    private static func requireSession(_ session: borrowing AppSession?, _ purpose: @autoclosure () -> String) throws(ProtocolStateError) {
        guard session != nil else { throw ProtocolStateError("no session is started; start one before \(purpose())") }
    }

    private mutating func becomeIdle() {
        phase = .idle
        session = nil
    }

    // MARK: - Starting and ending

    /// Sends the first StartService(RPC).
    ///
    /// With a maximum of 5 or more it carries BSON `{protocolVersion}` on a v1 header, the
    /// only v1 frame with a payload; otherwise it is the empty v1 StartService.
    package mutating func startSession(now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard case .idle = phase else { throw ProtocolStateError("a session was already started on this link") }
        let offered: ProtocolVersion? = configuration.maximumVersion.major >= 5 ? configuration.maximumVersion : nil
        let payload = offered.map { ControlPayload(protocolVersion: $0.description).encoded } ?? []
        phase = .starting(offered: offered)
        let frame = Frame(
            header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc,
                                frameInfo: ControlFrameInfo.startService.rawValue, sessionID: 0, dataSize: 0),
            payload: payload)
        return [.send(frame.encoded)]
    }

    /// Starts audio or video in the running session (after RegisterAppInterface), or
    /// RPC again encrypted.
    package mutating func startService(
        _ service: ServiceType, payload: ControlPayload? = nil, encrypted: Bool = false, now: ContinuousClock.Instant
    ) throws(ProtocolStateError) -> [ProtocolAction] {
        try Self.requireSession(session, "starting \(service)")
        guard service != .control, service != .hybrid else { throw ProtocolStateError("\(service) is never started") }
        guard !session!.services.contains(service) || (service == .rpc && encrypted) else {
            throw ProtocolStateError("\(service) is already started")
        }
        session!.side.starting.insert(service)
        let bytes = session!.controlFrame(.startService, service: service, payload: payload.map(\.encoded) ?? [],
                                          encrypted: encrypted, now: now)
        return [.send(bytes)]
    }

    /// Ends a service. Ending RPC ends the session; its EndService carries the hash id.
    package mutating func endService(_ service: ServiceType, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        try Self.requireSession(session, "ending \(service)")
        guard session!.services.contains(service) else { throw ProtocolStateError("\(service) is not started") }
        var payload: [UInt8] = []
        if service == .rpc, let hash = session!.info.hashID {
            payload = ControlFrames.hashPayload(hash, version: session!.info.version)
        }
        session!.ending.insert(service)
        let bytes = session!.controlFrame(.endService, service: service, payload: payload, now: now)
        return [.send(bytes)]
    }

    /// Frames a complete service payload for sending; protected when the service was started
    /// protected (audio and video are all or nothing).
    package mutating func send(_ payload: [UInt8], service: ServiceType, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        try Self.requireSession(session, "sending")
        let protected = service != .rpc && service != .hybrid && session!.protection.services.contains(service)
        let bytes = try session!.dataFrames(payload, service: service, protected: protected, now: now)
        return [.send(bytes)]
    }

    /// Frames an RPC for sending, on the RPC or Hybrid service as its bulk data says;
    /// `protected` (RPC encryption) needs the RPC service started protected.
    package mutating func send(_ packet: RPCPacket, protected: Bool = false, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        try Self.requireSession(session, "sending")
        return [.send(try session!.dataFrames(packet, protected: protected, now: now))]
    }

    /// The services started protected in the session.
    package var protectedServices: Set<ServiceType> { session?.protection.services ?? [] }

    /// The protocol the session's handshake settled on ("DTLSv1.2"), once it did.
    package var tlsVersion: String? {
        guard let tls = session?.protection.tls, session?.protection.established == true else { return nil }
        return tls.version
    }

    /// Sends a Heartbeat; doing so opts in to core's supervision.
    package mutating func sendHeartbeat(now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        try Self.requireSession(session, "a heartbeat")
        let bytes = session!.controlFrame(.heartbeat, service: .control, now: now)
        return [.send(bytes)]
    }

    /// On a secondary link: registers it for the primary's session.
    package mutating func registerSecondaryTransport(for info: SessionInfo, now: ContinuousClock.Instant) -> [ProtocolAction] {
        var registering = AppSession(info: info, services: [], messageCounter: 1, lastReceived: now, lastSent: now, side: AppSide())
        let bytes = registering.controlFrame(.registerSecondaryTransport, service: .control, now: now)
        phase = .registeringSecondary
        session = registering
        // The head unit sends frames as large here as on the primary.
        input.accept(upTo: info.ackPayload?.mtu.map { Int($0) } ?? 131_072)
        return [.send(bytes)]
    }

    /// Test hook: the message id the session uses next, to reach the 32-bit wrap cheaply.
    mutating func setNextMessageID(_ id: UInt32) {
        session?.messageCounter = id
    }

    // MARK: - Input and time

    package mutating func receive(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [ProtocolAction] {
        receive(bytes as? [UInt8] ?? Array(bytes), now: now)
    }

    /// A read as a transport delivers it; concrete for callers in other modules (benches, the
    /// fuzzer), for the reason given at HeadUnitProtocolMachine's.
    package mutating func receive(_ bytes: [UInt8], now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.append(bytes)
        while let frame = input.nextFrame(violations: &actions) { handle(frame, now: now, into: &actions) }
        return actions
    }

    package mutating func tick(now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.expire(now: now, into: &actions)
        guard let interval = configuration.heartbeatInterval, case .running = phase, let running = session,
              running.info.version.major >= 3 else { return actions }
        if now - running.lastReceived >= interval * 2 {
            becomeIdle()
            actions.append(.heartbeatTimedOut(sessionID: running.info.sessionID))
            return actions
        }
        if now - running.lastSent >= interval, now - running.lastReceived >= interval {
            actions.append(.send(session!.controlFrame(.heartbeat, service: .control, now: now)))
        }
        return actions
    }

    package var nextDeadline: ContinuousClock.Instant? {
        let expiry = input.reassembler.nextExpiry
        guard let interval = configuration.heartbeatInterval, case .running = phase else { return expiry }
        // Through a method of the session: binding its fields through `session?.` copied the
        // whole session (its sets and dictionaries) twice per message.
        return minimum(expiry, session?.heartbeatDeadline(interval: interval))
    }

    package mutating func reset() {
        input.reset()
        becomeIdle()
    }

    // MARK: - Frames

    private mutating func handle(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        let inSession = session?.info.sessionID == header.sessionID
        if inSession { session!.lastReceived = now }
        guard header.frameType == .control else {
            guard inSession else {
                actions.append(.violation(.unknownSession(header.sessionID, service: header.serviceType)))
                return
            }
            received(frame, now: now, into: &actions)
            return
        }
        guard let info = header.controlInfo else { return }
        let unexpected = ProtocolAction.violation(.unexpected(info, sessionID: header.sessionID, service: header.serviceType))
        switch info {
        case .heartbeat:
            if inSession { session!.lastSent = now }
            actions.append(.send(ControlFrames.heartbeatACK(to: header)))
        case .heartbeatACK, .serviceDataACK:
            break
        case .startServiceACK:
            if header.serviceType == .rpc, case .starting(let offered) = phase {
                sessionAccepted(frame, offered: offered, now: now, into: &actions)
            } else if inSession {
                // A protected ACK's BSON is a record too (sdl_core encrypts it).
                let bytes = header.isEncrypted ? ((try? session!.unprotected(frame))?.payload ?? frame.payload) : frame.payload
                let payload = header.version >= 5 ? ControlPayload(bytes: bytes) : nil
                session!.side.starting.remove(header.serviceType)
                session!.services.insert(header.serviceType)
                if header.isEncrypted { session!.protection.services.insert(header.serviceType) }
                if header.serviceType != .rpc, let mtu = payload?.mtu {
                    session!.serviceSendLimits[header.serviceType] = ControlFrames.sendLimit(
                        version: session!.info.version, mtu: mtu, configured: session!.info.maximumSendPayload)
                    input.accept(upTo: Int(mtu))
                }
                actions.append(.serviceStarted(sessionID: header.sessionID, serviceType: header.serviceType, payload: payload,
                                               protected: header.isEncrypted))
            } else {
                actions.append(unexpected)
            }
        case .startServiceNAK:
            let nak = ControlPayload(bytes: frame.payload)
            let reason = nak?.reason ?? "the head unit sent StartServiceNAK"
            if header.serviceType == .rpc, case .starting = phase {
                becomeIdle()
                actions.append(.sessionStartFailed(reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            } else if inSession {
                session!.side.starting.remove(header.serviceType)
                actions.append(.serviceStartFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                                   reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            } else {
                actions.append(unexpected)
            }
        case .endService:
            guard inSession, session!.services.contains(header.serviceType) else {
                actions.append(.send(ControlFrames.endServiceNAK(to: header)))
                return
            }
            actions.append(.send(session!.controlFrame(.endServiceACK, service: header.serviceType, now: now)))
            finishEnd(of: header.serviceType, into: &actions)
        case .endServiceACK:
            guard inSession else {
                actions.append(unexpected)
                return
            }
            finishEnd(of: header.serviceType, into: &actions)
        case .endServiceNAK:
            guard inSession else {
                actions.append(unexpected)
                return
            }
            session!.ending.remove(header.serviceType)
            actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                             rejectedParams: ControlPayload(bytes: frame.payload)?.rejectedParams ?? []))
        case .registerSecondaryTransportACK:
            guard case .registeringSecondary = phase else {
                actions.append(unexpected)
                return
            }
            phase = .running
            actions.append(.secondaryTransportRegistered(sessionID: header.sessionID))
        case .registerSecondaryTransportNAK:
            guard case .registeringSecondary = phase else {
                actions.append(unexpected)
                return
            }
            becomeIdle()
            actions.append(.secondaryTransportRejected(sessionID: header.sessionID, reason: ControlPayload(bytes: frame.payload)?.reason))
        case .transportEventUpdate:
            let update = ControlPayload(bytes: frame.payload)
            actions.append(.transportEventUpdate(address: update?.tcpIPAddress, port: update?.tcpPort))
        case .startService, .registerSecondaryTransport:
            // Only a head unit is asked to start services or register transports.
            actions.append(unexpected)
        }
    }

    /// The head unit accepted the RPC session: settle the version, the hash id and the frame sizes.
    private mutating func sessionAccepted(
        _ frame: Frame, offered: ProtocolVersion?, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]
    ) {
        let header = frame.header
        let ack = header.version >= 5 ? ControlPayload(bytes: frame.payload) : nil
        var version: ProtocolVersion
        if header.version >= 5 {
            let answered = ack?.protocolVersion.flatMap(ProtocolVersion.init) ?? ProtocolVersion(Int(header.version))
            version = min(answered, offered ?? configuration.maximumVersion)
        } else {
            version = ProtocolVersion(min(Int(header.version), configuration.maximumVersion.major))
        }
        if offered == nil, version.major >= 5 { version = ProtocolVersion(4) }
        guard version >= configuration.minimumVersion else {
            becomeIdle()
            actions.append(.sessionStartFailed(
                reason: "the head unit answered protocol \(version), below the minimum \(configuration.minimumVersion)",
                rejectedParams: []))
            return
        }
        let sendLimit = ControlFrames.sendLimit(version: version, mtu: ack?.mtu, configured: configuration.maximumPayloadSize)
        let hash = header.version >= 5 ? ack?.hashID : ControlFrames.hash(in: frame)
        let info = SessionInfo(sessionID: header.sessionID, version: version, hashID: hash, maximumSendPayload: sendLimit, ackPayload: ack)
        // Accept up to `mtu` payload bytes; without one, what core sends: 131,072 for v3+,
        // 1488 for v1/v2 (core holds those versions to it), whatever this side's own send limit.
        input.accept(upTo: ack?.mtu.map { Int($0) } ?? (version.major >= 3 ? 131_072 : 1488))
        phase = .running
        session = AppSession(info: info, messageCounter: 1, lastReceived: now, lastSent: now, side: AppSide())
        actions.append(.sessionStarted(info))
    }

    private mutating func finishEnd(of service: ServiceType, into actions: inout [ProtocolAction]) {
        guard let sessionID = session?.info.sessionID else { return }
        if service == .rpc {
            becomeIdle()
            actions.append(.sessionEnded(sessionID: sessionID))
        } else {
            session!.endNonRPC(service)
            actions.append(.serviceEnded(sessionID: sessionID, serviceType: service))
        }
    }
}

extension Session where Side == AppProtocolMachine.AppSide {
    /// When the app next sends a heartbeat (a quiet link) or gives up on the head unit
    /// (nothing heard for two intervals); nil before protocol 3, which has no heartbeat.
    fileprivate func heartbeatDeadline(interval: Duration) -> ContinuousClock.Instant? {
        guard info.version.major >= 3 else { return nil }
        return min(lastReceived + interval * 2, max(lastSent, lastReceived) + interval)
    }
}
