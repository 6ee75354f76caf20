import SmartDeviceLink

extension RunContext {
    /// Streams synthetic data on audio or video through the lifecycle manager, which puts it
    /// on the link the head unit prefers; starts the service first when it is not running.
    func stream(_ step: StreamStep) async throws(StepFailure) {
        let service = step.serviceType
        do {
            if await !connection.isStarted(service) { try await connection.startService(service, protected: step.protected) }
            var sent = 0
            while sent < step.bytes {
                let count = min(step.chunkSize, step.bytes - sent)
                // A recognisable pattern: byte i of the stream is i mod 256.
                try await connection.sendServiceData((0..<count).map { UInt8(truncatingIfNeeded: sent + $0) }, on: service)
                sent += count
            }
            if step.end {
                try await connection.endService(service)
            }
        } catch {
            throw StepFailure(message: "\(step.service): \(error)", cause: error)
        }
    }

    /// Waits for the next transport event after the last one matched that is the expected one.
    func expectTransport(_ expectation: TransportExpectation) async throws(StepFailure) {
        if !expectation.event.hasPrefix("primary"), let reason = await noSecondaryReason() {
            skippingRest = "it depends on the secondary transport, which a TCP primary does not have"
            throw StepFailure(message: reason, skipped: true)
        }
        let from = lastTransportMatch + 1
        let windowMS = operatorWindow.map { Int($0.seconds * 1000) } ?? expectation.withinMS ?? scenario.defaultTimeoutMS
        let deadline = ContinuousClock.now + .milliseconds(windowMS)
        while true {
            let events = await transports.messages(from: from)
            if let hit = events.first(where: { $0.app == currentApp && expectation.matches($0.entry) }) {
                lastTransportMatch = hit.index
                return
            }
            if ContinuousClock.now >= deadline {
                let seen = events.filter { $0.app == currentApp }.map { "\($0.entry)" }
                let seconds = Double(windowMS) / 1000
                throw StepFailure(message: "waited \(seconds.clean) s for transport \(expectation.summary); "
                                  + (seen.isEmpty ? "no transport event came" : "came: " + seen.joined(separator: "; ")))
            }
            try checkStopped()
            await transports.waitForMore(than: from + events.count, until: deadline)
        }
    }

    /// Why this run can have no secondary transport, or nil: the app's primary is TCP, beside
    /// which head units offer none (sdl_core offers TCP beside USB or Bluetooth), and the
    /// scenario's options ask for none.
    private func noSecondaryReason() async -> String? {
        let primary = await transports.messages(from: 0).lazy.compactMap { logged -> String? in
            if case .primaryConnected(let description) = logged.entry { return description } else { return nil }
        }.first
        guard let primary, primary.hasPrefix("TCP"), (secondaryKinds ?? SecondaryTransportKind.defaults(forPrimary: .tcp)).isEmpty else {
            return nil
        }
        return "cannot happen over a TCP primary (\(primary)): head units offer a secondary beside USB or Bluetooth; --secondary tcp asks for one anyway"
    }
}
