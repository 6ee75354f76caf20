import SmartDeviceLink

/// The scenario steps about protected services.
extension RunContext {
    /// `{"protect": ...}`: starts RPC again protected, or audio/video protected, and checks
    /// the outcome against what the step expects.
    func protect(_ step: ProtectStep) async throws(StepFailure) {
        let name = ProtectStep.name(step.service)
        do {
            if step.service == .rpc {
                try await connection.startProtectedRPC()
            } else {
                try await connection.startService(step.service, protected: true)
            }
        } catch {
            guard let refusal = step.refusal else { throw StepFailure(message: error.description, cause: error) }
            guard error.description.contains(refusal) else {
                throw StepFailure(message: "refused, but not for \"\(refusal)\": \(error.description)", cause: error)
            }
            return
        }
        let protected = await connection.isProtected(step.service)
        switch (protected, step.refusal) {
        case (true, nil), (false, _?):
            // Refused as expected: a new audio or video service starts unprotected (core's handshake handler).
            return
        case (true, let refusal?):
            throw StepFailure(message: "\(name) was protected; expected the head unit to refuse (\(refusal))")
        case (false, nil):
            throw StepFailure(message: "\(name) started without protection: the head unit's handshake with this app failed (the log says why)")
        }
    }

    /// `{"expect": {"protected": "rpc"}}`: waits until the service runs protected (the RPC
    /// service may be protected by itself, once the policy requires encryption); with
    /// `"protected": false`, checks that it runs unprotected now.
    func expectProtected(_ expectation: ProtectedExpectation) async throws(StepFailure) {
        let name = ProtectStep.name(expectation.service)
        guard expectation.protected else {
            if await connection.isProtected(expectation.service) { throw StepFailure(message: "\(name) runs protected; expected it unprotected") }
            return
        }
        let windowMS = expectation.withinMS ?? scenario.defaultTimeoutMS
        let deadline = ContinuousClock.now + .milliseconds(windowMS)
        while await !connection.isProtected(expectation.service) {
            guard ContinuousClock.now < deadline else {
                throw StepFailure(message: "\(name) was not protected within \((Double(windowMS) / 1000).clean) s")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
