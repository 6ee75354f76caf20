/// The SDL protocol session layer, for either role, without I/O: bytes and calls go in,
/// ``ProtocolAction``s come out, and time is always a parameter (STYLE.md, swift-nio-ssh).
///
/// The app role runs one RPC session per link (as java and ios do); the head-unit role
/// runs any number, one per app on the link.
public struct ProtocolStateMachine: Sendable {
    public let role: ProtocolRole
    public var configuration: ProtocolConfiguration

    private var decoder: FrameDecoder
    private var reassembler: FrameReassembler
    // Internal, not private: the head-unit role's extension (ProtocolStateMachine+HeadUnit) uses them.
    var sessions: [UInt8: Session] = [:]
    private var appStart: AppStart = .idle

    private enum AppStart: Sendable {
        case idle
        /// StartService sent; waiting for ACK or NAK. `offered` is nil for v1–4 style.
        case starting(offered: ProtocolVersion?)
        case started
    }

    struct Session: Sendable {
        var info: SessionInfo
        var services: Set<ServiceType> = [.rpc, .hybrid]
        /// Per-session counter; app starts at 1 (java/ios), head unit at 0 (core).
        var messageCounter: UInt32
        var lastReceived: ContinuousClock.Instant
        var lastSent: ContinuousClock.Instant
        /// Head unit: supervision starts once the app sent a Heartbeat (core's opt-in).
        var heartbeatMonitored = false
        var heartbeatPending = false
        /// Sent EndService and waiting for the ACK.
        var ending: Set<ServiceType> = []
        /// Pending starts of audio/video on the app side.
        var starting: Set<ServiceType> = []
        /// Payload limits per frame set by an audio/video ACK's `mtu`, overriding the
        /// session's RPC value for that service (§2.2, PS §4.2.3.2).
        var serviceSendLimits: [ServiceType: Int] = [:]
        /// Head unit: the protocolVersion the app announced in its RPC StartService; core
        /// adds `reason` to NAKs of any service only when it is ≥ 5.3.0 (§4.3).
        var announcedVersion: ProtocolVersion?
    }

    public init(role: ProtocolRole, configuration: ProtocolConfiguration = ProtocolConfiguration()) {
        self.role = role
        self.configuration = configuration
        self.decoder = FrameDecoder(maximumPayloadSize: max(configuration.maximumPayloadSize, 1488))
        self.reassembler = FrameReassembler(timeout: configuration.reassemblyTimeout)
    }

    /// The sessions that are up, by id.
    public var activeSessions: [UInt8: SessionInfo] { sessions.mapValues(\.info) }

    /// The services currently started in a session.
    public func services(of sessionID: UInt8) -> Set<ServiceType> { sessions[sessionID]?.services ?? [] }

    /// Bytes received that formed no frame and were dropped.
    public var droppedByteCount: Int { decoder.droppedByteCount }

    // MARK: - App role: starting and ending

