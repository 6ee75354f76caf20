/// Audio and video: where each runs, what it was started with, and who waits on it.
struct StreamServices {
    enum Placement: Equatable {
        case starting(TransportRole)
        case running(TransportRole)
        /// Being ended on one link to start again on the other.
        case moving
    }

    var routing = ServiceRouting()
    var placement: [ServiceType: Placement] = [:]
    /// The StartService payload of each started service, to start it again after a move.
    var payloads: [ServiceType: ControlPayload] = [:]
    /// Services asked for protected: they stay on the primary, whose session holds the TLS session.
    var protectedRequested: Set<ServiceType> = []
    /// Why a service that had been running is not any more, for the next send's error.
    var stopped: [ServiceType: String] = [:]
    var startWaiters: [ServiceType: CheckedContinuation<ControlPayload?, any Error>] = [:]
    var endWaiters: [ServiceType: (continuation: CheckedContinuation<Void, Never>, deadline: ContinuousClock.Instant)] = [:]
    /// Senders waiting while a service starts or moves.
    var settleWaiters: [ServiceType: [CheckedContinuation<Void, Never>]] = [:]

    func running(on role: TransportRole) -> [ServiceType] {
        placement.filter { $0.value == .running(role) }.map(\.key).sorted { $0.rawValue < $1.rawValue }
    }

    mutating func place(_ service: ServiceType, _ new: Placement?) {
        placement[service] = new
        switch new {
        case .running?:
            stopped[service] = nil
        case nil:
            break
        case .starting?, .moving?:
            return
        }
        for waiter in settleWaiters.removeValue(forKey: service) ?? [] { waiter.resume() }
    }

    var nextDeadline: ContinuousClock.Instant? { endWaiters.values.lazy.map { $0.deadline }.min() }

    /// An EndService left unanswered past its deadline counts as done.
    mutating func expireEnds(now: ContinuousClock.Instant) {
        for (service, waiter) in endWaiters where waiter.deadline <= now {
            endWaiters[service] = nil
            waiter.continuation.resume()
        }
    }

    /// The session is over: everyone waiting is told so.
    mutating func fail(with error: SDLError) {
        for waiter in startWaiters.values { waiter.resume(throwing: error) }
        for waiter in endWaiters.values { waiter.continuation.resume() }
        let settling = settleWaiters.values.flatMap { $0 }
        startWaiters.removeAll()
        endWaiters.removeAll()
        settleWaiters.removeAll()
        placement.removeAll()
        for waiter in settling { waiter.resume() }
    }
}

extension SDLConnection {
    // MARK: - Audio and video

    /// Starts audio or video (after registration) and returns the head unit's ACK payload.
    ///
    /// The service starts on the link the head unit prefers among those up now (its
    /// `audioServiceTransports`/`videoServiceTransports`), and moves by itself when the
    /// secondary comes or goes: follow ``transportEvents()`` to see it.
    ///
    /// `protected`: the head unit runs its TLS handshake with this app first (see
    /// ``startProtectedRPC()``) and, when it succeeds, every frame of the service is a record.
    /// sdl_core starts a new service unprotected when the handshake fails, unless its
    /// ForceProtectedService lists it: ``isProtected(_:)`` says which it was. A protected
    /// service stays on the primary link.
    public func startService(_ service: ServiceType, payload: ControlPayload? = nil, protected: Bool = false) async throws(SDLError) -> ControlPayload? {
        guard case .started = state else { throw SDLError.notConnected }
        guard service == .audio || service == .video else {
            throw SDLError.invalidRequest("only audio and video are started on a running session; RPC starts with start(), protected with startProtectedRPC()")
        }
        guard streams.placement[service] == nil else { throw SDLError.invalidRequest("\(service) is already started") }
        if protected { try requireSecurity(for: service) }
        guard let role = protected ? (streams.routing.route(for: service, secondaryUp: false).map { _ in .primary })
                                   : streams.routing.route(for: service, secondaryUp: secondary?.registered == true) else {
            throw SDLError.invalidRequest("the head unit allows \(service) only on the secondary transport, which is "
                                          + (protected ? "not where protected services run" : "not registered; wait for TransportEvent.secondaryRegistered"))
        }
        streams.payloads[service] = payload
        if protected { streams.protectedRequested.insert(service) } else { streams.protectedRequested.remove(service) }
        return try await start(service, on: role)
    }

    /// The link `service` runs on; nil while it is not running (or is starting or moving).
    public func link(of service: ServiceType) -> TransportRole? {
        if case .running(let role) = streams.placement[service] { return role }
        return nil
    }

    /// Whether `service` was started and has not ended (it may be moving between links).
    func isStarted(_ service: ServiceType) -> Bool { streams.placement[service] != nil }

    /// Sends raw service data (audio PCM, video) on a started service, on whichever link it
    /// runs. While the service starts or moves, the data waits for it. Waits while the link is
    /// behind by more than a megabyte, so a slow link does not grow memory without bound.
    public func sendServiceData(_ data: [UInt8], on service: ServiceType) async throws(SDLError) {
        let role = try await settledRole(of: service)
        let actions = try perform(on: role) { machine, now throws(ProtocolStateError) in try machine.send(data, service: service, now: now) }
        handle(actions, from: role)
        await io(of: role)?.waitForRoom()
    }

