public import Logging

/// An RPC message as it arrived (or was sent), in its dynamic form.
public struct RPCEnvelope: Sendable, Hashable {
    public var messageType: RPCMessageType
    public var functionID: UInt32
    /// The spec name of the function, when this spec knows the id.
    public var functionName: String
    public var correlationID: Int32
    public var parameters: JSONObject
    public var bulkData: [UInt8]

    public init(messageType: RPCMessageType, functionID: UInt32, functionName: String, correlationID: Int32,
                parameters: JSONObject, bulkData: [UInt8] = []) {
        self.messageType = messageType
        self.functionID = functionID
        self.functionName = functionName
        self.correlationID = correlationID
        self.parameters = parameters
        self.bulkData = bulkData
    }

    /// For responses: the `success` parameter.
    public var success: Bool? { parameters["success"]?.boolValue }
    /// For responses: the `resultCode` parameter.
    public var resultCode: String? { parameters["resultCode"]?.stringValue }
}

extension RPCEnvelope {
    /// The typed form of this message, with its bulk data.
    public func decoded<Message: RPCMessage>(as type: Message.Type) throws(RPCDecodingError) -> Message {
        var value = try Message(json: .object(parameters), path: Message.functionName)
        if !bulkData.isEmpty { value.bulkData = bulkData }
        return value
    }
}

extension AsyncStream where Element == RPCEnvelope {
    /// The notifications of one kind in this stream, decoded; undecodable ones are logged and skipped.
    public func typed<Notification: RPCNotification>(_ type: Notification.Type, logger: Logger) -> AsyncStream<Notification> {
        let all = self
        return AsyncStream<Notification> { continuation in
            let task = Task {
                for await envelope in all where envelope.messageType == .notification && envelope.functionID == Notification.functionID {
                    do {
                        continuation.yield(try envelope.decoded(as: Notification.self))
                    } catch {
                        logger.warning("dropping undecodable \(Notification.functionName): \(error)")
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A frame seen on the link, for traces (`sdl-run --trace`).
public struct FrameTraceEvent: Sendable {
    public enum Direction: String, Sendable { case sent, received }
    public var direction: Direction
    public var time: ContinuousClock.Instant
    public var frame: Frame
}

/// One link to a head unit: the transport, the protocol session and the RPC dispatcher.
///
/// It negotiates the protocol, matches responses to requests by correlation id, times out
/// requests, and fans incoming notifications out to any number of streams. When the link
/// drops, every pending request fails at once with ``SDLError/connectionLost(_:)``.
///
/// ```swift
/// let connection = SDLConnection(transport: TCPTransport(host: "127.0.0.1"))
/// try await connection.start()
/// let response = try await connection.send(Show(mainField1: "Hello"))
/// ```
public actor SDLConnection {
    /// Settings of a connection.
    public struct Configuration: Sendable {
        public var protocolConfiguration: ProtocolConfiguration
        /// How long to wait for the StartServiceACK. sdl_core holds it until its HMI is
        /// ready (over 4 s was seen), so the default is generous.
        public var startTimeout: Duration
        /// Default time a request waits for its response (extended for requests that wait
        /// on the user, see ``RPCTimeouts``).
        public var requestTimeout: Duration
        public var logger: Logger

        public init(protocolConfiguration: ProtocolConfiguration = ProtocolConfiguration(),
                    startTimeout: Duration = .seconds(15), requestTimeout: Duration = .seconds(10),
                    logger: Logger = Logger(label: "SmartDeviceLink.protocol")) {
            self.protocolConfiguration = protocolConfiguration
            self.startTimeout = startTimeout
            self.requestTimeout = requestTimeout
            self.logger = logger
        }
    }

    public enum State: Sendable, Equatable {
        case idle
        case starting
        case started(SessionInfo)
        case closed(String)
    }

    public nonisolated let transport: any SDLTransport
    public let configuration: Configuration
    public private(set) var state: State = .idle

    private var machine: ProtocolStateMachine
    private var pending: [Int32: Pending] = [:]
    private var lastCorrelationID: Int32 = 0
    private var subscribers: [Int: AsyncStream<RPCEnvelope>.Continuation] = [:]
    private var nextSubscriberID = 0
    private var startWaiter: CheckedContinuation<SessionInfo, any Error>?
    private var serviceWaiters: [ServiceType: CheckedContinuation<ControlPayload?, any Error>] = [:]
    /// Callers of stop() waiting for the EndServiceACK (stop may be called concurrently).
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var tasks: [Task<Void, Never>] = []
    private var traceObserver: (@Sendable (FrameTraceEvent) -> Void)?
    private var traceDecoders = (sent: FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1)), received: FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1)))
    private let clock = ContinuousClock()

    private struct Pending {
        var functionName: String
        var continuation: CheckedContinuation<RPCEnvelope, any Error>
        var timeoutTask: Task<Void, Never>
    }

    public init(transport: any SDLTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        self.machine = ProtocolStateMachine(role: .app, configuration: configuration.protocolConfiguration)
    }

    /// The session, once started.
    public var session: SessionInfo? {
        if case .started(let info) = state { return info }
        return nil
    }

    /// Calls `observer` with every frame sent and received, for traces.
    public func observeFrames(_ observer: @escaping @Sendable (FrameTraceEvent) -> Void) {
        traceObserver = observer
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
        do {
            try await transport.open()
        } catch {
            state = .closed(error.description)
            throw SDLError.transport(error)
        }
        let stream = transport.incoming
        tasks.append(Task { [weak self] in
            do {
                for try await chunk in stream { await self?.received(chunk) }
                await self?.linkLost("the head unit closed the connection")
            } catch {
                await self?.linkLost((error as? TransportError)?.description ?? "\(error)")
            }
        })
        tasks.append(Task { [weak self] in
            // Drives heartbeats and reassembly expiry; 100 ms as core checks heartbeats.
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                guard let self else { return }
                await self.tick()
            }
        })
        let timeout = configuration.startTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { await self?.failStart(.startTimedOut(seconds: timeout.seconds)) }
        }
        defer { timer.cancel() }
        do {
            let actions = try machine.startSession(now: clock.now)
            return try await withCheckedThrowingContinuation { continuation in
                startWaiter = continuation
                Task { await self.perform(actions) }
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.invalidRequest("\(error)")
        }
    }

    /// Ends the RPC session (EndService with the hash id) and closes the link.
    public func stop() async {
        if case .started = state, let actions = try? machine.endService(.rpc, now: clock.now) {
            // Wait briefly for the EndServiceACK; a head unit that never answers must not hang us.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                endWaiters.append(continuation)
                Task {
                    await self.perform(actions)
                    try? await Task.sleep(for: .seconds(2))
                    self.resumeEndWaiter()
                }
            }
        }
        await shutdown(reason: "stopped by the app")
    }

