/// Requests, notifications and the streams of what the head unit sends.
extension SDLConnection {
    // MARK: - RPCs

    /// Sends a request given by function id and parameters and waits for its response.
    ///
    /// This is the dynamic form under the typed API; the scenario runner uses it too.
    /// Cancelling the calling task removes the request and throws ``SDLError/cancelled(function:)`` at once.
    public func request(
        functionID: UInt32, functionName: String, parameters: JSONObject, bulkData: [UInt8] = [], timeout: Duration? = nil
    ) async throws(SDLError) -> RPCEnvelope {
        // A request with a place in a sequence waits until those before it were queued, and
        // lets the next one go as soon as it is queued itself (or fails before): not when its
        // answer comes, which would leave one chunk of an upload's window in flight.
        let ticket = OrderedSubmission.current
        if let ticket { await ticket.gate.waitForTurn(ticket.index) }
        defer { if let ticket { ticket.gate.finished(ticket.index) } }
        if Task.isCancelled { throw SDLError.cancelled(function: functionName) }
        let (correlationID, actions) = try prepare(functionID: functionID, functionName: functionName, parameters: parameters, bulkData: bulkData[...])
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    dispatch(correlationID, actions, functionName: functionName, parameters: parameters, timeout: timeout,
                             waiter: .caller(continuation))
                    if let ticket { ticket.gate.finished(ticket.index) }
                    if Task.isCancelled { cancelRequest(correlationID) }
                }
            } onCancel: {
                Task { await self.cancelRequest(correlationID) }
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.connectionLost("\(error)")
        }
    }

    /// Queues a typed request now, in the order of the calls, and returns its answer to come
    /// (see ``RequestSubmitting``): the request is checked and encoded on the caller's
    /// executor, its answer decoded on the link's as it arrives.
    package nonisolated func submit<Request: RPCRequest>(_ request: Request) async throws(SDLError) -> PendingResponse<Request.Response>? {
        try await submit(Request.self, parameters: request.checkedParameters(), bulkData: (request.bulkData ?? [])[...])
    }

    /// Queues an upload's chunk as the generic `submit` does a request; its parameters
    /// are already checked (see ``UploadChunk``).
    package nonisolated func submit(_ chunk: UploadChunk) async throws(SDLError) -> PendingResponse<PutFileResponse>? {
        try await submit(PutFile.self, parameters: chunk.parameters, bulkData: chunk.bytes)
    }

    private nonisolated func submit<Request: RPCRequest>(_: Request.Type, parameters: JSONObject,
                                                         bulkData: ArraySlice<UInt8>) async throws(SDLError) -> PendingResponse<Request.Response> {
        let answer = PendingResponse<Request.Response>()
        let correlationID = try await submit(functionID: Request.functionID, functionName: Request.functionName,
                                             parameters: parameters, bulkData: bulkData) { result in
            answer.settle(result.flatMap { envelope in Result { () throws(SDLError) in try Request.decodeResponse(envelope) } })
        }
        answer.onCancel { Task { await self.cancelRequest(correlationID) } }
        return answer
    }

    private func submit(functionID: UInt32, functionName: String, parameters: JSONObject, bulkData: ArraySlice<UInt8>,
                        settle: @escaping @Sendable (Result<RPCEnvelope, SDLError>) -> Void) throws(SDLError) -> Int32 {
        let (correlationID, actions) = try prepare(functionID: functionID, functionName: functionName, parameters: parameters, bulkData: bulkData)
        dispatch(correlationID, actions, functionName: functionName, parameters: parameters, timeout: nil, waiter: .submitted(settle))
        return correlationID
    }

    /// A request's correlation id and frames, not yet written.
    private func prepare(functionID: UInt32, functionName: String, parameters: JSONObject,
                         bulkData: ArraySlice<UInt8>) throws(SDLError) -> (Int32, [ProtocolAction]) {
        guard case .started = state else { throw SDLError.notConnected }
        let correlationID = pending.nextID()
        SDLLog.rpc.debug("→ \(functionName) #\(correlationID)\(bulkData.isEmpty ? "" : " with \(bulkData.count) bytes of bulk data")")
        let packet = RPCPacket(messageType: .request, functionID: functionID, correlationID: correlationID,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        let protected = try encrypts(functionName)
        do {
            return (correlationID, try driver.perform { machine, now throws(ProtocolStateError) in try machine.send(packet, protected: protected, now: now) })
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
    }

    /// Records who waits for the answer, then writes the request: an answer never arrives
    /// before its waiter is in place.
    private func dispatch(_ correlationID: Int32, _ actions: [ProtocolAction], functionName: String, parameters: JSONObject,
                          timeout: Duration?, waiter: RequestWaiter) {
        var limit = timeout ?? configuration.requestTimeout + RPCTimeouts.userWait(function: functionName, parameters: parameters)
        // On a slow line the clock starts once the bytes ahead and the request's own (queued
        // by `prepare`) are out. Known now, never postponed later: a stuck writer still times out.
        if let lineTime = driver.io.lineTime() { limit += lineTime }
        pending.insert(.init(functionName: functionName, deadline: now + limit, limit: limit, waiter: waiter), for: correlationID)
        handle(actions)
        rearm()
    }

    /// Sends a request without waiting for its response, which then arrives only through
    /// ``messages()``. Returns the correlation id.
    @discardableResult
    public func post(functionID: UInt32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) -> Int32 {
        guard case .started = state else { throw SDLError.notConnected }
        let correlationID = pending.nextID()
        try queue(RPCPacket(messageType: .request, functionID: functionID, correlationID: correlationID,
                            json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData))
        return correlationID
    }

    /// Sends a notification to the head unit (the few the app sends, e.g. OnHashChange is not one).
    public func notify(functionID: UInt32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) {
        guard case .started = state else { throw SDLError.notConnected }
        try queue(RPCPacket(messageType: .notification, functionID: functionID, correlationID: 0,
                            json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData))
    }

    /// Frames an RPC message into the primary's outbox.
    func queue(_ packet: RPCPacket) throws(SDLError) {
        do {
            handle(try driver.perform { machine, now throws(ProtocolStateError) in try machine.send(packet, now: now) })
        } catch {
            throw SDLError.invalidRequest(error.description)
        }
    }

    /// Sends a typed request and returns its typed response. An unsuccessful response is
    /// returned as a value (check `success`/`resultCode`); use ``sendExpectingSuccess(_:timeout:)``
    /// for the throwing form.
    ///
    /// Nonisolated: the request is checked and encoded, and the response decoded, on the
    /// caller's executor; only the exchange itself runs on the connection (two hops, not six).
    public nonisolated func send<Request: RPCRequest>(_ request: Request, timeout: Duration? = nil) async throws(SDLError) -> Request.Response {
        try await request.exchange { parameters, bulkData throws(SDLError) in
            try await self.request(functionID: Request.functionID, functionName: Request.functionName, parameters: parameters,
                                   bulkData: bulkData, timeout: timeout)
        }
    }

    /// Sends a request named as in the spec with JSON parameters, validated against the spec
    /// first, and returns the response in its dynamic form (the RPC-console form).
    public nonisolated func request(
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
    public nonisolated func sendExpectingSuccess<Request: RPCRequest>(_ request: Request, timeout: Duration? = nil) async throws(SDLError) -> Request.Response {
        let response = try await send(request, timeout: timeout)
        guard response.success else {
            throw SDLError.unsuccessfulResponse(function: Request.functionName, resultCode: response.resultCode.rawValue, info: response.info)
        }
        return response
    }

    /// Every RPC message the head unit sends (responses and notifications), from now on.
    /// The stream ends when the connection closes.
    public func messages() -> AsyncStream<RPCEnvelope> {
        broadcast.subscribe()
    }

    /// The messages `wanted` accepts, asked as each arrives (see ``Broadcast/subscribe(initial:where:)``).
    func messages(where wanted: @escaping @Sendable (RPCEnvelope) -> Bool) -> AsyncStream<RPCEnvelope> {
        broadcast.subscribe(where: wanted)
    }

    /// Typed notifications of one kind, e.g. `notifications(OnHMIStatus.self)`.
    /// Notifications that do not decode are skipped (and logged).
    public func notifications<Notification: RPCNotification>(_ type: Notification.Type) -> AsyncStream<Notification> {
        broadcast.notifications(Notification.self, logger: configuration.logger)
    }
}
