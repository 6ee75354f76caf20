/// Requests through the manager: the typed form its managers and apps use, and the dynamic
/// form of RPC consoles and the scenario runner.
extension SDLManager: RequestSubmitting {
    /// The link a request goes out on, and the route that reports it when a tool set one.
    struct SendPath: Sendable {
        let connection: SDLConnection
        let route: RequestRoute?
    }

    /// Where ``routeRequests(through:)`` sends a request: its name, parameters, bulk data
    /// and timeout in, the response as it arrived out.
    package typealias RequestRoute = @Sendable (
        _ function: String, _ parameters: JSONObject, _ bulkData: [UInt8], _ timeout: Duration?
    ) async throws(SDLError) -> RPCEnvelope

    /// Nonisolated, as ``SDLConnection/send(_:timeout:)``: while the app is registered the
    /// request is encoded, sent and its answer decoded on the caller's executor, with no hop
    /// onto this actor and back (every manager's requests come this way). It returns once the
    /// notifications that arrived before the response are handled (HMI state, permissions...).
    public nonisolated func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response {
        let path = try await currentSendPath()
        let response = if let route = path.route {
            try await request.exchange { parameters, bulkData throws(SDLError) in
                try await route(Request.functionName, parameters, bulkData, timeout)
            }
        } else {
            try await path.connection.send(request, timeout: timeout)
        }
        await backlog.drained()
        // A new layout brings its own display, button and soft-button capabilities.
        if let layout = response as? SetDisplayLayoutResponse { await systemCapabilityManager.update(layout: layout) }
        return response
    }

    /// Queues an upload chunk on the link at once (see ``RequestSubmitting``); nil while a tool
    /// routes requests through itself, which then sees each one through `send`.
    package nonisolated func submit(_ chunk: UploadChunk) async throws(SDLError) -> PendingResponse<PutFileResponse>? {
        let path = try await currentSendPath()
        guard path.route == nil else { return nil }
        return try await path.connection.submit(chunk)
    }

    /// As `send` does before it returns: the notifications that came before the answer are handled.
    package nonisolated func answerTaken() async {
        await backlog.drained()
    }

    /// Sends the requests of this manager's own managers (screen, files, audio pass-thru...)
    /// through `route` instead of straight to the link: a tool that reports every request,
    /// as the scenario runner does, sends them itself with
    /// ``request(functionID:functionName:parameters:bulkData:timeout:)``. Nil restores the link.
    package func routeRequests(through route: RequestRoute?) {
        requestRoute = route
    }

    // MARK: - Dynamic form (RPC consoles, the scenario runner)

    /// Sends a request by function id with JSON parameters and waits for its response.
    public nonisolated func request(functionID: UInt32, functionName: String, parameters: JSONObject, bulkData: [UInt8] = [],
                                    timeout: Duration? = nil) async throws(SDLError) -> RPCEnvelope {
        try await currentSendPath().connection.request(functionID: functionID, functionName: functionName, parameters: parameters,
                                                        bulkData: bulkData, timeout: timeout)
    }

    /// Sends a request without waiting; its response arrives through ``messages()``.
    @discardableResult
    public nonisolated func post(functionID: UInt32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) -> Int32 {
        try await currentSendPath().connection.post(functionID: functionID, parameters: parameters, bulkData: bulkData)
    }

    /// Sends a notification to the head unit.
    public nonisolated func notify(functionID: UInt32, parameters: JSONObject) async throws(SDLError) {
        try await currentSendPath().connection.notify(functionID: functionID, parameters: parameters)
    }

    /// Answers a request the head unit sent the app (an app-service provider's; see ``requests(_:)``).
    public nonisolated func respond(functionID: UInt32, correlationID: Int32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) {
        try await currentSendPath().connection.respond(functionID: functionID, correlationID: correlationID, parameters: parameters, bulkData: bulkData)
    }

    // MARK: - The send path

    /// Keeps ``sendPath`` equal to what `registeredSendPath()` would answer at once: set while
    /// a registration and its link are current, nil otherwise. Called by the observers of the
    /// three properties it is made of, so no change to them can leave it stale.
    func mirrorSendPath() {
        let path = connection.flatMap { registration == nil ? nil : SendPath(connection: $0, route: requestRoute) }
        sendPath.withLock { $0 = path }
    }

    private nonisolated func currentSendPath() async throws(SDLError) -> SendPath {
        if let path = sendPath.withLock({ $0 }) { return path }
        return try await registeredSendPath()
    }

    /// The link of the current registration. Requests may go out as soon as the app is
    /// registered: the head unit already sends notifications (OnHMIStatus FULL...) that the
    /// app may answer while its managers are still being set up.
    private func registeredSendPath() async throws(SDLError) -> SendPath {
        // The head unit's first notifications (OnHMIStatus FULL) can reach an observer before
        // this actor has taken in the RegisterAppInterface response: a caller reacting to them
        // waits for that registration to finish instead of being told "not connected".
        if registration == nil, registering {
            for await _ in states() where registration != nil || !registering { break }
        }
        guard let connection, registration != nil else {
            // Say why the app is not registered when the head unit said it (TOO_MANY_REQUESTS...).
            if let unregisteredBy { throw SDLError.connectionLost("the head unit unregistered the app (\(unregisteredBy))") }
            throw SDLError.notConnected
        }
        return SendPath(connection: connection, route: requestRoute)
    }
}

/// Counts the messages the manager took from its link and has not handled yet, so that a
/// request returns after the notifications that came before its response, as if it had passed
/// through the manager. A message is counted as the link hands it over, on the reader, before
/// any later response resumes its caller; usually none is outstanding and nothing waits.
final class Backlog: Sendable {
    private struct State {
        var arrived = 0
        var handled = 0
        var waiters: [(mark: Int, waiter: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    func arrived() { state.withLock { $0.arrived += 1 } }

    func handled() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.handled += 1
            guard !state.waiters.isEmpty else { return [] }
            let handled = state.handled
            defer { state.waiters.removeAll { $0.mark <= handled } }
            return state.waiters.filter { $0.mark <= handled }.map(\.waiter)
        }
        for waiter in ready { waiter.resume() }
    }

    /// A link's messages ended: whatever was counted and never reached the loop (a stream
    /// that ended first) must not keep a request waiting.
    func caughtUp() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.handled = max(state.handled, state.arrived)
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.waiter)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once every message counted so far is handled (not those that come later).
    func drained() async {
        let mark = state.withLock { $0.handled < $0.arrived ? $0.arrived : nil }
        guard let mark else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard state.handled < mark else { return true }
                state.waiters.append((mark, waiter))
                return false
            }
            if done { waiter.resume() }
        }
    }
}
