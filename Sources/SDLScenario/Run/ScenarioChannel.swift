import SmartDeviceLink

/// Lets the library's managers act for a scenario: every request they send is announced,
/// reported and traced as if the scenario had sent it, and its response is kept so the
/// step can be judged on it.
struct ScenarioChannel: RPCChannel {
    /// Weak: the run keeps its managers, and they must not keep the run (and with it the
    /// SDLManager and every listener) after it ended.
    weak var context: RunContext?

    func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response {
        guard let context else { throw SDLError.notConnected }
        let envelope = try await context.managerRequest(Request.functionName, request.json.objectValue ?? [:],
                                                        bulk: request.bulkData ?? [], timeout: timeout)
        do {
            return try envelope.decoded(as: Request.Response.self)
        } catch {
            throw SDLError.invalidResponse("\(Request.functionName): \(error)")
        }
    }

    func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification> {
        guard let context else { return AsyncStream { $0.finish() } }
        return await context.connection.notifications(type)
    }

    /// The run's lifecycle manager reconnects; an upload waits for it.
    func waitForReconnection() async -> LinkRecovery {
        guard let context else { return .gaveUp("the scenario run ended") }
        return await context.connection.waitForReconnection()
    }
}

/// The managers a scenario's high-level actions use, made on first use.
struct ScenarioManagers {
    let channel: ScenarioChannel
    let files: SDLFileManager
    let screen: ScreenManager
    let audio: AudioPassThruManager

    init(context: RunContext) {
        channel = ScenarioChannel(context: context)
        files = SDLFileManager(channel: channel)
        screen = ScreenManager(channel: channel, fileManager: files, systemCapabilityManager: context.connection.systemCapabilityManager)
        audio = AudioPassThruManager(channel: channel)
    }
}

extension RunContext {
    /// A request of a manager: announced and logged like the scenario's own, its response
    /// remembered in ``managerResponses``.
    func managerRequest(_ function: String, _ parameters: JSONObject, bulk: [UInt8], timeout: Duration?) async throws(SDLError) -> RPCEnvelope {
        let response: RPCEnvelope
        do throws(StepFailure) {
            response = try await request(function, parameters, bulk: bulk, timeoutMS: timeout.map { Int($0.milliseconds) })
        } catch {
            // The library's own error when there is one: wrapping it would say it twice.
            throw error.cause ?? SDLError.invalidRequest(error.message)
        }
        managerResponses.append(response)
        return response
    }

    /// The response that decides a step made of several manager requests: the first that
    /// failed, else the last.
    func decidingResponse(since mark: Int, what: String) throws(StepFailure) -> RPCEnvelope {
        let responses = managerResponses[mark...]
        if let failed = responses.first(where: { $0.success != true }) { return failed }
        guard let last = responses.last else { throw StepFailure(message: "\(what) sent no request") }
        return last
    }
}
