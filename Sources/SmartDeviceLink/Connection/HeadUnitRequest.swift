import Logging

/// A request the head unit sends the app, to be answered: what an app-service provider gets
/// when a consumer asks for its data or an interaction (core passes GetAppServiceData and
/// PerformAppServiceInteraction on to the provider, and the provider's answer back).
///
/// ```swift
/// for await asked in await manager.requests(GetAppServiceData.self) {
///     try await asked.respond(GetAppServiceDataResponse(success: true, resultCode: .success, serviceData: weather))
/// }
/// ```
public struct HeadUnitRequest<Request: RPCRequest>: Sendable {
    /// The request as the head unit sent it.
    public let request: Request
    /// Its correlation id, which the answer carries.
    public let correlationID: Int32
    let answer: @Sendable (_ functionID: UInt32, _ correlationID: Int32, _ response: JSONObject, _ bulkData: [UInt8]) async throws(SDLError) -> Void

    /// Answers the request; the head unit passes the answer to whoever asked.
    public func respond(_ response: Request.Response) async throws(SDLError) {
        try await answer(Request.functionID, correlationID, response.json.objectValue ?? [:], response.bulkData ?? [])
    }

    /// Answers that the app could not do it: `success` false with the code and the words given.
    public func refuse(_ resultCode: ResultCode, info: String? = nil) async throws(SDLError) {
        var response: JSONObject = ["success": false, "resultCode": resultCode.json]
        if let info { response["info"] = .string(info) }
        try await answer(Request.functionID, correlationID, response, [])
    }
}

extension Broadcast where Element == RPCEnvelope {
    /// The head unit's requests of one kind, decoded, each with a way to answer it through `answer`.
    func requests<Request: RPCRequest>(
        _ type: Request.Type, logger: Logger,
        answer: @escaping @Sendable (UInt32, Int32, JSONObject, [UInt8]) async throws(SDLError) -> Void
    ) -> AsyncStream<HeadUnitRequest<Request>> {
        let all = subscribe { $0.messageType == .request && $0.functionID == Request.functionID }
        return AsyncStream { continuation in
            let task = Task {
                for await envelope in all {
                    do {
                        let request = try envelope.decoded(as: Request.self)
                        continuation.yield(HeadUnitRequest(request: request, correlationID: envelope.correlationID, answer: answer))
                    } catch {
                        // An answer the provider cannot give is still owed: core waits for it otherwise.
                        logger.warning("the head unit's \(Request.functionName) does not decode, answered INVALID_DATA: \(error)")
                        try? await answer(Request.functionID, envelope.correlationID,
                                          ["success": false, "resultCode": "INVALID_DATA", "info": .string("\(error)")], [])
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension SDLConnection {
    /// The head unit's requests of one kind from now on (an app-service provider's
    /// GetAppServiceData, PerformAppServiceInteraction), each answered with ``HeadUnitRequest/respond(_:)``.
    public func requests<Request: RPCRequest>(_ type: Request.Type) -> AsyncStream<HeadUnitRequest<Request>> {
        broadcast.requests(type, logger: configuration.logger) { [weak self] functionID, correlationID, response, bulkData throws(SDLError) in
            guard let self else { throw SDLError.notConnected }
            try await self.respond(functionID: functionID, correlationID: correlationID, parameters: response, bulkData: bulkData)
        }
    }

    /// Sends the app's answer to a request of the head unit.
    public func respond(functionID: UInt32, correlationID: Int32, parameters: JSONObject, bulkData: [UInt8] = []) async throws(SDLError) {
        guard case .started = state else { throw SDLError.notConnected }
        try queue(RPCPacket(messageType: .response, functionID: functionID, correlationID: correlationID,
                            json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData))
    }
}
