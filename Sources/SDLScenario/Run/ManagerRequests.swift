import SmartDeviceLink

extension RunContext {
    /// A request of a manager: announced and logged like the scenario's own, its response
    /// remembered in ``managerResponses``.
    func managerRequest(_ function: String, _ parameters: JSONObject, bulk: [UInt8], timeout: Duration?,
                        as app: String?) async throws(SDLError) -> RPCEnvelope {
        let response: RPCEnvelope
        do throws(StepFailure) {
            response = try await request(function, parameters, bulk: bulk, timeoutMS: timeout.map { Int($0.milliseconds) } ?? actionTimeoutMS,
                                         as: .some(app))
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
