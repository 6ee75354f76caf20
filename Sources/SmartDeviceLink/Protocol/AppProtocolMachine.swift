/// The app's side of the SDL protocol on one link: one RPC session, as sdl_java_suite and
/// sdl_ios run it, or the registration of this link as the secondary transport of the
/// primary's session.
package struct AppProtocolMachine: ProtocolMachine {
    package let configuration: ProtocolConfiguration
    private var input: FrameInput
    private var state: State = .idle

    private enum State: Sendable {
        /// Nothing started on this link.
        case idle
        /// StartService(RPC) sent; waiting for ACK or NAK. `offered` is nil for v1–4 style.
        case starting(offered: ProtocolVersion?)
        /// The RPC session (or, after its ACK, a registered secondary link) is up.
        case running(AppSession)
        /// RegisterSecondaryTransport sent for the primary's session; waiting for ACK or NAK.
        case registeringSecondary(AppSession)

        var session: AppSession? {
            switch self {
            case .running(let session), .registeringSecondary(let session): return session
            case .idle, .starting: return nil
            }
        }
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
        guard let session = state.session else { return [:] }
        return [session.info.sessionID: session.info]
    }

    /// The services currently started in the session.
    package var services: Set<ServiceType> { state.session?.services ?? [] }

    package var droppedByteCount: Int { input.decoder.droppedByteCount }

    /// Replaces the session in the state it is in.
    private mutating func update(_ session: AppSession) {
        switch state {
        case .registeringSecondary: state = .registeringSecondary(session)
        default: state = .running(session)
        }
    }

    private func runningSession(_ purpose: String) throws(ProtocolStateError) -> AppSession {
        guard let session = state.session else { throw ProtocolStateError("no session is started; start one before \(purpose)") }
        return session
    }

    // MARK: - Starting and ending

    /// Sends the first StartService(RPC).
    ///
    /// With a maximum of 5 or more it carries BSON `{protocolVersion}` on a v1 header, the
    /// only v1 frame with a payload (§4.2); otherwise it is the empty v1 StartService of §4.1.
    package mutating func startSession(now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard case .idle = state else { throw ProtocolStateError("a session was already started on this link") }
        let offered: ProtocolVersion? = configuration.maximumVersion.major >= 5 ? configuration.maximumVersion : nil
        let payload = offered.map { ControlPayload(protocolVersion: $0.description).encoded } ?? []
        state = .starting(offered: offered)
        let frame = Frame(
            header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc,
                                frameInfo: ControlFrameInfo.startService.rawValue, sessionID: 0, dataSize: 0),
            payload: payload)
        return [.send(frame.encoded)]
    }

    /// Starts audio or video in the running session (after RegisterAppInterface, §4.5), or
    /// RPC again encrypted.
    package mutating func startService(
        _ service: ServiceType, payload: ControlPayload? = nil, encrypted: Bool = false, now: ContinuousClock.Instant
    ) throws(ProtocolStateError) -> [ProtocolAction] {
        var session = try runningSession("starting \(service)")
        guard service != .control, service != .hybrid else { throw ProtocolStateError("\(service) is never started") }
        guard !session.services.contains(service) || (service == .rpc && encrypted) else {
            throw ProtocolStateError("\(service) is already started")
        }
        session.side.starting.insert(service)
        let bytes = session.controlFrame(.startService, service: service, payload: payload.map(\.encoded) ?? [],
                                         encrypted: encrypted, now: now)
        update(session)
        return [.send(bytes)]
    }

    /// Ends a service. Ending RPC ends the session; its EndService carries the hash id.
    package mutating func endService(_ service: ServiceType, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        var session = try runningSession("ending \(service)")
        guard session.services.contains(service) else { throw ProtocolStateError("\(service) is not started") }
        var payload: [UInt8] = []
        if service == .rpc, let hash = session.info.hashID {
            payload = ControlFrames.hashPayload(hash, version: session.info.version)
        }
        session.ending.insert(service)
        let bytes = session.controlFrame(.endService, service: service, payload: payload, now: now)
        update(session)
        return [.send(bytes)]
    }

    /// Frames a complete service payload for sending.
    package mutating func send(_ payload: [UInt8], service: ServiceType, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        var session = try runningSession("sending")
        let bytes = try session.dataFrames(payload, service: service, now: now)
        update(session)
        return [.send(bytes)]
    }

    /// Sends a Heartbeat; doing so opts in to core's supervision (§4.6).
    package mutating func sendHeartbeat(now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        var session = try runningSession("a heartbeat")
        let bytes = session.controlFrame(.heartbeat, service: .control, now: now)
        update(session)
        return [.send(bytes)]
    }

    /// On a secondary link: registers it for the primary's session (§4.7).
    package mutating func registerSecondaryTransport(for info: SessionInfo, now: ContinuousClock.Instant) -> [ProtocolAction] {
        var session = AppSession(info: info, services: [], messageCounter: 1, lastReceived: now, lastSent: now, side: AppSide())
        let bytes = session.controlFrame(.registerSecondaryTransport, service: .control, now: now)
        state = .registeringSecondary(session)
        // The head unit sends frames as large here as on the primary.
        input.accept(upTo: info.ackPayload?.mtu.map { Int($0) } ?? 131_072)
        return [.send(bytes)]
    }

    /// Test hook: the message id the session uses next, to reach the 32-bit wrap cheaply.
    mutating func setNextMessageID(_ id: UInt32) {
        guard var session = state.session else { return }
        session.messageCounter = id
        update(session)
    }

    // MARK: - Input and time

    package mutating func receive(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.decoder.append(bytes)
        while let frame = input.nextFrame(violations: &actions) { handle(frame, now: now, into: &actions) }
        return actions
    }

    package mutating func tick(now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        input.expire(now: now, into: &actions)
        guard let interval = configuration.heartbeatInterval, case .running(var session) = state,
              session.info.version.major >= 3 else { return actions }
        if now - session.lastReceived >= interval * 2 {
            state = .idle
            actions.append(.heartbeatTimedOut(sessionID: session.info.sessionID))
            return actions
        }
        if now - session.lastSent >= interval, now - session.lastReceived >= interval {
            actions.append(.send(session.controlFrame(.heartbeat, service: .control, now: now)))
            update(session)
        }
        return actions
    }

    package var nextDeadline: ContinuousClock.Instant? {
        let expiry = input.reassembler.nextExpiry
        guard let interval = configuration.heartbeatInterval, case .running(let session) = state,
              session.info.version.major >= 3 else { return expiry }
        let heartbeat = min(session.lastReceived + interval * 2, max(session.lastSent, session.lastReceived) + interval)
        return expiry.map { min($0, heartbeat) } ?? heartbeat
    }

    package mutating func reset() {
        input.reset()
        state = .idle
    }

    // MARK: - Frames

    private mutating func handle(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        var session = state.session.flatMap { $0.info.sessionID == header.sessionID ? $0 : nil }
        if var heard = session {
            heard.lastReceived = now
            update(heard)
            session = heard
        }
        guard header.frameType == .control else {
            guard session != nil else {
                actions.append(.violation(.unknownSession(header.sessionID, service: header.serviceType)))
                return
            }
            input.reassemble(frame, now: now, into: &actions)
            return
        }
        guard let info = header.controlInfo else { return }
        let unexpected = ProtocolAction.violation(.unexpected(info, sessionID: header.sessionID, service: header.serviceType))
        switch info {
        case .heartbeat:
            if var answered = session {
                answered.lastSent = now
                update(answered)
            }
            actions.append(.send(ControlFrames.heartbeatACK(to: header)))
        case .heartbeatACK, .serviceDataACK:
            break
        case .startServiceACK:
            if header.serviceType == .rpc, case .starting(let offered) = state {
                sessionAccepted(frame, offered: offered, now: now, into: &actions)
            } else if var started = session {
                let payload = header.version >= 5 ? ControlPayload(bytes: frame.payload) : nil
                started.side.starting.remove(header.serviceType)
                started.services.insert(header.serviceType)
                if header.serviceType != .rpc, let mtu = payload?.mtu {
                    started.serviceSendLimits[header.serviceType] = ControlFrames.sendLimit(
                        version: started.info.version, mtu: mtu, configured: started.info.maximumSendPayload)
                    input.accept(upTo: Int(mtu))
                }
                update(started)
                actions.append(.serviceStarted(sessionID: header.sessionID, serviceType: header.serviceType, payload: payload))
            } else {
                actions.append(unexpected)
            }
        case .startServiceNAK:
            let nak = ControlPayload(bytes: frame.payload)
            let reason = nak?.reason ?? "the head unit sent StartServiceNAK"
            if header.serviceType == .rpc, case .starting = state {
                state = .idle
                actions.append(.sessionStartFailed(reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            } else if var refused = session {
                refused.side.starting.remove(header.serviceType)
                update(refused)
                actions.append(.serviceStartFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                                   reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            } else {
                actions.append(unexpected)
            }
        case .endService:
            guard var ended = session, ended.services.contains(header.serviceType) else {
                actions.append(.send(ControlFrames.endServiceNAK(to: header)))
                return
            }
            actions.append(.send(ended.controlFrame(.endServiceACK, service: header.serviceType, now: now)))
            update(ended)
            finishEnd(of: header.serviceType, into: &actions)
        case .endServiceACK:
            guard session != nil else {
                actions.append(unexpected)
                return
            }
            finishEnd(of: header.serviceType, into: &actions)
        case .endServiceNAK:
            guard var refused = session else {
                actions.append(unexpected)
                return
            }
            refused.ending.remove(header.serviceType)
            update(refused)
            actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                             rejectedParams: ControlPayload(bytes: frame.payload)?.rejectedParams ?? []))
        case .registerSecondaryTransportACK:
            guard case .registeringSecondary(let registered) = state else {
                actions.append(unexpected)
                return
            }
            state = .running(registered)
            actions.append(.secondaryTransportRegistered(sessionID: header.sessionID))
        case .registerSecondaryTransportNAK:
            guard case .registeringSecondary = state else {
                actions.append(unexpected)
                return
            }
            state = .idle
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
            state = .idle
            actions.append(.sessionStartFailed(
                reason: "the head unit answered protocol \(version), below the minimum \(configuration.minimumVersion)",
                rejectedParams: []))
            return
        }
        let sendLimit = ControlFrames.sendLimit(version: version, mtu: ack?.mtu, configured: configuration.maximumPayloadSize)
        let hash = header.version >= 5 ? ack?.hashID : ControlFrames.hash(in: frame)
        let info = SessionInfo(sessionID: header.sessionID, version: version, hashID: hash, maximumSendPayload: sendLimit, ackPayload: ack)
        // Accept up to `mtu` payload bytes; without one, what core sends: 131,072 for v3+,
        // 1488 for v1/v2 (§2.2, §10 item 3), whatever this side's own send limit.
        input.accept(upTo: ack?.mtu.map { Int($0) } ?? (version.major >= 3 ? 131_072 : 1488))
        state = .running(AppSession(info: info, messageCounter: 1, lastReceived: now, lastSent: now, side: AppSide()))
        actions.append(.sessionStarted(info))
    }

    private mutating func finishEnd(of service: ServiceType, into actions: inout [ProtocolAction]) {
        guard var session = state.session else { return }
        if service == .rpc {
            state = .idle
            actions.append(.sessionEnded(sessionID: session.info.sessionID))
        } else {
            session.endNonRPC(service)
            update(session)
            actions.append(.serviceEnded(sessionID: session.info.sessionID, serviceType: service))
        }
    }
}
