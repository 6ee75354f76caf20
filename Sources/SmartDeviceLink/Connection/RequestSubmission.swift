/// Queuing a request and taking its answer later, without a task per request: how the file
/// manager keeps a window of PutFile chunks in flight.
///
/// A task per chunk (with its ordering ticket, its cancellation handler and the group's
/// bookkeeping) cost more of the upload's sending thread than the bytes did. Here a chunk is
/// queued in the order of the calls, and its answer settles a ``PendingResponse`` that the
/// uploader awaits when it gets to that chunk.
package protocol RequestSubmitting: RPCChannel {
    /// Queues a chunk's PutFile and returns its answer to come; nil when this channel cannot
    /// queue it so right now (a tool routes requests through itself): then send it with `send`.
    ///
    /// A chunk, not any request: called through an existential, a generic requirement runs
    /// its witness unspecialised, and `PendingResponse`'s generic metadata was looked up for
    /// every chunk (the sending thread spent 3.6% of its time in such lookups, 1.6% since).
    func submit(_ chunk: UploadChunk) async throws(SDLError) -> PendingResponse<PutFileResponse>?
    /// Called after each answer taken from a ``PendingResponse``: what `send` does after a
    /// response before it returns (``SDLManager`` handles the notifications that came first).
    func answerTaken() async
}

extension RequestSubmitting {
    package func answerTaken() async {}
}

/// One chunk of an upload as the file manager queues it.
///
/// Its parameters were checked against the spec once, with the upload's first chunk: the
/// chunks after it differ only in offset, length and CRC, which the file manager keeps in the
/// spec's ranges (a file too large for them fails the first chunk's check, whose length is
/// the file's). Building each chunk's PutFile and checking it anew was a tenth of the sending
/// thread's own time. The bytes are a slice of an in-memory file, not a copy of it.
package struct UploadChunk: Sendable {
    package var parameters: JSONObject
    package var bytes: ArraySlice<UInt8>

    package init(parameters: JSONObject, bytes: ArraySlice<UInt8>) {
        (self.parameters, self.bytes) = (parameters, bytes)
    }

    /// The same chunk as a typed request, for a channel that only sends.
    package var request: PutFile {
        get throws(SDLError) {
            var request: PutFile
            do {
                request = try PutFile(json: .object(parameters), path: PutFile.functionName)
            } catch {
                throw SDLError.invalidRequest(error.description)
            }
            request.bulkData = Array(bytes)
            return request
        }
    }
}

/// A request's answer to come: settled once, by its answer or by why there is none.
package final class PendingResponse<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, SDLError>?
        var waiter: UnsafeContinuation<Value, any Error>?
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    package init() {}

    /// How to give up the request when its answer is no longer wanted; never called once
    /// the answer is in (its correlation id may then belong to a later request).
    package func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        state.withLock { state in
            if state.result == nil { state.cancel = cancel }
        }
    }

    /// The first settlement wins; later ones are ignored.
    package func settle(_ result: Result<Value, SDLError>) {
        let waiter = state.withLock { state -> UnsafeContinuation<Value, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            state.cancel = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result.mapError { $0 })
    }

    /// Waits for the answer. Cancelling the waiting task gives the request up.
    package func value() async throws(SDLError) -> Value {
        if let ready = state.withLock({ $0.result }) { return try ready.get() }
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (waiter: UnsafeContinuation<Value, any Error>) in
                    let ready = state.withLock { state -> Result<Value, SDLError>? in
                        if let result = state.result { return result }
                        state.waiter = waiter
                        return nil
                    }
                    if let ready { waiter.resume(with: ready.mapError { $0 }) }
                }
            } onCancel: {
                cancel()
            }
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.connectionLost("\(error)")
        }
    }

    /// Gives the request up: a request still waiting is removed, its answer ignored.
    package func cancel() {
        state.withLock { state in
            defer { state.cancel = nil }
            return state.cancel
        }?()
    }
}

/// What a connection keeps for each request waiting for its answer.
enum RequestWaiter: Sendable {
    /// A caller suspended in ``SDLConnection/request(functionID:functionName:parameters:bulkData:timeout:)``.
    case caller(UnsafeContinuation<RPCEnvelope, any Error>)
    /// A submitted request: the answer is decoded and settled where it arrives.
    case submitted(@Sendable (Result<RPCEnvelope, SDLError>) -> Void)

    func resume(returning envelope: RPCEnvelope) {
        switch self {
        case .caller(let continuation): continuation.resume(returning: envelope)
        case .submitted(let settle): settle(.success(envelope))
        }
    }

    func resume(throwing error: SDLError) {
        switch self {
        case .caller(let continuation): continuation.resume(throwing: error)
        case .submitted(let settle): settle(.failure(error))
        }
    }
}
