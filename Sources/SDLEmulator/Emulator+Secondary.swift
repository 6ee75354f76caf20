import SmartDeviceLink

/// Secondary transports and the links of audio and video, as sdl_core 8.2 runs them
/// (core's protocol_handler_impl.cc and connection_handler_impl.cc).
extension HeadUnitEmulator {
    // MARK: - Announcing the TCP endpoint

    /// What TransportEventUpdates announce: the configured endpoint, else the emulator's own
    /// first TCP listener; nil while withdrawn or when there is none (core then sends "").
    var secondaryEndpoint: (host: String, port: Int32)? {
        guard tcpOffered else { return nil }
        let transports = configuration.multipleTransports
        if let host = transports.host {
            return (host, Int32(transports.port ?? listeningAddress.map { Int($0.port) } ?? 12345))
        }
        return listeningAddress.map { ($0.host, Int32($0.port)) }
    }

    /// A primary session that speaks 5.1.0 or later on a head unit with secondaries on.
    private func eligibleForSecondary(_ key: SessionKey) -> Bool {
        guard configuration.multipleTransports.enabled, sessions.contains(key),
              let version = connections[key.connection]?.machine.activeSessions[key.session]?.version else { return false }
        return version >= ProtocolVersion(5, 1, 0)
    }

    /// core's TransportEventUpdate, right behind the RPC StartServiceACK and again whenever
    /// the endpoint comes or goes: the address and port, or "" without a port.
    func announceSecondary(to key: SessionKey) {
        guard eligibleForSecondary(key) else { return }
        let endpoint = secondaryEndpoint
        guard let actions = try? connections[key.connection]?.machine.sendTransportEventUpdate(
            sessionID: key.session, address: endpoint?.host ?? "", port: endpoint?.port, now: clock.now) else { return }
        perform(actions, on: key.connection)
        emit(.secondaryAnnounced(sessionID: key.session, address: endpoint.map { "\($0.host):\($0.port)" } ?? ""))
    }

    private func announceToEverySession() {
        for key in sessions.sorted(by: { ($0.connection, $0.session) < ($1.connection, $1.session) }) { announceSecondary(to: key) }
    }

    // MARK: - Registering a secondary

    /// The primary session a session id seen on connection `id` belongs to.
    func primaryKey(_ sessionID: UInt8, on id: Int) -> SessionKey {
        if secondaryConnections[sessionID] == id, let primary = sessions.first(where: { $0.session == sessionID && $0.connection != id }) {
            return primary
        }
        return SessionKey(connection: id, session: sessionID)
    }

    /// RegisterSecondaryTransport on a new connection, with core's NAK reasons: session 0;
    /// a session no other connection has; and "already registered", which core also says
    /// when secondary transports are off. One secondary per session (protocol spec §3.1.3.2.2). core
    /// does not check that the link is of a kind it offered.
    func secondaryTransportRequested(_ sessionID: UInt8, on id: Int) {
        let primary = sessions.first { $0.session == sessionID && $0.connection != id }
        let info = primary.flatMap { connections[$0.connection]?.machine.activeSessions[sessionID] }
        let reason: String?
        if sessionID == 0 {
            reason = "RegisterSecondaryTransport MUST include a non-zero session ID"
        } else if primary == nil || info == nil {
            reason = "RegisterSecondaryTransport session ID not found"
        } else if let primary, !eligibleForSecondary(primary) || secondaryConnections[sessionID] != nil {
            reason = "RegisterSecondaryTransport session ID has already been registered"
        } else {
            reason = nil
            secondaryConnections[sessionID] = id
        }
        let answer = connections[id]?.machine.answerSecondaryTransport(
            sessionID: sessionID, version: 5, joining: reason == nil ? info : nil, reason: reason, now: clock.now)
        perform(answer ?? [], on: id)
        if reason == nil { emit(.secondaryRegistered(connection: id, sessionID: sessionID)) }
    }

    // MARK: - Audio and video on either link

    /// Audio or video StartService on any link of a session: refused where `[ServicesMap]`
    /// does not list the link ("Service type: N disallowed by settings."), before the
    /// RegisterAppInterface response (protocol spec §4.3), and while it already runs on the other link.
    func startStream(_ request: StartServiceRequest, on id: Int) -> [ProtocolAction]? {
        func reject(_ reason: String) -> [ProtocolAction]? {
            connections[id]?.machine.rejectStartService(request, reason: reason, rejectedParams: [])
        }
        let service = request.serviceType
        guard let kind = connections[id]?.kind, configuration.multipleTransports.allows(service, on: kind) else {
            return reject("Service type: \(service.rawValue) disallowed by settings.")
        }
        let key = primaryKey(request.sessionID, on: id)
        let version = connections[key.connection]?.machine.activeSessions[key.session]?.version.major ?? 0
        guard apps[key] != nil, version >= 3 else { return reject("register the app (protocol 3 or later) before starting \(service)") }
        // One service of each type per session across its links (core's Connection::AddNewService).
        guard apps[key]?.streams[service]?.runningOn == nil else {
            return reject("Cannot start an unprotected service of type \(service.rawValue). ")
        }
        if let app = apps[key], let refusal = streamRefusal(request, app: app) {
            return connections[id]?.machine.rejectStartService(request, reason: refusal.reason, rejectedParams: refusal.rejected)
        }
        guard let accepted = try? connections[id]?.machine.acceptStartService(request, appID: apps[key]?.appID, now: clock.now) else {
            return reject("Cannot start an unprotected service of type \(service.rawValue). ")
        }
        // The stream is counted when its ACK goes out (a protected one's after the handshake).
        return accepted
    }

