import SmartDeviceLink

/// The app as a provider: answering the requests the head unit sends it.
extension RunContext {
    /// Waits for the first request of the step's kind that this app has not answered yet
    /// (and that holds what the step asks), captures from it, and answers it.
    func answer(_ step: AnswerStep, captures: [String: String]) async throws(StepFailure) {
        let deadline = ContinuousClock.now + .milliseconds(scenario.defaultTimeoutMS)
        while true {
            let count = await log.count
            let asked = await log.messages(from: 0).filter {
                $0.app == currentApp && $0.envelope.messageType == .request && $0.envelope.functionName == step.function && !answered.contains($0.index)
            }
            let fitting = asked.first { step.request?.mismatch(.object($0.envelope.parameters), at: step.function, variables: variables) == nil }
            if let hit = fitting {
                answered.insert(hit.index)
                try capture(captures, from: hit.envelope.parameters)
                let response = substitute(step.response)
                _ = try announce(step.function, .response, response)
                do {
                    try await connection.respond(functionID: hit.envelope.functionID, correlationID: hit.envelope.correlationID, parameters: response)
                } catch {
                    throw StepFailure(message: error.description, cause: error)
                }
                return
            }
            guard ContinuousClock.now < deadline else {
                let seconds = Double(scenario.defaultTimeoutMS) / 1000
                let why = asked.first.flatMap { step.request?.mismatch(.object($0.envelope.parameters), at: step.function, variables: variables) }
                throw StepFailure(message: "waited \(seconds.clean) s for the head unit to send \(step.function) to answer"
                                  + (why.map { "; the one that came does not fit: \($0)" } ?? ""))
            }
            try checkStopped()
            await log.waitForMore(than: count, until: deadline)
        }
    }
}
