import SmartDeviceLink

extension RunContext {
    /// Waits for expected messages in the log.
    ///
    /// Every `expect` step between two actions searches one window: the messages from the
    /// first of those actions on, less those an earlier expectation of the window already
    /// matched. So "do A, expect X, expect Y" passes whichever order the head unit sent X and
    /// Y in (core does not promise one between a response and the notifications around it),
    /// while a message from before the action is never taken. Inside an `expectInOrder` group
    /// each expectation must come after the one before. `never` and `count` wait their whole
    /// window (`within`, default 1 s) before deciding.
    ///
    /// `hmi` expectations search what the HMI was sent, a log of its own with its own window.
    func expect(_ expectations: [MessageExpectation], order: ExpectationOrder) async throws(StepFailure) {
        switch order {
        case .inOrder:
            var previous: Int?
            for expectation in expectations {
                // The order holds between the app's messages and between the HMI's, each in its own log.
                let after = expectation.kind == .hmi ? nil : previous
                let index = try await expectOne(expectation, after: after)
                if expectation.kind != .hmi, let index { previous = index }
            }
        case .anyOrder:
            let app = expectations.filter { $0.kind != .hmi }
            if !app.isEmpty { try await expectAll(app) }
            for expectation in expectations where expectation.kind == .hmi {
                try await expectOne(expectation, after: nil)
            }
        }
    }

    private func window(_ expectation: MessageExpectation) -> Int {
        // After a driver step handed to a person, the answer comes at a person's pace.
        if let operatorWindow, expectation.count != .never { return Int(operatorWindow.seconds * 1000) }
        if let within = expectation.withinMS { return within }
        switch expectation.count {
        case .atLeast: return scenario.defaultTimeoutMS
        case .exactly, .never: return min(scenario.defaultTimeoutMS, 1000)
        }
    }

    private func matches(_ message: LoggedMessage, _ expectation: MessageExpectation) -> Bool {
        mismatch(message, expectation) == nil
    }

    /// Why `message` is not what `expectation` wants, or nil if it is.
    private func mismatch(_ message: LoggedMessage, _ expectation: MessageExpectation) -> String? {
        let envelope = message.envelope
        guard expectation.kind == .hmi || message.app == currentApp else { return "another app's message" }
        let type: RPCMessageType = expectation.kind == .notification ? .notification : .response
        guard expectation.kind == .hmi || envelope.messageType == type, envelope.functionName == expectation.function else {
            return "other message"
        }
        guard let matcher = expectation.parameters else { return nil }
        return matcher.mismatch(.object(envelope.parameters), at: expectation.function, variables: variables)
    }

    /// Waits for one expectation in its window (after `after` when given); returns the index
    /// of the message it took, if it took one.
    @discardableResult
    private func expectOne(_ expectation: MessageExpectation, after: Int?) async throws(StepFailure) -> Int? {
        let hmi = expectation.kind == .hmi
        if hmi && !hmiVisible {
            throw StepFailure(message: "what the HMI is sent cannot be seen on this head unit (the embedded emulator shows it, and sdl_core with --hmi)",
                              skipped: true)
        }
        let log = hmi ? hmiLog : log
        let mark: Int
        switch expectation.count {
        case _ where hmi: mark = hmiActionMark
        case .atLeast: mark = actionMark
        case .exactly, .never: mark = responseMark
        }
        let from = max(mark, (after ?? -1) + 1)
        let taken = hmi ? hmiMatched : matched
        func take(_ messages: some Sequence<LoggedMessage>) {
            let indexes = messages.map(\.index)
            if hmi { hmiMatched.formUnion(indexes) } else { matched.formUnion(indexes) }
        }
        let deadline = ContinuousClock.now + .milliseconds(window(expectation))
        while true {
            let candidates = await log.messages(from: from)
            let found = candidates.filter { !taken.contains($0.index) && matches($0, expectation) }
            switch expectation.count {
            case .atLeast(let needed) where found.count >= needed:
                let decisive = found.prefix(needed)
                take(decisive)
                try capture(expectation.captures, from: found.first!.envelope.parameters)
                return decisive.last!.index
            case .never where !found.isEmpty:
                throw StepFailure(message: "\(expectation.function) arrived but was expected never: \(describe(found.first!))")
            case .exactly(let wanted) where found.count > wanted:
                throw StepFailure(message: "\(expectation.function) arrived \(found.count)× (expected exactly \(wanted)×)")
            default:
                break
            }
            if ContinuousClock.now >= deadline {
                switch expectation.count {
                case .never:
                    return nil
                case .exactly(let wanted) where found.count == wanted:
                    take(found)
                    try capture(expectation.captures, from: found.first?.envelope.parameters ?? [:])
                    return found.last?.index
                default:
                    throw StepFailure(message: timeoutMessage(expectation, found: found.count, candidates: Array(candidates)))
                }
            }
            try checkStopped()
            await log.waitForMore(than: from + candidates.count, until: deadline)
        }
    }

