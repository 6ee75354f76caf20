import SmartDeviceLink

/// Show round trips through both protocol machines in memory: what `SDLConnection.send` and
/// the protocol-only head unit do to the bytes (spec validation, JSON, RPC header, framing,
/// decoding, reassembly, the typed response), with no socket, no task and no actor between.
///
/// Beside the TCP rows it shows how the library's cost splits between the work on the bytes
/// and the hand-overs between threads, tasks and actors.
struct InMemoryRoundTrips {
    private var app = AppProtocolMachine(configuration: ProtocolConfiguration())
    private var headUnit = HeadUnitProtocolMachine(configuration: ProtocolConfiguration())
    private var sessionID: UInt8 = 0

    /// Both machines with the RPC session started.
    init() throws {
        _ = try toHeadUnit(try app.startSession(now: .now))
        guard let id = app.activeSessions.keys.first else { throw InMemoryError.noSession }
        sessionID = id
    }

    /// `count` Show requests answered SUCCESS, each checked as the library checks it.
    mutating func run(count: Int, _ show: Show) throws {
        for correlationID in 0..<Int32(count) {
            let parameters = show.json.objectValue ?? [:]
            try RPCSpec.shared.validate(function: Show.functionName, messageType: .request, parameters: parameters)
            let packet = RPCPacket(messageType: .request, functionID: Show.functionID, correlationID: correlationID,
                                   json: JSONValue.object(parameters).serializedBytes())
            for payload in try toHeadUnit(try app.send(packet, now: .now)) {
                let request = try RPCPacket(decoding: payload)
                let answer = RPCPacket(messageType: .response, functionID: request.functionID,
                                       correlationID: request.correlationID, json: ThinHeadUnit.success)
                for bytes in sent(try headUnit.send(answer, sessionID: sessionID, now: .now)) {
                    for case .message(_, _, let payload, _) in app.receive(bytes, now: .now) {
                        let response = try RPCEnvelope(decoding: payload).decoded(as: ShowResponse.self)
                        precondition(response.success && response.resultCode == .success)
                    }
                }
            }
        }
    }

    /// Delivers the bytes of `actions` to the head unit; returns the RPC payloads it received
    /// and answers its StartService requests.
    private mutating func toHeadUnit(_ actions: [ProtocolAction]) throws -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        for bytes in sent(actions) {
            for action in headUnit.receive(bytes, now: .now) {
                switch action {
                case .message(_, _, let payload, _): payloads.append(payload)
                case .startServiceRequested(let request):
                    for bytes in sent(try headUnit.acceptStartService(request, now: .now)) { _ = app.receive(bytes, now: .now) }
                default: continue
                }
            }
        }
        return payloads
    }

    private func sent(_ actions: [ProtocolAction]) -> [[UInt8]] {
        actions.compactMap { if case .send(let bytes) = $0 { bytes } else { nil } }
    }

    enum InMemoryError: Error { case noSession }
}