    /// Audio or video acknowledged on connection `id`.
    func streamStarted(_ service: ServiceType, sessionID: UInt8, payload: ControlPayload?, on id: Int) {
        let key = primaryKey(sessionID, on: id)
        apps[key]?.streams[service, default: StreamSnapshot()].runningOn = id == key.connection ? "primary" : "secondary"
        recordingStarted(service, key: key, payload: payload)
        emit(.streamStarted(connection: id, sessionID: sessionID, service: Self.streamName(service)))
    }

    /// Counts a stream's payload on the link it came over.
    func streamData(_ payload: [UInt8], service: ServiceType, sessionID: UInt8, on id: Int) {
        let count = payload.count
        let key = primaryKey(sessionID, on: id)
        guard apps[key]?.streams[service] != nil else { return }
        record(payload, service: service, key: key)
        if id == key.connection {
            apps[key]?.streams[service]?.bytesOnPrimary += count
        } else {
            apps[key]?.streams[service]?.bytesOnSecondary += count
        }
    }

    func streamEnded(_ service: ServiceType, sessionID: UInt8, on id: Int, reason: String) {
        let key = primaryKey(sessionID, on: id)
        let link = id == key.connection ? "primary" : "secondary"
        guard apps[key]?.streams[service]?.runningOn == link else { return }
        apps[key]?.streams[service]?.runningOn = nil
        emit(.streamEnded(connection: id, sessionID: sessionID, service: Self.streamName(service), reason: reason))
    }

    /// A closing link ends the streams that ran on it (core's OnSecondaryTransportEnded
    /// ends every service of the lost connection; the RPC session stays).
    func streamsEnded(withConnection id: Int, reason: String) {
        for (sessionID, connection) in secondaryConnections where connection == id {
            for service in [ServiceType.audio, .video] { streamEnded(service, sessionID: sessionID, on: id, reason: reason) }
        }
    }

    static func streamName(_ service: ServiceType) -> String {
        service == .audio ? "audio" : service == .video ? "video" : "service \(service.rawValue)"
    }

    /// "rpc", "audio" or "video", as events and scenarios name services.
    static func serviceName(_ service: ServiceType) -> String { service == .rpc ? "rpc" : streamName(service) }

    /// With secondaries on and no endpoint configured, listens on a free loopback port so
    /// the first TransportEventUpdate has an endpoint to announce (the embedded emulator,
    /// whose apps come over memory links). Does nothing otherwise, or the second time.
    public func listenForSecondaryIfNeeded() async {
        guard configuration.multipleTransports.enabled, configuration.multipleTransports.host == nil, listeningAddress == nil else { return }
        do {
            _ = try await listen(host: "127.0.0.1", port: 0)
        } catch {
            emit(.connectionClosed(connection: 0, reason: "no TCP endpoint for secondary transports: \(error)"))
        }
    }

    // MARK: - Driver: the network under the secondary

    /// Brings the TCP endpoint up, as when core's network interface gets an address: every
    /// eligible session gets a TransportEventUpdate with it. Without a configured endpoint or
    /// a TCP listener the emulator first listens on a free loopback port. Returns "host:port".
    @discardableResult
    public func offerSecondaryTransport() async throws -> String {
        if configuration.multipleTransports.host == nil, listeningAddress == nil {
            _ = try await listen(host: "127.0.0.1", port: 0)
        }
        tcpOffered = true
        announceToEverySession()
        return secondaryEndpoint.map { "\($0.host):\($0.port)" } ?? ""
    }

    /// Takes the TCP endpoint away, as when the network goes down: every eligible session gets
    /// a TransportEventUpdate with an empty address. Registered secondaries stay until cut.
    public func withdrawSecondaryTransport() {
        tcpOffered = false
        announceToEverySession()
    }

    /// Closes the secondary link of one app (by app id), or of every session: the Wi-Fi
    /// dropped, or the USB cable. Streams on it end; the RPC session stays. Returns how many
    /// links were cut.
    @discardableResult
    public func cutSecondaryTransport(appID: String? = nil) async -> Int {
        var cut = 0
        for (sessionID, id) in secondaryConnections.sorted(by: { $0.key < $1.key }) {
            if let appID, apps[primaryKey(sessionID, on: id)]?.appID != appID { continue }
            await closeConnectionAsUnplugged(id, reason: "the secondary transport was cut")
            cut += 1
        }
        return cut
    }
}