    /// App: sends the first StartService(RPC).
    ///
    /// With a maximum of 5 or more it carries BSON `{protocolVersion}` on a v1 header, the
    /// only v1 frame with a payload (§4.2); otherwise it is the empty v1 StartService of §4.1.
    public mutating func startSession(now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard role == .app else { throw ProtocolStateError("only the app role starts sessions") }
        guard case .idle = appStart else { throw ProtocolStateError("a session was already started on this link") }
        let offered: ProtocolVersion? = configuration.maximumVersion.major >= 5 ? configuration.maximumVersion : nil
        let payload = offered.map { ControlPayload(protocolVersion: $0.description).encoded } ?? []
        appStart = .starting(offered: offered)
        let frame = Frame(
            header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc,
                                frameInfo: ControlFrameInfo.startService.rawValue, sessionID: 0, dataSize: 0),
            payload: payload)
        return [.send(frame.encoded)]
    }

    /// App: starts audio or video in the running session (after RegisterAppInterface, §4.5).
    public mutating func startService(
        _ service: ServiceType, payload: ControlPayload? = nil, encrypted: Bool = false, now: ContinuousClock.Instant
    ) throws(ProtocolStateError) -> [ProtocolAction] {
        guard role == .app, var session = onlySession else { throw ProtocolStateError("no session to start \(service) in") }
        guard service != .control, service != .hybrid else { throw ProtocolStateError("\(service) is never started") }
        guard !session.services.contains(service) || (service == .rpc && encrypted) else {
            throw ProtocolStateError("\(service) is already started")
        }
        session.starting.insert(service)
        let bytes = controlFrame(.startService, service: service, session: &session, payload: payload.map(\.encoded) ?? [], encrypted: encrypted, now: now)
        sessions[session.info.sessionID] = session
        return [.send(bytes)]
    }

    /// Either role: ends a service. Ending RPC ends the session; the app includes its hash id.
    public mutating func endService(_ service: ServiceType, sessionID: UInt8? = nil, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard var session = sessionID.flatMap({ sessions[$0] }) ?? onlySession else { throw ProtocolStateError("no session to end \(service) in") }
        guard session.services.contains(service) else { throw ProtocolStateError("\(service) is not started") }
        var payload: [UInt8] = []
        if service == .rpc, role == .app, let hash = session.info.hashID {
            if session.info.version.major >= 5 {
                payload = ControlPayload(hashID: hash).encoded
            } else {
                payload.appendBigEndian(UInt32(bitPattern: hash))
            }
        }
        session.ending.insert(service)
        let bytes = controlFrame(.endService, service: service, session: &session, payload: payload, now: now)
        sessions[session.info.sessionID] = session
        return [.send(bytes)]
    }

    // MARK: - Sending data

    /// Frames a complete service payload (an RPC packet, audio or video data) for sending,
    /// fragmented to the session's limit, with a fresh message id.
    public mutating func send(
        _ payload: [UInt8], service: ServiceType, sessionID: UInt8? = nil, now: ContinuousClock.Instant
    ) throws(ProtocolStateError) -> [ProtocolAction] {
        guard var session = sessionID.flatMap({ sessions[$0] }) ?? onlySession else {
            throw ProtocolStateError("no session is started; start one before sending")
        }
        let running = service == .hybrid ? session.services.contains(.rpc) : session.services.contains(service)
        guard running else { throw ProtocolStateError("\(service) is not started in session \(session.info.sessionID)") }
        let messageID = nextMessageID(&session)
        let limit = session.serviceSendLimits[service] ?? session.info.maximumSendPayload
        let frames = FrameFragmenter.frames(
            for: payload, version: session.info.headerVersion, serviceType: service, sessionID: session.info.sessionID,
            messageID: messageID, maximumPayloadPerFrame: limit)
        session.lastSent = now
        sessions[session.info.sessionID] = session
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + frames.count * 12)
        for frame in frames {
            frame.header.encode(into: &bytes)
            bytes.append(contentsOf: frame.payload)
        }
        return [.send(bytes)]
    }

    /// Sends a Heartbeat (control service). Either role may; the app opts in to core's
    /// supervision by doing so (§4.6).
    public mutating func sendHeartbeat(sessionID: UInt8? = nil, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard var session = sessionID.flatMap({ sessions[$0] }) ?? onlySession else { throw ProtocolStateError("no session for a heartbeat") }
        let bytes = controlFrame(.heartbeat, service: .control, session: &session, payload: [], now: now)
        sessions[session.info.sessionID] = session
        return [.send(bytes)]
    }

    /// App, on a secondary link: registers it for the primary's session (§4.7).
    public mutating func registerSecondaryTransport(for info: SessionInfo, now: ContinuousClock.Instant) -> [ProtocolAction] {
        var session = Session(info: info, services: [], messageCounter: 1, lastReceived: now, lastSent: now)
        let bytes = controlFrame(.registerSecondaryTransport, service: .control, session: &session, payload: [], now: now)
        sessions[info.sessionID] = session
        appStart = .started
        return [.send(bytes)]
    }

    // MARK: - Input

    /// Feeds bytes from the transport.
    public mutating func receive(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        decoder.append(bytes)
        while let event = decoder.next() {
            switch event {
            case .malformed(let reason):
                actions.append(.malformed(reason: reason))
            case .frame(let frame):
                handle(frame, now: now, into: &actions)
            }
        }
        return actions
    }

    /// Lets time pass: heartbeats, heartbeat timeouts, expiry of partial messages.
    public mutating func tick(now: ContinuousClock.Instant) -> [ProtocolAction] {
        var actions: [ProtocolAction] = []
        for key in reassembler.expire(now: now) {
            actions.append(.dropped(reason: "message \(key.messageID) on \(key.serviceType) expired before its last frame"))
        }
        guard let interval = configuration.heartbeatInterval else { return actions }
        for id in sessions.keys.sorted() {
            guard var session = sessions[id], session.info.version.major >= 3 else { continue }
            switch role {
            case .app:
                if now - session.lastReceived >= interval * 2 {
                    sessions[id] = nil
                    actions.append(.heartbeatTimedOut(sessionID: id))
                    continue
                }
                if now - session.lastSent >= interval, now - session.lastReceived >= interval {
                    actions.append(.send(controlFrame(.heartbeat, service: .control, session: &session, payload: [], now: now)))
                }
            case .headUnit:
                guard session.heartbeatMonitored, now - session.lastReceived >= interval else { continue }
                if session.heartbeatPending, now - session.lastSent >= interval {
                    sessions[id] = nil
                    actions.append(.heartbeatTimedOut(sessionID: id))
                    continue
                }
                if !session.heartbeatPending {
                    session.heartbeatPending = true
                    actions.append(.send(controlFrame(.heartbeat, service: .control, session: &session, payload: [], now: now)))
                }
            }
            sessions[id] = session
        }
        return actions
    }

    /// The earliest time at which ``tick(now:)`` has something to do (a heartbeat to send
    /// or to miss, a partial message to expire), or nil when nothing is timed. A driver
    /// sleeps until then instead of polling; calling `tick` earlier is harmless.
    public var nextDeadline: ContinuousClock.Instant? {
        var earliest = reassembler.nextExpiry
        func consider(_ instant: ContinuousClock.Instant) {
            if earliest.map({ instant < $0 }) ?? true { earliest = instant }
        }
        guard let interval = configuration.heartbeatInterval else { return earliest }
        for session in sessions.values where session.info.version.major >= 3 {
            switch role {
            case .app:
                consider(session.lastReceived + interval * 2)
                consider(max(session.lastSent, session.lastReceived) + interval)
            case .headUnit:
                guard session.heartbeatMonitored else { continue }
                consider(session.heartbeatPending ? max(session.lastSent, session.lastReceived) + interval
                                                  : session.lastReceived + interval)
            }
        }
        return earliest
    }

    /// Forgets partial input and sessions, as when the transport is lost (§10 item 19).
    public mutating func reset() {
        decoder.reset()
        reassembler.reset()
        sessions.removeAll()
        appStart = .idle
    }

    // MARK: - Frame handling

    private mutating func handle(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        if var session = sessions[header.sessionID] {
            session.lastReceived = now
            session.heartbeatPending = false
            // Head unit: follow an app that settled on a lower version (v1–4 negotiation).
            if role == .headUnit, header.version >= 2, header.version < session.info.headerVersion {
                session.info.version = ProtocolVersion(Int(header.version))
            }
            sessions[header.sessionID] = session
        }
        guard header.frameType == .control else {
            guard sessions[header.sessionID] != nil else {
                actions.append(.dropped(reason: "\(header.serviceType) frame for unknown session \(header.sessionID)"))
                return
            }
            switch reassembler.receive(frame, now: now) {
            case .message(let complete, let payload):
                actions.append(.message(sessionID: complete.sessionID, serviceType: complete.serviceType, payload: payload))
            case .pending:
                break
            case .dropped(let reason):
                actions.append(.dropped(reason: reason))
            }
            return
        }
        guard let info = header.controlInfo else { return }
        switch info {
        case .heartbeat:
            // Always answer, echoing session and message id as core does (§4.6).
            let ack = FrameHeader(version: header.version, frameType: .control, serviceType: .control,
                                  frameInfo: ControlFrameInfo.heartbeatACK.rawValue, sessionID: header.sessionID,
                                  dataSize: 0, messageID: header.messageID)
            if var session = sessions[header.sessionID] {
                if role == .headUnit { session.heartbeatMonitored = true }
                session.lastSent = now
                sessions[header.sessionID] = session
            }
            actions.append(.send(ack.encoded))
        case .heartbeatACK, .serviceDataACK:
            break
        case .startService:
            handleStartService(frame, into: &actions)
        case .startServiceACK:
            handleStartServiceACK(frame, now: now, into: &actions)
        case .startServiceNAK:
            let nak = ControlPayload(bytes: frame.payload)
            let reason = nak?.reason ?? "the head unit sent StartServiceNAK"
            if header.serviceType == .rpc, case .starting = appStart {
                appStart = .idle
                actions.append(.sessionStartFailed(reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            } else {
                sessions[header.sessionID]?.starting.remove(header.serviceType)
                actions.append(.serviceStartFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                                   reason: reason, rejectedParams: nak?.rejectedParams ?? []))
            }
        case .endService:
            handleEndService(frame, now: now, into: &actions)
        case .endServiceACK:
            finishEnd(of: header.serviceType, sessionID: header.sessionID, into: &actions)
        case .endServiceNAK:
            sessions[header.sessionID]?.ending.remove(header.serviceType)
            actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: header.serviceType,
                                             rejectedParams: ControlPayload(bytes: frame.payload)?.rejectedParams ?? []))
        case .registerSecondaryTransport:
            if role == .headUnit { actions.append(.secondaryTransportRequested(sessionID: header.sessionID)) }
        case .registerSecondaryTransportACK:
            actions.append(.secondaryTransportRegistered(sessionID: header.sessionID))
        case .registerSecondaryTransportNAK:
            sessions[header.sessionID] = nil
            actions.append(.secondaryTransportRejected(sessionID: header.sessionID, reason: ControlPayload(bytes: frame.payload)?.reason))
        case .transportEventUpdate:
            let update = ControlPayload(bytes: frame.payload)
            actions.append(.transportEventUpdate(address: update?.tcpIPAddress, port: update?.tcpPort))
        }
    }

    private mutating func handleStartService(_ frame: Frame, into actions: inout [ProtocolAction]) {
        guard role == .headUnit else {
            actions.append(.dropped(reason: "StartService received by the app role"))
            return
        }
        let header = frame.header
        let parsed = frame.payload.isEmpty ? nil : ControlPayload(bytes: frame.payload)
        var request = StartServiceRequest(sessionID: header.sessionID, serviceType: header.serviceType,
                                          headerVersion: header.version, offeredVersion: nil, payload: parsed,
                                          isEncrypted: header.isEncrypted)
        if header.serviceType == .rpc, header.sessionID == 0, let parsed {
            // core NAKs a parsable payload whose protocolVersion is missing, malformed or below 5 (§4.2).
            guard let text = parsed.protocolVersion, let version = ProtocolVersion(text), version.major >= 5 else {
                request.offeredVersion = ProtocolVersion(5)
                actions.append(contentsOf: rejectStartService(request, reason: "invalid protocolVersion", rejectedParams: ["protocolVersion"]))
                return
            }
            request.offeredVersion = version
        }
        actions.append(.startServiceRequested(request))
    }

    private mutating func handleStartServiceACK(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        if header.serviceType == .rpc, case .starting(let offered) = appStart {
            let ack = header.version >= 5 ? ControlPayload(bytes: frame.payload) : nil
            var version: ProtocolVersion
            var hash: Int32?
            if header.version >= 5 {
                let answered = ack?.protocolVersion.flatMap(ProtocolVersion.init) ?? ProtocolVersion(Int(header.version))
                version = min(answered, offered ?? configuration.maximumVersion)
                hash = ack?.hashID
            } else {
                version = ProtocolVersion(min(Int(header.version), configuration.maximumVersion.major))
                if frame.payload.count >= 4 { hash = Int32(bitPattern: frame.payload.bigEndianUInt32(at: 0)) }
            }
            if offered == nil, version.major >= 5 { version = ProtocolVersion(4) }
            guard version >= configuration.minimumVersion else {
                appStart = .idle
                actions.append(.sessionStartFailed(
                    reason: "the head unit answered protocol \(version), below the minimum \(configuration.minimumVersion)",
                    rejectedParams: []))
                return
            }
            let sendLimit = Self.sendLimit(version: version, mtu: ack?.mtu, configured: configuration.maximumPayloadSize)
            let info = SessionInfo(sessionID: header.sessionID, version: version, hashID: hash, maximumSendPayload: sendLimit, ackPayload: ack)
            // Accept up to `mtu` payload bytes; without one, what core sends: 131,072 for v3+,
            // 1488 for v1/v2 (§2.2, §10 item 3), whatever this side's own send limit.
            let receiveLimit = ack?.mtu.map { Int($0) } ?? (version.major >= 3 ? 131_072 : 1488)
            decoder.maximumPayloadSize = max(decoder.maximumPayloadSize, receiveLimit)
            sessions[header.sessionID] = Session(info: info, messageCounter: 1, lastReceived: now, lastSent: now)
            appStart = .started
            actions.append(.sessionStarted(info))
            return
        }
        guard var session = sessions[header.sessionID] else {
            actions.append(.dropped(reason: "StartServiceACK for unknown session \(header.sessionID)"))
            return
        }
        let payload = header.version >= 5 ? ControlPayload(bytes: frame.payload) : nil
        session.starting.remove(header.serviceType)
        session.services.insert(header.serviceType)
        if header.serviceType != .rpc, let mtu = payload?.mtu {
            session.serviceSendLimits[header.serviceType] = Self.sendLimit(
                version: session.info.version, mtu: mtu, configured: session.info.maximumSendPayload)
            decoder.maximumPayloadSize = max(decoder.maximumPayloadSize, Int(mtu))
        }
        sessions[header.sessionID] = session
        actions.append(.serviceStarted(sessionID: header.sessionID, serviceType: header.serviceType, payload: payload))
    }

    private mutating func handleEndService(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let header = frame.header
        guard var session = sessions[header.sessionID], session.services.contains(header.serviceType) else {
            let nak = FrameHeader(version: max(header.version, 2), frameType: .control, serviceType: header.serviceType,
                                  frameInfo: ControlFrameInfo.endServiceNAK.rawValue, sessionID: header.sessionID, dataSize: 0, messageID: header.messageID)
            actions.append(.send(nak.encoded))
            return
        }
        if role == .headUnit, header.serviceType == .rpc, let expected = session.info.hashID {
            let given: Int32?
            if header.version >= 5 {
                given = ControlPayload(bytes: frame.payload)?.hashID
            } else {
                given = frame.payload.count >= 4 ? Int32(bitPattern: frame.payload.bigEndianUInt32(at: 0)) : nil
            }
            guard given == expected else {
                let payload = header.version >= 5 ? ControlPayload(rejectedParams: ["hashId"]).encoded : []
                actions.append(.send(controlFrame(.endServiceNAK, service: .rpc, session: &session, payload: payload, now: now)))
                sessions[header.sessionID] = session
                actions.append(.serviceEndFailed(sessionID: header.sessionID, serviceType: .rpc, rejectedParams: ["hashId"]))
                return
            }
        }
        actions.append(.send(controlFrame(.endServiceACK, service: header.serviceType, session: &session, payload: [], now: now)))
        sessions[header.sessionID] = session
        finishEnd(of: header.serviceType, sessionID: header.sessionID, into: &actions)
    }

    private mutating func finishEnd(of service: ServiceType, sessionID: UInt8, into actions: inout [ProtocolAction]) {
        guard var session = sessions[sessionID] else { return }
        if service == .rpc {
            sessions[sessionID] = nil
            if role == .app { appStart = .idle }
            actions.append(.sessionEnded(sessionID: sessionID))
        } else {
            session.services.remove(service)
            session.ending.remove(service)
            session.serviceSendLimits[service] = nil
            sessions[sessionID] = session
            actions.append(.serviceEnded(sessionID: sessionID, serviceType: service))
        }
    }

    // MARK: - Helpers

    private var onlySession: Session? {
        role == .app ? sessions.values.first : nil
    }

    /// Payload bytes per frame this side sends: `mtu − 12` is valid whether a peer reads
    /// `mtu` as a payload or a frame limit (§2.2); v1/v2 stay at 1488.
    static func sendLimit(version: ProtocolVersion, mtu: Int64?, configured: Int) -> Int {
        guard version.major >= 3 else { return 1488 }
        if let mtu, mtu > 12 { return Int(mtu) - 12 }
        return min(configured, 131_072)
    }

    /// The next message id. The head unit starts at 0 (core's first ACK carries 0) and the
    /// app at 1; after a wrap both skip 0, which core rejects on data frames (§4.4).
    func nextMessageID(_ session: inout Session) -> UInt32 {
        let id = session.messageCounter
        session.messageCounter &+= 1
        if session.messageCounter == 0 { session.messageCounter = 1 }
        return id
    }

    mutating func controlFrame(
        _ info: ControlFrameInfo, service: ServiceType, session: inout Session, payload: [UInt8],
        encrypted: Bool = false, now: ContinuousClock.Instant
    ) -> [UInt8] {
        let header = FrameHeader(version: session.info.headerVersion, isEncrypted: encrypted, frameType: .control,
                                 serviceType: service, frameInfo: info.rawValue, sessionID: session.info.sessionID,
                                 dataSize: UInt32(payload.count), messageID: nextMessageID(&session))
        session.lastSent = now
        return Frame(header: header, payload: payload).encoded
    }
}
