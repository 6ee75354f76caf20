/// The head unit's answers: which services to accept, secondary transports, and the head
/// unit's own announcements. The machine reports requests as actions; the owner answers
/// through these.
extension HeadUnitProtocolMachine {

    /// Accepts a StartService from ``ProtocolAction/startServiceRequested(_:)``.
    ///
    /// For a new RPC session, `sessionID` is the id to assign (nil: the lowest free one on
    /// this link). The ACK follows core: header version 5 with BSON when the app showed v5
    /// support, else the head unit's maximum capped at 4 with a raw 4-byte hash id.
    ///
    /// `appID`: for a protected start, the app whose certificate the handshake must see (its
    /// subject serialNumber, as sdl_core checks).
    package mutating func acceptStartService(_ request: StartServiceRequest, sessionID: UInt8? = nil, appID: String? = nil,
                                             now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        if request.serviceType == .rpc && request.sessionID == 0 {
            guard let id = sessionID ?? (1...255).lazy.map(UInt8.init).first(where: { !sessions.contains($0) }) else {
                throw ProtocolStateError("all 255 session ids are in use")
            }
            let hash = configuration.connectionHandle | Int32(id) << 16
            let supportsV5 = request.headerVersion >= 5 || (request.offeredVersion?.major ?? 0) >= 5
            let negotiated: ProtocolVersion
            var payload: [UInt8] = []
            var ackPayload: ControlPayload?
            if supportsV5 {
                negotiated = min(request.offeredVersion ?? configuration.maximumVersion, configuration.maximumVersion)
                var ack = ControlPayload(protocolVersion: negotiated.description, hashID: hash, mtu: Int64(configuration.maximumPayloadSize))
                if negotiated >= ProtocolVersion(5, 1, 0) {
                    ack.secondaryTransports = configuration.secondaryTransports ?? []
                    ack.audioServiceTransports = configuration.audioServiceTransports ?? [1]
                    ack.videoServiceTransports = configuration.videoServiceTransports ?? [1]
                }
                if negotiated >= ProtocolVersion(5, 4, 0), let vehicle = configuration.vehicleInfo {
                    ack.make = vehicle.make
                    ack.model = vehicle.model
                    ack.modelYear = vehicle.modelYear
                    ack.trim = vehicle.trim
                    ack.systemSoftwareVersion = vehicle.systemSoftwareVersion
                    ack.systemHardwareVersion = vehicle.systemHardwareVersion
                }
                payload = ack.encoded
                ackPayload = ack
            } else {
                negotiated = ProtocolVersion(min(configuration.maximumVersion.major, 4))
                if negotiated.major >= 2 { payload.appendBigEndian(UInt32(bitPattern: hash)) }
            }
            var session = HeadUnitSession(
                info: SessionInfo(sessionID: id, version: negotiated, hashID: negotiated.major >= 2 ? hash : nil,
                                  maximumSendPayload: negotiated.major >= 3 ? configuration.maximumPayloadSize : 1488,
                                  ackPayload: ackPayload),
                messageCounter: 0, lastReceived: now, lastSent: now, side: HeadUnitSide(announcedVersion: request.offeredVersion))
            let bytes = session.controlFrame(.startServiceACK, service: .rpc, payload: payload, now: now)
            sessions[id] = session
            return [.send(bytes), .sessionStarted(session.info)]
        }
        guard var session = sessions[request.sessionID] else {
            return rejectStartService(request, reason: Self.cannotStart(request) + "Session \(request.sessionID) not found for connection \(configuration.connectionHandle)",
                                      rejectedParams: [])
        }
        // One service of each type per session (protocol spec §5); core NAKs a second one. Starting RPC
        // again encrypted is the protection upgrade, not a second service.
        if session.services.contains(request.serviceType), !(request.serviceType == .rpc && request.isEncrypted) {
            // core (Connection::AddNewService) gives no reason of its own here.
            return rejectStartService(request, reason: Self.cannotStart(request),
                                      rejectedParams: [])
        }
        // A protected start waits for the session's TLS handshake (HeadUnitProtocolMachine+Security.swift).
        if request.isEncrypted { return startProtected(request, in: request.sessionID, appID: appID, now: now) }
        let actions = acknowledge(request, protected: false, in: &session, now: now)
        sessions[session.info.sessionID] = session
        return actions
    }

