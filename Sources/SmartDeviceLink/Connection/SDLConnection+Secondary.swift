/// The secondary link of a session (protocol spec §4.6): opened where the head unit says, registered
/// for the primary's session, then carrying the audio and video the head unit prefers there.
struct SecondaryLink {
    /// Tells this link's callbacks from those of a link it replaced.
    let id: Int
    let endpoint: SecondaryEndpoint
    var driver: LinkDriver<AppProtocolMachine>
    var registered = false
    var registrationDeadline: ContinuousClock.Instant?
}

extension SDLConnection {
    // MARK: - Secondary transport

    /// The kinds this connection may open: the configured ones, or the primary's defaults.
    var allowedSecondaries: Set<SecondaryTransportKind> {
        configuration.secondaryTransports ?? SecondaryTransportKind.defaults(forPrimary: transport.kind)
    }

    /// The RPC session is up: read what the head unit offers and take it up.
    func sessionStartedOnPrimary(_ info: SessionInfo) {
        streams.routing = ServiceRouting(ack: info.ackPayload)
        transportBroadcast.yield(.primaryConnected(transport.description))
        // Before 5.1.0 there are no secondary transports (protocol spec §4.6).
        guard info.version >= ProtocolVersion(5, 1, 0) else { return }
        if transport.kind != .usb { offer(.usb) }
        // A TransportEventUpdate that came before the ACK was kept for now (as sdl_ios does).
        if let announcedTCP { offer(announcedTCP) }
    }

    /// TransportEventUpdate: the head unit's TCP endpoint came, moved or went.
    func transportEventUpdated(address: String?, port: Int32?) {
        guard let address, !address.isEmpty else {
            // An empty address means TCP is no longer available (protocol spec §4.6.2; core omits the port).
            guard announcedTCP != nil else { return }
            announcedTCP = nil
            transportBroadcast.yield(.secondaryWithdrawn)
            if let link = secondary, link.endpoint.kind == .tcp {
                Task { await self.retireSecondary(link.id, reason: "the head unit withdrew its TCP endpoint") }
            }
            return
        }
        guard let port, let tcpPort = UInt16(exactly: port), tcpPort > 0 else {
            configuration.logger.warning("TransportEventUpdate for \(address) without a usable port (\(port.map(String.init) ?? "none")) ignored")
            return
        }
        let endpoint = SecondaryEndpoint.tcp(host: address, port: tcpPort)
        let repeated = endpoint == announcedTCP
        announcedTCP = endpoint
        guard session != nil, !(repeated && secondary != nil) else { return }
        // An announcement is the head unit's word that the endpoint is up: no need to wait for a retry.
        secondaryRetry?.cancel()
        offer(endpoint)
    }

    /// Opens the offered secondary when the head unit named its kind in the ACK and this app
    /// allows it. A secondary already open elsewhere is left for the new endpoint.
    private func offer(_ endpoint: SecondaryEndpoint) {
        guard streams.routing.offered.contains(endpoint.kind) else { return }
        guard allowedSecondaries.contains(endpoint.kind) else {
            let allowed = allowedSecondaries.map(\.rawValue).sorted()
            configuration.logger.debug("secondary \(endpoint) offered, not taken: this app allows \(allowed.isEmpty ? "none" : allowed.joined(separator: ", "))")
            return
        }
        transportBroadcast.yield(.secondaryOffered(endpoint))
        guard let link = secondary else { return openSecondary(endpoint) }
        if link.endpoint == endpoint { return }
        Task {
            await self.retireSecondary(link.id, reason: "the head unit announced \(endpoint) instead")
            self.openSecondary(endpoint)
        }
    }

    /// Leaves a secondary that still works: its services end there first and start again on
    /// the primary where allowed, so the head unit never sees a service on two links.
    private func retireSecondary(_ id: Int, reason: String) async {
        for service in streams.running(on: .secondary) where secondary?.id == id {
            if streams.routing.preference(for: service).contains(.primary) {
                await move(service, to: .primary)
            } else {
                streams.place(service, .moving)
                await end(service, on: .secondary)
                stop(service, reason: "\(reason), and the head unit allows \(service) only on the secondary")
            }
        }
        secondaryLost(reason, link: id, retry: false)
    }

    private func openSecondary(_ endpoint: SecondaryEndpoint) {
        guard case .started = state, secondary == nil else { return }
        var link = SecondaryLink(
            id: nextSecondaryID, endpoint: endpoint,
            driver: LinkDriver(transport: configuration.makeSecondaryTransport(endpoint),
                               configuration: configuration.protocolConfiguration, clock: configuration.clock))
        nextSecondaryID += 1
        if let observer = frameObserver ?? Self.frameLogging(configuration.logger) { link.driver.tap = FrameTap(observer, link: .secondary) }
        secondary = link
        Task { await self.register(link.id) }
    }

