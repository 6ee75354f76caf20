public import Logging

/// One link to a head unit: the transport, the protocol session and the RPC dispatcher.
///
/// It negotiates the protocol, matches responses to requests by correlation id, times out
/// requests, and fans incoming notifications out to any number of streams. When the link
/// drops, every pending request fails at once with ``SDLError/connectionLost(_:)``.
/// Requests leave in the order they were made, a cancelled request returns at once, and
/// nothing sleeps or polls: one timer wakes at the next deadline (a heartbeat, a timeout).
///
/// ```swift
/// let connection = SDLConnection(transport: TCPTransport(host: "127.0.0.1"))
/// try await connection.start()
/// let response = try await connection.send(Show(mainField1: "Hello"))
/// ```
public actor SDLConnection {
    /// Settings of a connection.
    public struct Configuration: Sendable {
        /// The protocol's settings: versions, payload limits, heartbeat, protection.
        public var protocolConfiguration: ProtocolConfiguration
        /// How long to wait for the StartServiceACK. sdl_core holds it until its HMI is
        /// ready (over 4 s was seen), so the default is generous.
        public var startTimeout: Duration
        /// Default time a request waits for its response (extended for requests that wait
        /// on the user, see ``RPCTimeouts``).
        public var requestTimeout: Duration
        /// How long ``SDLConnection/stop()`` waits for the EndServiceACK before closing anyway.
        public var stopTimeout: Duration
        /// Where the connection logs (module `protocol`).
        public var logger: Logger
        /// The time of timeouts and heartbeats; tests pass a clock they advance themselves.
        public var clock: LinkClock
        /// The secondary transports this app opens when the head unit offers them; nil for
        /// ``SecondaryTransportKind/defaults(forPrimary:)``, empty for none.
        public var secondaryTransports: Set<SecondaryTransportKind>?
        /// Makes the link for a secondary endpoint (tests and benches substitute their own).
        public var makeSecondaryTransport: @Sendable (SecondaryEndpoint) -> any SDLTransport
        /// How long to wait for RegisterSecondaryTransportACK before giving up (sdl_ios: 10 s).
        public var secondaryRegistrationTimeout: Duration
        /// After a secondary drops or cannot be opened, when to try it again (sdl_ios: 5 s);
        /// nil to wait for the head unit's next TransportEventUpdate instead.
        public var secondaryRetryDelay: Duration?
        /// Starts the protected RPC service by itself once the head unit's policy requires
        /// encryption of an RPC and the app left HMI level NONE (needs
        /// ``ProtocolConfiguration/security``), as sdl_ios's encryption manager does.
        public var protectsWhenRequired = true

        /// A configuration; every setting has a default.
        public init(protocolConfiguration: ProtocolConfiguration = ProtocolConfiguration(),
                    startTimeout: Duration = .seconds(15), requestTimeout: Duration = .seconds(10),
                    stopTimeout: Duration = .seconds(2),
                    logger: Logger = Logger(label: SDLLogModule.protocol.label),
                    clock: any Clock<Duration> = ContinuousClock(),
                    secondaryTransports: Set<SecondaryTransportKind>? = nil,
                    makeSecondaryTransport: @escaping @Sendable (SecondaryEndpoint) -> any SDLTransport = SecondaryEndpoint.defaultTransport,
                    secondaryRegistrationTimeout: Duration = .seconds(10), secondaryRetryDelay: Duration? = .seconds(5)) {
            self.protocolConfiguration = protocolConfiguration
            self.startTimeout = startTimeout
            self.requestTimeout = requestTimeout
            self.stopTimeout = stopTimeout
            self.logger = logger
            self.clock = LinkClock(clock)
            self.secondaryTransports = secondaryTransports
            self.makeSecondaryTransport = makeSecondaryTransport
            self.secondaryRegistrationTimeout = secondaryRegistrationTimeout
            self.secondaryRetryDelay = secondaryRetryDelay
        }
    }

    /// Where the connection is.
    public enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// The link is opening and StartService(RPC) is under way.
        case starting
        /// The RPC session is up.
        case started(SessionInfo)
        /// Closed, with the reason.
        case closed(String)
    }

    /// The primary link.
    public nonisolated let transport: any SDLTransport
    /// The settings it was made with.
    public let configuration: Configuration
    /// Where the connection is now.
    public private(set) var state: State = .idle

    /// The primary link.
    var driver: LinkDriver<AppProtocolMachine>
    /// Callers' unsafe continuations and submitted requests' settlers: the map removes an entry
    /// before it resumes it, so each is resumed once (a checked continuation cost an allocation
    /// per request).
    var pending = PendingRequests<RequestWaiter>()
    let broadcast = Broadcast<RPCEnvelope>()
    let transportBroadcast = Broadcast<TransportEvent>()
    private var startWaiter: (continuation: CheckedContinuation<SessionInfo, any Error>, deadline: ContinuousClock.Instant)?
    /// Audio and video: where each runs, the payload it was started with, who waits on it.
    var streams = StreamServices()
    /// The secondary link while one is being opened, registered or used.
    var secondary: SecondaryLink?
    var nextSecondaryID = 1
    /// The head unit's last TCP endpoint (TransportEventUpdate), kept until it withdraws it.
    var announcedTCP: SecondaryEndpoint?
    var secondaryRetry: Task<Void, Never>?
    var frameObserver: (@Sendable (FrameTraceEvent) -> Void)?
    /// Callers of stop() waiting for the EndServiceACK (stop may be called concurrently).
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var endDeadline: ContinuousClock.Instant?
    /// Why the first bytes that were not a frame were not: says what listens there instead.
    private var firstMalformed: String?
    /// The head unit's encryption policy and the handshake's last word.
    var protection = ConnectionProtection()

    /// A connection over `transport`; nothing happens until ``start()``.
    public init(transport: any SDLTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        self.driver = LinkDriver(transport: transport, configuration: configuration.protocolConfiguration,
                                 clock: configuration.clock)
        if let logging = Self.frameLogging(configuration.logger) { driver.tap = FrameTap(logging) }
    }

    /// At trace level every frame's header is logged: bytes are trace.
    static func frameLogging(_ logger: Logger) -> (@Sendable (FrameTraceEvent) -> Void)? {
        guard logger.logLevel <= .trace else { return nil }
        return { event in
            let header = event.frame.header
            logger.trace("\(event.direction == .sent ? "→" : "←") \(event.link.rawValue) v\(header.version) \(header.frameType) \(header.serviceType) info \(header.frameInfo) session \(header.sessionID) id \(header.messageID) \(header.dataSize) bytes")
        }
    }

    /// The session, once started.
    public var session: SessionInfo? {
        if case .started(let info) = state { return info }
        return nil
    }

    /// What happens to the session's links from now on (primary, secondary, moved services).
    /// The stream ends when the connection closes.
    public func transportEvents() -> AsyncStream<TransportEvent> {
        transportBroadcast.subscribe()
    }

    /// Calls `observer` with every frame sent and received, for traces.
    public func observeFrames(_ observer: @escaping @Sendable (FrameTraceEvent) -> Void) {
        let logging = Self.frameLogging(configuration.logger)
        let both: @Sendable (FrameTraceEvent) -> Void = { event in
            logging?(event)
            observer(event)
        }
        frameObserver = both
        driver.tap = FrameTap(both)
        secondary?.driver.tap = FrameTap(both, link: .secondary)
    }

    // MARK: - Start and stop

    /// Opens the transport and negotiates the RPC session.
    @discardableResult
    public func start() async throws(SDLError) -> SessionInfo {
        guard case .idle = state else {
            if case .started(let info) = state { return info }
            throw SDLError.invalidRequest("start() was already called on this connection")
        }
        state = .starting
        configuration.logger.debug("opening \(transport.description); StartService(RPC) offering protocol \(configuration.protocolConfiguration.maximumVersion)")
        do {
            try await transport.open()
        } catch {
            state = .closed(error.description)
            throw SDLError.transport(error)
        }
        driver.io.start(
            onBytes: { [weak self] chunk in await self?.received(chunk) },
            onDeadline: { [weak self] in await self?.deadlineReached() },
            onClosed: { [weak self] reason in await self?.linkLost(reason ?? "the head unit closed the connection") })
        do {
            let actions = try driver.perform { machine, now throws(ProtocolStateError) in try machine.startSession(now: now) }
            return try await withCheckedThrowingContinuation { continuation in
                let deadline = now + configuration.startTimeout
                startWaiter = (continuation, deadline)
                handle(actions)
                rearm()
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.invalidRequest("\(error)")
        }
    }

    /// Ends the RPC session (EndService with the hash id) and closes the link. A head unit
    /// that does not answer within ``Configuration/stopTimeout`` is closed on anyway.
    public func stop() async {
        if case .started = state,
           let actions = try? driver.perform({ machine, now throws(ProtocolStateError) in try machine.endService(.rpc, now: now) }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                endWaiters.append(continuation)
                if endDeadline == nil { endDeadline = now + configuration.stopTimeout }
                handle(actions)
                rearm()
            }
        }
        await shutdown(reason: "stopped by the app")
    }

    // MARK: - Internals

    func rearm() {
        // No array of candidates: this runs twice per message, and the array was a malloc each time.
        var earliest = minimum(pending.nextDeadline, startWaiter?.deadline)
        earliest = minimum(earliest, endWaiters.isEmpty ? nil : endDeadline)
        earliest = minimum(earliest, streams.nextDeadline)
        driver.rearm(other: earliest)
    }

    /// The link's clock (emulated in tests). Read from the configuration: a computed property
    /// of the driver would copy the whole driver on every call.
    var now: ContinuousClock.Instant { configuration.clock.now }

    private func received(_ chunk: [UInt8]) {
        guard state != .idle, !isClosed else { return }
        handle(driver.receive(chunk))
        rearm()
    }

    private func deadlineReached() {
        guard !isClosed else { return }
        let now = self.now
        if let waiter = startWaiter, waiter.deadline <= now {
            let seconds = configuration.startTimeout.seconds
            if let firstMalformed {
                failStart(.notSDL(seconds: seconds, droppedBytes: driver.machine.droppedByteCount, firstProblem: firstMalformed))
            } else {
                failStart(.startTimedOut(seconds: seconds))
            }
            return
        }
        if let endDeadline, endDeadline <= now {
            self.endDeadline = nil
            resumeEndWaiter()
        }
        streams.expireEnds(now: now)
        for (id, entry) in pending.removeExpired(now: now) {
            entry.waiter.resume(throwing: SDLError.requestTimedOut(function: entry.functionName, correlationID: id, seconds: entry.limit.seconds))
        }
        if case .started = state { handle(driver.tick()) }
        rearm()
    }

    func cancelRequest(_ correlationID: Int32) {
        guard let entry = pending.remove(correlationID) else { return }
        entry.waiter.resume(throwing: SDLError.cancelled(function: entry.functionName))
    }

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Acts on what a link's machine reported (its bytes are already queued by the driver).
    func handle(_ actions: [ProtocolAction], from role: TransportRole = .primary) {
        for action in actions {
            switch action {
            case .send:
                break
            case .sessionStarted(let info):
                state = .started(info)
                configuration.logger.info("session \(info.sessionID) started, protocol \(info.version), \(info.maximumSendPayload) bytes per frame")
                startWaiter?.continuation.resume(returning: info)
                startWaiter = nil
                sessionStartedOnPrimary(info)
            case .sessionStartFailed(let reason, let rejected):
                failStart(.sessionRejected(reason: reason, rejectedParams: rejected))
            case .sessionEnded:
                // Close the link first: a caller of stop() must find it closed when it returns.
                Task { await self.shutdown(reason: "the session ended"); self.resumeEndWaiter() }
            case .serviceStarted(_, let service, let payload, _):
                streams.startWaiters.removeValue(forKey: service)?.resume(returning: payload)
            case .securityFailed(_, let failure):
                securityFailed(failure)
            case .serviceStartFailed(_, let service, let reason, let rejected):
                streams.startWaiters.removeValue(forKey: service)?
                    .resume(throwing: SDLError.sessionRejected(reason: reason, rejectedParams: rejected))
            case .serviceEnded(_, let service), .serviceEndFailed(_, let service, _):
                serviceEnded(service, on: role)
            case .message(_, let service, let payload, _):
                deliver(payload, service: service)
            case .heartbeatTimedOut:
                if role == .secondary {
                    secondaryLost("heartbeat timeout on the secondary", link: secondary?.id)
                } else {
                    Task { await self.linkLost("heartbeat timeout: nothing received from the head unit") }
                }
            case .violation(.malformedFrame(let problem)):
                configuration.logger.warning("malformed data from the head unit on the \(role.rawValue): \(problem)")
                if role == .primary, firstMalformed == nil { firstMalformed = problem.description }
            case .violation(let violation):
                configuration.logger.debug("\(violation)")
            case .transportEventUpdate(let address, let port):
                transportEventUpdated(address: address, port: port)
            case .secondaryTransportRegistered:
                secondaryRegistered()
            case .secondaryTransportRejected(_, let reason):
                secondaryRefused(reason ?? "the head unit sent RegisterSecondaryTransportNAK without a reason")
            case .startServiceRequested, .secondaryTransportRequested:
                configuration.logger.debug("protocol event: \(action)")
            }
        }
    }

    private func deliver(_ payload: [UInt8], service: ServiceType) {
        guard service == .rpc || service == .hybrid else { return }
        let envelope: RPCEnvelope
        do {
            envelope = try RPCEnvelope(decoding: payload)
        } catch {
            configuration.logger.warning("undecodable RPC dropped: \(error)")
            return
        }
        if envelope.messageType == .response, let waiting = pending.remove(envelope.correlationID) {
            let elapsed = (waiting.limit - (waiting.deadline - now)).seconds * 1000
            SDLLog.rpc.debug("← \(envelope.functionName) #\(envelope.correlationID) \(envelope.resultCode ?? "?") in \(Int(elapsed)) ms")
            waiting.waiter.resume(returning: envelope)
        } else if envelope.messageType == .notification {
            SDLLog.rpc.debug("⇠ \(envelope.functionName)")
            followEncryptionPolicy(envelope)
        }
        broadcast.yield(envelope)
    }

    private func failStart(_ error: SDLError) {
        guard let waiter = startWaiter else { return }
        startWaiter = nil
        waiter.continuation.resume(throwing: error)
        Task { await shutdown(reason: error.description) }
    }

    private func resumeEndWaiter() {
        let waiting = endWaiters
        endWaiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    private func linkLost(_ reason: String) async {
        if isClosed { return }
        configuration.logger.info("link lost: \(reason)")
        await shutdown(reason: reason)
    }

    private func shutdown(reason: String) async {
        if isClosed { return }
        let wasStarted = session != nil
        state = .closed(reason)
        driver.machine.reset()
        for entry in pending.removeAll() { entry.waiter.resume(throwing: SDLError.connectionLost(reason)) }
        streams.fail(with: SDLError.connectionLost(reason))
        secondaryRetry?.cancel()
        // The primary gone, the secondary's registration is void (protocol spec §4.6.4): close it too.
        if let link = secondary {
            secondary = nil
            await link.driver.io.close()
        }
        if wasStarted { transportBroadcast.yield(.primaryLost(reason)) }
        transportBroadcast.finish()
        // Closed before StartService was answered: a port that takes connections and drops them.
        startWaiter?.continuation.resume(throwing: SDLError.connectionLost("\(reason), before StartService was answered: is this an SDL head unit?"))
        startWaiter = nil
        // A stop waiting for EndServiceACK is done: no answer comes now, and closing the link
        // below stops the timer that would have ended its wait.
        resumeEndWaiter()
        broadcast.finish()
        await driver.io.close()
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension RPCRequest {
    /// Checks this request against the spec, sends its dynamic form with `send`, and decodes
    /// the response: the one typed path of SDLConnection and of SDLManager's request route.
    func exchange(
        _ send: @Sendable (_ parameters: JSONObject, _ bulkData: [UInt8]) async throws(SDLError) -> RPCEnvelope
    ) async throws(SDLError) -> Response {
        let envelope = try await send(checkedParameters(), bulkData ?? [])
        return try Self.decodeResponse(envelope)
    }

    /// The parameters, checked against the spec.
    func checkedParameters() throws(SDLError) -> JSONObject {
        let parameters = json.objectValue ?? [:]
        do {
            try RPCSpec.shared.validate(function: Self.functionName, messageType: .request, parameters: parameters)
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
        return parameters
    }

    /// The typed response in `envelope`.
    static func decodeResponse(_ envelope: RPCEnvelope) throws(SDLError) -> Response {
        do {
            return try envelope.decoded(as: Response.self)
        } catch {
            throw SDLError.invalidResponse(error.description)
        }
    }
}

extension SDLConnection {
    /// Where a task that drives this connection runs without a thread hop per response:
    /// the primary link's reader thread (TCP, Bluetooth); nil for other links.
    ///
    /// A response normally resumes its caller on a thread of Swift's global pool, woken for
    /// it. A task that prefers this executor is resumed on the reader thread, which is awake
    /// anyway: a round trip then wakes no other thread of this process and keeps its work on
    /// one core. Use it for tasks that send request after request, such as a test rig's
    /// scenario (``SDLFileManager`` runs its uploads there):
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(connection.linkExecutor) {
    ///     for step in steps { _ = try await connection.send(step) }
    /// }
    /// ```
    ///
    /// Only jobs that become ready on the reader thread run there; everything else runs on
    /// the global pool as usual, so a busy task delays reads at most by its own work.
    public nonisolated var linkExecutor: (any TaskExecutor)? {
        StreamSocketTransport.under(transport)?.readerExecutor
    }
}