    // MARK: - Services

    /// Starts audio or video (after registration) and returns the head unit's ACK payload.
    public func startService(_ service: ServiceType, payload: ControlPayload? = nil) async throws(SDLError) -> ControlPayload? {
        guard case .started = state else { throw SDLError.notConnected }
        do {
            let actions = try machine.startService(service, payload: payload, now: clock.now)
            return try await withCheckedThrowingContinuation { continuation in
                serviceWaiters[service] = continuation
                Task { await self.perform(actions) }
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.invalidRequest("\(error)")
        }
    }

    /// Sends raw service data (audio PCM, video) on a started service.
    public func sendServiceData(_ data: [UInt8], on service: ServiceType) async throws(SDLError) {
        do {
            await perform(try machine.send(data, service: service, now: clock.now))
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
    }

    // MARK: - RPCs

    /// Sends a request given by function id and parameters and waits for its response.
    ///
    /// This is the dynamic form under the typed API; the scenario runner uses it too.
    public func request(
        functionID: UInt32, functionName: String, parameters: JSONObject, bulkData: [UInt8] = [], timeout: Duration? = nil
    ) async throws(SDLError) -> RPCEnvelope {
        guard case .started = state else { throw SDLError.notConnected }
        let correlationID = nextCorrelationID()
        let packet = RPCPacket(messageType: .request, functionID: functionID, correlationID: correlationID,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        let actions: [ProtocolAction]
        do {
            actions = try machine.send(packet.encoded, service: packet.serviceType, now: clock.now)
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
        let limit = timeout ?? configuration.requestTimeout + RPCTimeouts.userWait(function: functionName, parameters: parameters)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled { await self?.timeOut(correlationID) }
                }
                pending[correlationID] = Pending(functionName: functionName, continuation: continuation, timeoutTask: timer)
                Task { await self.perform(actions) }
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.connectionLost("\(error)")
        }
    }

    /// Sends a request without waiting for its response, which then arrives only through
    /// ``messages()``. Returns the correlation id.
    @discardableResult
    public func post(functionID: UInt32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) -> Int32 {
        guard case .started = state else { throw SDLError.notConnected }
        let correlationID = nextCorrelationID()
        let packet = RPCPacket(messageType: .request, functionID: functionID, correlationID: correlationID,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        do {
            await perform(try machine.send(packet.encoded, service: packet.serviceType, now: clock.now))
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
        return correlationID
    }

    /// Sends a notification to the head unit (the few the app sends, e.g. OnHashChange is not one).
    public func notify(functionID: UInt32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) {
        guard case .started = state else { throw SDLError.notConnected }
        let packet = RPCPacket(messageType: .notification, functionID: functionID, correlationID: 0,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        do {
            await perform(try machine.send(packet.encoded, service: packet.serviceType, now: clock.now))
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
    }

    /// Sends a typed request and returns its typed response. An unsuccessful response is
    /// returned as a value (check `success`/`resultCode`); use ``sendExpectingSuccess(_:timeout:)``
    /// for the throwing form.
    public func send<Request: RPCRequest>(_ request: Request, timeout: Duration? = nil) async throws(SDLError) -> Request.Response {
        let parameters = request.json.objectValue ?? [:]
        do {
            try RPCSpec.shared.validate(function: Request.functionName, messageType: .request, parameters: parameters)
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
        let envelope = try await self.request(
            functionID: Request.functionID, functionName: Request.functionName, parameters: parameters,
            bulkData: request.bulkData ?? [], timeout: timeout)
        do {
            return try envelope.decoded(as: Request.Response.self)
        } catch {
            throw SDLError.invalidResponse(error.description)
        }
    }

    /// Sends a request named as in the spec with JSON parameters, validated against the spec
    /// first, and returns the response in its dynamic form (the RPC-console form).
    public func request(
        _ functionName: String, parameters: JSONObject, bulkData: [UInt8] = [], timeout: Duration? = nil
    ) async throws(SDLError) -> RPCEnvelope {
        guard let function = RPCSpec.shared.function(named: functionName, messageType: .request) else {
            let close = RPCSpec.suggestions(for: functionName, among: RPCSpec.shared.functionNames(.request))
            throw SDLError.invalidRequest("\(functionName) is not a request of the RPC spec"
                                          + (close.first.map { " (did you mean \"\($0)\"?)" } ?? ""))
        }
        do {
            try RPCSpec.shared.validate(function: functionName, messageType: .request, parameters: parameters)
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
        return try await request(functionID: function.functionID, functionName: functionName, parameters: parameters,
                                 bulkData: bulkData, timeout: timeout)
    }

    /// Like ``send(_:timeout:)`` but throws ``SDLError/unsuccessfulResponse(function:resultCode:info:)``
    /// when `success` is false.
    public func sendExpectingSuccess<Request: RPCRequest>(_ request: Request, timeout: Duration? = nil) async throws(SDLError) -> Request.Response {
        let response = try await send(request, timeout: timeout)
        guard response.success else {
            throw SDLError.unsuccessfulResponse(function: Request.functionName, resultCode: response.resultCode.rawValue, info: response.info)
        }
        return response
    }

    /// Every RPC message the head unit sends (responses and notifications), from now on.
    /// The stream ends when the connection closes.
    public func messages() -> AsyncStream<RPCEnvelope> {
        let (stream, continuation) = AsyncStream.makeStream(of: RPCEnvelope.self)
        if case .closed = state {
            continuation.finish()
            return stream
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    /// Typed notifications of one kind, e.g. `notifications(OnHMIStatus.self)`.
    /// Notifications that do not decode are skipped (and logged).
    public func notifications<Notification: RPCNotification>(_ type: Notification.Type) -> AsyncStream<Notification> {
        messages().typed(Notification.self, logger: configuration.logger)
    }

    // MARK: - Internals

    private func unsubscribe(_ id: Int) { subscribers[id] = nil }

    private func nextCorrelationID() -> Int32 {
        // Positive ids only (negative ones are INVALID_ID), wrapping to 1, never one still pending.
        repeat {
            lastCorrelationID = lastCorrelationID == Int32.max ? 1 : lastCorrelationID + 1
        } while pending[lastCorrelationID] != nil
        return lastCorrelationID
    }

    private func received(_ chunk: [UInt8]) async {
        if traceObserver != nil { trace(chunk, direction: .received) }
        await perform(machine.receive(chunk, now: clock.now))
    }

    private func tick() async {
        guard case .started = state else { return }
        await perform(machine.tick(now: clock.now))
    }

    private func perform(_ actions: [ProtocolAction]) async {
        for action in actions {
            switch action {
            case .send(let bytes):
                if traceObserver != nil { trace(bytes, direction: .sent) }
                do {
                    try await transport.send(bytes)
                } catch {
                    await linkLost(error.description)
                    return
                }
            case .sessionStarted(let info):
                state = .started(info)
                configuration.logger.info("session \(info.sessionID) started, protocol \(info.version), \(info.maximumSendPayload) bytes per frame")
                startWaiter?.resume(returning: info)
                startWaiter = nil
            case .sessionStartFailed(let reason, let rejected):
                failStart(.sessionRejected(reason: reason, rejectedParams: rejected))
            case .sessionEnded:
                // Close the link first: a caller of stop() must find it closed when it returns.
                await shutdown(reason: "the session ended")
                resumeEndWaiter()
            case .serviceStarted(_, let service, let payload):
                serviceWaiters.removeValue(forKey: service)?.resume(returning: payload)
            case .serviceStartFailed(_, let service, let reason, let rejected):
                serviceWaiters.removeValue(forKey: service)?.resume(throwing: SDLError.sessionRejected(reason: reason, rejectedParams: rejected))
            case .message(_, let service, let payload):
                deliver(payload, service: service)
            case .heartbeatTimedOut:
                await linkLost("heartbeat timeout: nothing received from the head unit")
            case .malformed(let reason):
                configuration.logger.warning("malformed data from the head unit: \(reason)")
            case .dropped(let reason):
                configuration.logger.debug("frame dropped: \(reason)")
            case .serviceEnded, .serviceEndFailed, .startServiceRequested, .secondaryTransportRequested,
                 .transportEventUpdate, .secondaryTransportRegistered, .secondaryTransportRejected:
                configuration.logger.debug("protocol event: \(action)")
            }
        }
    }

    private func deliver(_ payload: [UInt8], service: ServiceType) {
        guard service == .rpc || service == .hybrid else { return }
        let packet: RPCPacket
        let parameters: JSONObject
        do {
            packet = try RPCPacket(decoding: payload)
            let json = packet.json.isEmpty ? JSONValue.object([:]) : try JSONValue.parse(packet.json)
            guard case .object(let object) = json else {
                configuration.logger.warning("RPC JSON is not an object; dropped")
                return
            }
            parameters = object
        } catch {
            configuration.logger.warning("undecodable RPC dropped: \(error)")
            return
        }
        let envelope = RPCEnvelope(
            messageType: packet.messageType, functionID: packet.functionID,
            functionName: RPCFunctionNames.name(for: packet.functionID) ?? "Function\(packet.functionID)",
            correlationID: packet.correlationID, parameters: parameters, bulkData: packet.bulkData)
        if packet.messageType == .response, let waiting = pending.removeValue(forKey: packet.correlationID) {
            waiting.timeoutTask.cancel()
            waiting.continuation.resume(returning: envelope)
        }
        for subscriber in subscribers.values { subscriber.yield(envelope) }
    }

    private func timeOut(_ correlationID: Int32) {
        guard let waiting = pending.removeValue(forKey: correlationID) else { return }
        let seconds = configuration.requestTimeout.seconds
        waiting.continuation.resume(throwing: SDLError.requestTimedOut(function: waiting.functionName, correlationID: correlationID, seconds: seconds))
    }

    private func failStart(_ error: SDLError) {
        guard let waiter = startWaiter else { return }
        startWaiter = nil
        waiter.resume(throwing: error)
        Task { await shutdown(reason: error.description) }
    }

    private func resumeEndWaiter() {
        let waiting = endWaiters
        endWaiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    private func linkLost(_ reason: String) async {
        if case .closed = state { return }
        configuration.logger.info("link lost: \(reason)")
        await shutdown(reason: reason)
    }

    private func shutdown(reason: String) async {
        if case .closed = state { return }
        state = .closed(reason)
        machine.reset()
        for (_, waiting) in pending {
            waiting.timeoutTask.cancel()
            waiting.continuation.resume(throwing: SDLError.connectionLost(reason))
        }
        pending.removeAll()
        for (_, waiter) in serviceWaiters { waiter.resume(throwing: SDLError.connectionLost(reason)) }
        serviceWaiters.removeAll()
        startWaiter?.resume(throwing: SDLError.connectionLost(reason))
        startWaiter = nil
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers.removeAll()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        await transport.close()
    }

    private func trace(_ bytes: [UInt8], direction: FrameTraceEvent.Direction) {
        guard let observer = traceObserver else { return }
        let now = clock.now
        let events = direction == .sent ? traceDecoders.sent.decode(bytes) : traceDecoders.received.decode(bytes)
        for case .frame(let frame) in events {
            observer(FrameTraceEvent(direction: direction, time: now, frame: frame))
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
