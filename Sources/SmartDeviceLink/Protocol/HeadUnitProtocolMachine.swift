/// The head unit's side of the SDL protocol on one link: any number of sessions, one per
/// app on the link, as sdl_core runs them. StartService and RegisterSecondaryTransport come
/// out as requests; the owner answers through the methods in
/// HeadUnitProtocolMachine+Answers.swift.
package struct HeadUnitProtocolMachine: ProtocolMachine {
    package let configuration: ProtocolConfiguration
    var input: FrameInput
    var sessions = SessionTable<HeadUnitSide>()

    /// What only the head unit tracks per session.
    struct HeadUnitSide: Sendable {
        var supervision: Supervision = .off
        /// The protocolVersion the app announced in its RPC StartService; core adds `reason`
        /// to NAKs of any service only when it is ≥ 5.3.0.
        var announcedVersion: ProtocolVersion?
    }

    /// core's heartbeat supervision of a session.
    enum Supervision: Sendable {
        /// Not until the app sends its first Heartbeat (core's opt-in).
        case off
        /// The app is heard from; a Heartbeat goes out after an interval of silence.
        case watching
        /// A Heartbeat went out unanswered; another interval of silence ends the session.
        case awaitingAnswer
    }
    typealias HeadUnitSession = Session<HeadUnitSide>

    package init(configuration: ProtocolConfiguration = .headUnit) {
        self.configuration = configuration
        self.input = FrameInput(configuration: configuration, fromHeadUnit: false)
    }

    package var activeSessions: [UInt8: SessionInfo] {
        sessions.byID.mapValues(\.info)
    }

    /// The services currently started in a session.
    package func services(of sessionID: UInt8) -> Set<ServiceType> { sessions[sessionID]?.services ?? [] }

    package var droppedByteCount: Int { input.decoder.droppedByteCount }
    package var receivePayloadLimit: Int { input.decoder.maximumPayloadSize }

    /// Runs `change` on session `id` where it is stored. Copying a session out and back
    /// retained and released each of its fields: 6% of a round trip to a head unit that
    /// only answers.
    private mutating func inSession<Result>(
        _ id: UInt8, _ purpose: String, _ change: (inout HeadUnitSession) throws(ProtocolStateError) -> Result
    ) throws(ProtocolStateError) -> Result {
        guard let result = try sessions.update(id, change) else { throw ProtocolStateError("session \(id) not found for \(purpose)") }
        return result
    }

    // MARK: - Sending

    /// Frames a complete service payload for sending in a session.
    package mutating func send(_ payload: [UInt8], service: ServiceType, sessionID: UInt8,
                               now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        [.send(try inSession(sessionID, "sending") { session throws(ProtocolStateError) in
            let protected = service != .rpc && service != .hybrid && session.protection.services.contains(service)
            return try session.dataFrames(payload, service: service, protected: protected, now: now)
        })]
    }

    /// Frames an RPC for sending in a session, on the RPC or Hybrid service as its bulk data
    /// says; `protected` needs the RPC service started protected.
    package mutating func send(_ packet: RPCPacket, sessionID: UInt8, protected: Bool = false,
                               now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        [.send(try inSession(sessionID, "sending") { session throws(ProtocolStateError) in
            try session.dataFrames(packet, protected: protected, now: now)
        })]
    }

    /// The services of a session started protected.
    package func protectedServices(of sessionID: UInt8) -> Set<ServiceType> { sessions[sessionID]?.protection.services ?? [] }

    /// Ends a service of a session; ending RPC ends the session once acknowledged.
    package mutating func endService(_ service: ServiceType, sessionID: UInt8,
                                     now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        [.send(try inSession(sessionID, "ending \(service)") { session throws(ProtocolStateError) in
            guard session.services.contains(service) else { throw ProtocolStateError("\(service) is not started") }
            session.ending.insert(service)
            return session.controlFrame(.endService, service: service, now: now)
        })]
    }

    /// Sends a Heartbeat in a session.
    package mutating func sendHeartbeat(sessionID: UInt8, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        [.send(try inSession(sessionID, "a heartbeat") { session in
            session.controlFrame(.heartbeat, service: .control, now: now)
        })]
    }

    /// Forgets a session without a frame (e.g. closed for flooding).
    package mutating func dropSession(_ sessionID: UInt8) { sessions[sessionID] = nil }

    /// Test hook: the message id the session uses next, to reach the 32-bit wrap cheaply.
    mutating func setNextMessageID(_ id: UInt32, sessionID: UInt8) { sessions[sessionID]?.messageCounter = id }

    // MARK: - Input and time

    package mutating func receive(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [ProtocolAction] {
        receive(bytes as? [UInt8] ?? Array(bytes), now: now)
    }

    /// A read as a transport delivers it. Concrete, so that other modules (the emulator,
    /// benches) call code specialised for it: generic code is not specialised across modules,
    /// and the generic form reached the decoder through protocol-witness thunks on every read
    /// (perf: 3% of the emulator's reader thread).
    package mutating func receive(_ bytes: [UInt8], now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.append(bytes)
        while let frame = input.nextFrame(violations: &actions) { handle(frame, now: now, into: &actions) }
        return actions
    }

    /// Supervises the sessions whose app opted in: a Heartbeat after an interval of silence,
    /// the end of the session after another; other sessions on the link live on.
    package mutating func tick(now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.expire(now: now, into: &actions)
        guard let interval = configuration.heartbeatInterval else { return actions }
        for id in sessions.sortedIDs {
            guard var session = sessions[id], session.info.version.major >= 3, session.side.supervision != .off,
                  now - session.lastReceived >= interval else { continue }
            if session.side.supervision == .awaitingAnswer {
                guard now - session.lastSent >= interval else { continue }
                sessions[id] = nil
                actions.append(.heartbeatTimedOut(sessionID: id))
                continue
            }
            session.side.supervision = .awaitingAnswer
            actions.append(.send(session.controlFrame(.heartbeat, service: .control, now: now)))
            sessions[id] = session
        }
        return actions
    }

    package var nextDeadline: ContinuousClock.Instant? {
        let expiry = input.reassembler.nextExpiry
        guard let interval = configuration.heartbeatInterval else { return expiry }
        let heartbeat = sessions.earliest { session -> ContinuousClock.Instant? in
            guard session.pointee.info.version.major >= 3 else { return nil }
            switch session.pointee.side.supervision {
            case .off: return nil
            case .watching: return session.pointee.lastReceived + interval
            case .awaitingAnswer: return max(session.pointee.lastSent, session.pointee.lastReceived) + interval
            }
        }
        return minimum(expiry, heartbeat)
    }

    package mutating func reset() {
        input.reset()
        sessions.removeAll()
    }

    // MARK: - Frames

    private mutating func handle(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        let known = sessions.update(header.sessionID) { $0.heard(header, now: now) } != nil
        guard header.frameType == .control else {
            guard known else {
                actions.append(.violation(.unknownSession(header.sessionID, service: header.serviceType)))
                return
            }
            received(frame, now: now, into: &actions)
            return
        }
        guard let info = header.controlInfo else { return }
        switch info {
        case .heartbeat:
            sessions.update(header.sessionID) { $0.heardHeartbeat(now: now) }
            actions.append(.send(ControlFrames.heartbeatACK(to: header)))
        case .heartbeatACK, .serviceDataACK:
            break
        case .startService:
            startServiceRequested(frame, into: &actions)
        case .endService:
            endServiceRequested(frame, now: now, into: &actions)
        case .endServiceACK where known:
            finishEnd(of: header.serviceType, sessionID: header.sessionID, into: &actions)
        case .endServiceNAK where known:
            sessions.update(header.sessionID) { _ = $0.ending.remove(header.serviceType) }
            actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                             rejectedParams: ControlPayload(bytes: frame.payload)?.rejectedParams ?? []))
        case .registerSecondaryTransport:
            actions.append(.secondaryTransportRequested(sessionID: header.sessionID))
        case .endServiceACK, .endServiceNAK, .startServiceACK, .startServiceNAK, .registerSecondaryTransportACK,
             .registerSecondaryTransportNAK, .transportEventUpdate:
            // Answers to what a head unit never asks, or for a session that is gone.
            actions.append(.violation(.unexpected(info, sessionID: header.sessionID, service: header.serviceType)))
        }
    }

    private mutating func startServiceRequested(_ frame: Frame, into actions: inout [ProtocolAction]) {
        let header = frame.header
        let parsed = frame.payload.isEmpty ? nil : ControlPayload(bytes: frame.payload)
        var request = StartServiceRequest(sessionID: header.sessionID, serviceType: header.serviceType,
                                          headerVersion: header.version, offeredVersion: nil, payload: parsed,
                                          isEncrypted: header.isEncrypted && configuration.protectsServices && header.version > 1)
        if header.serviceType == .rpc, let parsed {
            // core reads the version of every RPC StartService that has a payload: a new session's
            // is NAKed when missing, malformed or below 5; for any other, the NAK of a session core
            // does not know carries its reason when the app announced 5.3 or later.
            let version = parsed.protocolVersion.flatMap(ProtocolVersion.init).flatMap { $0.major >= 5 ? $0 : nil }
            if header.sessionID == 0, version == nil {
                request.offeredVersion = ProtocolVersion(5)
                actions.append(contentsOf: rejectStartService(request, reason: "invalid protocolVersion", rejectedParams: ["protocolVersion"]))
                return
            }
            request.offeredVersion = version
        }
        actions.append(.startServiceRequested(request))
    }

    /// EndService from the app: ACK, or NAK for a service that is not started or an
    /// EndService(RPC) whose hash id is not the session's.
    private mutating func endServiceRequested(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        guard var session = sessions[header.sessionID], session.services.contains(header.serviceType) else {
            actions.append(.send(ControlFrames.endServiceNAK(to: header)))
            return
        }
        if header.serviceType == .rpc, let expected = session.info.hashID, ControlFrames.hash(in: frame) != expected {
            let payload = header.version >= 5 ? ControlPayload(rejectedParams: ["hashId"]).encoded : []
            actions.append(.send(session.controlFrame(.endServiceNAK, service: .rpc, payload: payload, now: now)))
            sessions[header.sessionID] = session
            actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: .rpc, rejectedParams: ["hashId"]))
            return
        }
        actions.append(.send(session.controlFrame(.endServiceACK, service: header.serviceType, now: now)))
        sessions[header.sessionID] = session
        finishEnd(of: header.serviceType, sessionID: header.sessionID, into: &actions)
    }

    private mutating func finishEnd(of service: ServiceType, sessionID: UInt8, into actions: inout [ProtocolAction]) {
        guard var session = sessions[sessionID] else { return }
        if service == .rpc {
            sessions[sessionID] = nil
            actions.append(.sessionEnded(sessionID: sessionID))
        } else {
            session.endNonRPC(service)
            sessions[sessionID] = session
            actions.append(.serviceEnded(sessionID: sessionID, serviceType: service))
        }
    }
}

extension Session where Side == HeadUnitProtocolMachine.HeadUnitSide {
    /// A frame came in this session.
    mutating func heard(_ header: FrameHeader, now: ContinuousClock.Instant) {
        lastReceived = now
        if side.supervision == .awaitingAnswer { side.supervision = .watching }
        // Follow an app that settled on a lower version (v1–4 negotiation), frame size
        // included: a v2 session never gets frames above 1,488 payload bytes.
        if header.version >= 2, header.version < info.headerVersion {
            info.version = ProtocolVersion(Int(header.version))
            if header.version < 3 { info.maximumSendPayload = 1488 }
        }
    }

    /// The app sent a Heartbeat: core supervises the session from then on, and answers it.
    mutating func heardHeartbeat(now: ContinuousClock.Instant) {
        if side.supervision == .off { side.supervision = .watching }
        lastSent = now
    }
}