    private func expectAll(_ expectations: [MessageExpectation]) async throws(StepFailure) {
        let from = actionMark
        let deadline = ContinuousClock.now + .milliseconds(expectations.map(window).max() ?? scenario.defaultTimeoutMS)
        while true {
            let candidates = Array(await log.messages(from: from))
            // What an earlier expectation of the window took is not there to take again.
            var used = matched
            // Greedy assignment of distinct messages; fine for the small groups scenarios use.
            var unmet: [MessageExpectation] = []
            var hits: [(MessageExpectation, LoggedMessage)] = []
            for expectation in expectations {
                if let hit = candidates.first(where: { !used.contains($0.index) && matches($0, expectation) }) {
                    used.insert(hit.index)
                    hits.append((expectation, hit))
                } else {
                    unmet.append(expectation)
                }
            }
            if unmet.isEmpty {
                matched = used
                for (expectation, hit) in hits {
                    try capture(expectation.captures, from: hit.envelope.parameters)
                }
                return
            }
            if ContinuousClock.now >= deadline {
                let names = unmet.map(\.summary).joined(separator: ", ")
                throw StepFailure(message: "still waiting for \(names) (any order); " + arrivedText(candidates, near: unmet.first!))
            }
            try checkStopped()
            await log.waitForMore(than: from + candidates.count, until: deadline)
        }
    }

    private func timeoutMessage(_ expectation: MessageExpectation, found: Int, candidates: [LoggedMessage]) -> String {
        let seconds = Double(window(expectation)) / 1000
        var text = "waited \(seconds.clean) s for \(expectation.kind == .hmi ? "the HMI to be sent" : expectation.kind.rawValue) \(expectation.function)"
        if let parameters = expectation.parameters { text += " with \(parameters.expectation)" }
        if case .exactly(let wanted) = expectation.count { text += " exactly \(wanted)× but it came \(found)×" }
        if case .atLeast(let wanted) = expectation.count, wanted > 1 { text += " \(wanted)× but it came \(found)×" }
        return text + "; " + arrivedText(candidates, near: expectation)
    }

    /// What arrived instead, with the reason the closest candidates did not match.
    private func arrivedText(_ candidates: [LoggedMessage], near expectation: MessageExpectation) -> String {
        let candidates = expectation.kind == .hmi ? candidates : candidates.filter { $0.app == currentApp }
        guard !candidates.isEmpty else { return "nothing arrived" + (currentApp.map { " for \($0)" } ?? "") }
        let nearMisses = candidates.filter { $0.envelope.functionName == expectation.function }.prefix(3).compactMap { mismatch($0, expectation) }
        let arrived = candidates.suffix(8).map(describe).joined(separator: ", ")
        var text = "arrived instead: \(arrived)"
        if !nearMisses.isEmpty { text += "; closest: " + nearMisses.joined(separator: "; ") }
        return text
    }

    func describe(_ message: LoggedMessage) -> String {
        let envelope = message.envelope
        var text = envelope.functionName
        if envelope.messageType == .response { text += "Response(\(envelope.resultCode ?? "?"))" }
        if let level = envelope.parameters["hmiLevel"]?.stringValue { text += "(\(level))" }
        return text + " at \(Int(message.timeMS)) ms"
    }
}