    /// Connects the secondary and sends RegisterSecondaryTransport with the primary's session id.
    private func register(_ id: Int) async {
        guard let io = secondary.flatMap({ $0.id == id ? $0.driver.io : nil }), let endpoint = secondary?.endpoint else { return }
        do {
            try await io.transport.open()
        } catch {
            guard secondary?.id == id else { return }
            secondary = nil
            transportBroadcast.yield(.secondaryRejected("cannot open \(endpoint): \(error)"))
            scheduleSecondaryRetry()
            return
        }
        guard secondary?.id == id, case .started(let info) = state else {
            await io.transport.close()
            return
        }
        io.start(
            onBytes: { [weak self] chunk in await self?.secondaryReceived(chunk, link: id) },
            onDeadline: { [weak self] in await self?.secondaryDeadline(link: id) },
            onClosed: { [weak self] reason in await self?.secondaryLost(reason ?? "the head unit closed it", link: id) })
        let actions = (try? secondary?.driver.perform { machine, now throws(ProtocolStateError) in
            machine.registerSecondaryTransport(for: info, now: now)
        }) ?? []
        secondary?.registrationDeadline = now + configuration.secondaryRegistrationTimeout
        handle(actions, from: .secondary)
        rearmSecondary()
    }

    private func secondaryReceived(_ chunk: [UInt8], link id: Int) {
        guard secondary?.id == id, let actions = secondary?.driver.receive(chunk) else { return }
        handle(actions, from: .secondary)
        rearmSecondary()
    }

    private func secondaryDeadline(link id: Int) {
        guard let link = secondary, link.id == id else { return }
        if let deadline = link.registrationDeadline, deadline <= now {
            let seconds = configuration.secondaryRegistrationTimeout.seconds.formatted2
            secondaryLost("no RegisterSecondaryTransportACK within \(seconds) s", link: id)
            return
        }
        if let actions = secondary?.driver.tick() { handle(actions, from: .secondary) }
        rearmSecondary()
    }

    private func rearmSecondary() {
        let deadline = secondary?.registrationDeadline  // read before the in-place access begins
        secondary?.driver.rearm(other: deadline)
    }

    /// RegisterSecondaryTransportACK: the link is usable; services it is preferred for move there.
    func secondaryRegistered() {
        guard let link = secondary, !link.registered else { return }
        secondary?.registered = true
        secondary?.registrationDeadline = nil
        transportBroadcast.yield(.secondaryRegistered(link.driver.io.transport.description))
        Task { await self.moveServicesToPreferredLinks() }
    }

    /// RegisterSecondaryTransportNAK: retrying would get the same answer, so the next try
    /// waits for the head unit's next TransportEventUpdate.
    func secondaryRefused(_ reason: String) {
        guard let link = secondary else { return }
        secondary = nil
        announcedTCP = nil
        transportBroadcast.yield(.secondaryRejected(reason))
        Task { await link.driver.io.close() }
    }

    /// The secondary dropped (or failed before its ACK). As core ends every service that ran
    /// on it, those the head unit also allows on the primary start again there.
    func secondaryLost(_ reason: String, link id: Int?, retry: Bool = true) {
        guard let link = secondary, link.id == id else { return }
        secondary = nil
        Task { await link.driver.io.close() }
        transportBroadcast.yield(link.registered ? .secondaryLost(reason) : .secondaryRejected(reason))
        for (service, placement) in streams.placement {
            switch placement {
            case .running(.secondary):
                if streams.routing.preference(for: service).contains(.primary) {
                    streams.place(service, .moving)
                    Task { await self.restart(service, on: .primary, because: "the secondary dropped and the primary refused it") }
                } else {
                    stop(service, reason: "the secondary transport dropped (\(reason)) and the head unit allows \(service) only there")
                }
            case .starting(.secondary):
                streams.startWaiters.removeValue(forKey: service)?.resume(throwing: SDLError.connectionLost("secondary transport: \(reason)"))
            default:
                break
            }
        }
        // An EndService sent on the lost link is answered by its loss.
        for service in streams.endWaiters.keys where streams.placement[service] == .moving {
            streams.endWaiters.removeValue(forKey: service)?.continuation.resume()
        }
        if retry { scheduleSecondaryRetry() }
    }

    /// Tries the secondary again after the configured delay (sdl_ios waits 5 s).
    private func scheduleSecondaryRetry() {
        guard let delay = configuration.secondaryRetryDelay else { return }
        secondaryRetry?.cancel()
        let clock = configuration.clock
        secondaryRetry = Task { [weak self] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.retrySecondary()
        }
    }

    private func retrySecondary() {
        guard secondary == nil, case .started = state else { return }
        if let announcedTCP, takes(.tcp) {
            openSecondary(announcedTCP)
        } else if transport.kind != .usb, takes(.usb) {
            openSecondary(.usb)
        }
    }

    /// Whether the head unit offers this kind of secondary and this app opens it.
    private func takes(_ kind: SecondaryTransportKind) -> Bool {
        streams.routing.offered.contains(kind) && allowedSecondaries.contains(kind)
    }

    /// Puts each running service on the best link up now, in the head unit's order.
    private func moveServicesToPreferredLinks() async {
        for service in [ServiceType.audio, .video] where !streams.protectedRequested.contains(service) {
            guard case .running(let role)? = streams.placement[service],
                  let best = streams.routing.route(for: service, secondaryUp: secondary?.registered == true), best != role
            else { continue }
            await move(service, to: best)
        }
    }
}