    /// The StartServiceACK of a service in a running session; E=1 with its BSON a record
    /// when `protected`, as sdl_core sends it.
    func acknowledge(_ request: StartServiceRequest, protected: Bool, in session: inout HeadUnitSession,
                     now: ContinuousClock.Instant) -> [ProtocolAction] {
        var ack: ControlPayload?
        if session.info.version.major >= 5 {
            var payload = ControlPayload(mtu: Int64(configuration.maximumPayloadSize))
            if request.serviceType == .rpc {
                payload.protocolVersion = session.info.version.description
                payload.hashID = session.info.hashID
            }
            if request.serviceType == .video, let asked = request.payload {
                payload.height = asked.height
                payload.width = asked.width
                payload.videoProtocol = asked.videoProtocol
                payload.videoCodec = asked.videoCodec
            }
            ack = payload
        }
        session.services.insert(request.serviceType)
        var body = ack?.encoded ?? []
        if protected {
            session.protection.services.insert(request.serviceType)
            if !body.isEmpty, let record = try? session.protection.tls?.protect(body) { body = record }
        }
        let bytes = session.controlFrame(.startServiceACK, service: request.serviceType, payload: body, encrypted: protected, now: now)
        return [.send(bytes), .serviceStarted(sessionID: session.info.sessionID, serviceType: request.serviceType, payload: ack,
                                              protected: protected)]
    }

    /// Refuses a StartService. The NAK echoes the request's session id (0 for a new session).
    package mutating func rejectStartService(_ request: StartServiceRequest, reason: String?, rejectedParams: [String]) -> [ProtocolAction] {
        let version = request.headerVersion >= 5 || (request.offeredVersion?.major ?? 0) >= 5 ? UInt8(5) : max(request.headerVersion, 1)
        var payload: [UInt8] = []
        if version >= 5 {
            var nak = ControlPayload(rejectedParams: rejectedParams.isEmpty ? nil : rejectedParams)
            let announced = request.offeredVersion ?? sessions[request.sessionID]?.side.announcedVersion
            if let announced, announced >= ProtocolVersion(5, 3, 0) { nak.reason = reason }
            payload = nak.encoded
        }
        var header = FrameHeader(version: version, frameType: .control, serviceType: request.serviceType,
                                 frameInfo: ControlFrameInfo.startServiceNAK.rawValue, sessionID: request.sessionID, dataSize: 0)
        if let messageID = sessions.update(request.sessionID, { $0.nextMessageID() }) { header.messageID = messageID }
        return [.send(Frame(header: header, payload: payload).encoded)]
    }

    /// Answers a RegisterSecondaryTransport on this link. Accepting it joins this link to the
    /// primary's session (`joining`, nil to refuse): it carries no RPC, only what starts on it.
    package mutating func answerSecondaryTransport(sessionID: UInt8, version: UInt8, joining primary: SessionInfo?, reason: String? = nil,
                                                   now: ContinuousClock.Instant) -> [ProtocolAction] {
        let info: ControlFrameInfo = primary != nil ? .registerSecondaryTransportACK : .registerSecondaryTransportNAK
        let payload = primary != nil ? [] : ControlPayload(reason: reason).encoded
        if let primary {
            sessions[sessionID] = HeadUnitSession(info: primary, services: [], messageCounter: 0, lastReceived: now, lastSent: now,
                                                  side: HeadUnitSide(announcedVersion: primary.version))
        }
        // core always uses message id 2 here.
        let header = FrameHeader(version: version, frameType: .control, serviceType: .control,
                                 frameInfo: info.rawValue, sessionID: sessionID, dataSize: 0, messageID: 2)
        return [.send(Frame(header: header, payload: payload).encoded)]
    }

    /// Announces the TCP secondary transport; an empty address withdraws it.
    package mutating func sendTransportEventUpdate(sessionID: UInt8, address: String, port: Int32?,
                                                   now: ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction] {
        guard var session = sessions[sessionID] else { throw ProtocolStateError("session \(sessionID) not found") }
        let payload = ControlPayload(tcpIPAddress: address, tcpPort: address.isEmpty ? nil : port)
        let bytes = session.controlFrame(.transportEventUpdate, service: .control, payload: payload.encoded, now: now)
        sessions[sessionID] = session
        return [.send(bytes)]
    }

    /// The start of core's NAK reason when a service cannot be added to a session
    /// (ConnectionHandlerImpl::OnSessionStartedCallback): the service type in decimal.
    static func cannotStart(_ request: StartServiceRequest) -> String {
        "Cannot start \(request.isEncrypted ? "a protected" : "an unprotected") service of type \(request.serviceType.rawValue). "
    }
}