    /// Ends audio or video and waits for the head unit's EndServiceACK (at most ``Configuration/stopTimeout``).
    public func endService(_ service: ServiceType) async throws(SDLError) {
        let role = try await settledRole(of: service)
        streams.place(service, .moving)
        await end(service, on: role)
        streams.payloads[service] = nil
        streams.place(service, nil)
    }

    /// The link a service runs on, once it is not starting or moving.
    private func settledRole(of service: ServiceType) async throws(SDLError) -> TransportRole {
        while true {
            guard case .started = state else { throw SDLError.notConnected }
            switch streams.placement[service] {
            case .running(let role):
                return role
            case .starting, .moving:
                await withCheckedContinuation { streams.settleWaiters[service, default: []].append($0) }
            case nil:
                throw SDLError.invalidRequest(streams.stopped[service] ?? "\(service) is not started: call startService(\(service)) first")
            }
        }
    }

    /// Sends StartService on `role` and waits for the answer.
    func start(_ service: ServiceType, on role: TransportRole) async throws(SDLError) -> ControlPayload? {
        streams.place(service, .starting(role))
        do {
            let payload = streams.payloads[service]
            if streams.protectedRequested.contains(service) {
                let ack = try await startProtected(service, payload: payload, on: role)
                streams.place(service, .running(role))
                if !isProtected(service) {
                    let why = protection.lastFailure.map { " (\($0))" } ?? ""
                    configuration.logger.warning("\(service) started unprotected: the head unit's handshake with this app failed\(why)")
                }
                return ack
            }
            let actions = try perform(on: role) { machine, now throws(ProtocolStateError) in
                try machine.startService(service, payload: payload, now: now)
            }
            let ack = try await withCheckedThrowingContinuation { continuation in
                streams.startWaiters[service] = continuation
                handle(actions, from: role)
            }
            streams.place(service, .running(role))
            return ack
        } catch let error as SDLError {
            streams.place(service, nil)
            throw error
        } catch {
            streams.place(service, nil)
            throw SDLError.connectionLost("\(error)")
        }
    }

    /// Sends EndService on `role` and waits for its ACK or NAK, or for the stop timeout.
    func end(_ service: ServiceType, on role: TransportRole) async {
        guard let actions = try? perform(on: role, { machine, now throws(ProtocolStateError) in try machine.endService(service, now: now) })
        else { return }
        await withCheckedContinuation { continuation in
            streams.endWaiters[service] = (continuation, now + configuration.stopTimeout)
            handle(actions, from: role)
            rearm()
        }
    }

    /// Ends `service` where it runs and starts it on `role`, reporting the outcome.
    func move(_ service: ServiceType, to role: TransportRole) async {
        guard case .running(let from) = streams.placement[service], from != role else { return }
        streams.place(service, .moving)
        await end(service, on: from)
        await restart(service, on: role, because: "its move to the \(role.rawValue) failed")
    }

    /// Starts a service that lost its link again on `role`. A head unit that has not yet
    /// seen the old link drop still counts the service there and refuses it; it gets two
    /// more tries, 250 and 500 ms later.
    func restart(_ service: ServiceType, on role: TransportRole, because why: String) async {
        for attempt in 1...3 {
            do {
                _ = try await start(service, on: role)
                transportBroadcast.yield(.serviceMoved(service, to: role))
                return
            } catch {
                guard attempt < 3, case .sessionRejected = error, case .started = state else {
                    return stop(service, reason: "\(why): \(error)")
                }
                streams.place(service, .moving)
                try? await configuration.clock.sleep(for: .milliseconds(250 * attempt))
            }
        }
    }

    /// A service is over and will not come back by itself.
    func stop(_ service: ServiceType, reason: String) {
        streams.stopped[service] = "\(service) stopped: \(reason); start it again with startService(\(service))"
        streams.place(service, nil)
        transportBroadcast.yield(.serviceStopped(service, reason: reason))
    }

    /// EndServiceACK/NAK for our EndService, or an EndService the head unit sent itself.
    func serviceEnded(_ service: ServiceType, on role: TransportRole) {
        if let waiter = streams.endWaiters.removeValue(forKey: service) {
            waiter.continuation.resume()
        } else if streams.placement[service] == .running(role) {
            stop(service, reason: "the head unit ended it")
        }
    }

    /// Runs a machine operation on the primary's or the secondary's link.
    func perform(
        on role: TransportRole, _ operation: (inout AppProtocolMachine, ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction]
    ) throws(SDLError) -> [ProtocolAction] {
        do throws(ProtocolStateError) {
            switch role {
            case .primary:
                return try driver.perform(operation)
            case .secondary:
                guard let actions = try secondary?.driver.perform(operation) else {
                    throw ProtocolStateError("the secondary transport is not connected")
                }
                return actions
            }
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
    }

    func io(of role: TransportRole) -> LinkIO? {
        role == .primary ? driver.io : secondary?.driver.io
    }
}
