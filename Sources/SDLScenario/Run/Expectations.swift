import SmartDeviceLink

extension RunContext {
    /// Waits for expected messages in the log.
    ///
    /// The search starts at the later of the last action and the last matched message, so
    /// `expect` steps after an action see what it caused, and consecutive `expect` steps
    /// (or an `expectInOrder` group) must be satisfied in order. `never` and `count` wait
    /// their whole window (`within`, default 1 s) before deciding.
    ///
    /// `hmi` expectations search what the HMI was sent, a log of its own with its own order:
    /// in an `expectAnyOrder` group they are checked after the app's messages.
    func expect(_ expectations: [MessageExpectation], order: ExpectationOrder) async throws(StepFailure) {
        switch order {
        case .inOrder:
            for expectation in expectations { try await expectOne(expectation) }
        case .anyOrder:
            let app = expectations.filter { $0.kind != .hmi }
            if !app.isEmpty { try await expectAll(app) }
            // Each from the same place; the group ends after the last one matched.
            let start = hmiLastMatch
            var end = start
            for expectation in expectations where expectation.kind == .hmi {
                hmiLastMatch = start
                try await expectOne(expectation)
                end = max(end, hmiLastMatch)
            }
            hmiLastMatch = end
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
        let type: RPCMessageType = expectation.kind == .notification ? .notification : .response
        guard expectation.kind == .hmi || envelope.messageType == type, envelope.functionName == expectation.function else {
            return "other message"
        }
        guard let matcher = expectation.parameters else { return nil }
        return matcher.mismatch(.object(envelope.parameters), at: expectation.function, variables: variables)
    }

    private func expectOne(_ expectation: MessageExpectation) async throws(StepFailure) {
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
        let from = max(mark, (hmi ? hmiLastMatch : lastMatch) + 1)
        func matched(_ index: Int) {
            if hmi { hmiLastMatch = index } else { lastMatch = index }
        }
        let deadline = ContinuousClock.now + .milliseconds(window(expectation))
        while true {
            let candidates = await log.messages(from: from)
            let found = candidates.filter { matches($0, expectation) }
            switch expectation.count {
            case .atLeast(let needed) where found.count >= needed:
                let decisive = found[found.startIndex + needed - 1]
                matched(decisive.index)
                try capture(expectation.captures, from: found.first!.envelope.parameters)
                return
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
                    return
                case .exactly(let wanted) where found.count == wanted:
                    if let last = found.last { matched(last.index) }
                    try capture(expectation.captures, from: found.first?.envelope.parameters ?? [:])
                    return
                default:
                    throw StepFailure(message: timeoutMessage(expectation, found: found.count, candidates: Array(candidates)))
                }
            }
            await log.waitForMore(than: from + candidates.count, until: deadline)
        }
    }

    private func expectAll(_ expectations: [MessageExpectation]) async throws(StepFailure) {
        let from = max(actionMark, lastMatch + 1)
        let deadline = ContinuousClock.now + .milliseconds(expectations.map(window).max() ?? scenario.defaultTimeoutMS)
        while true {
            let candidates = Array(await log.messages(from: from))
            // Greedy assignment of distinct messages; fine for the small groups scenarios use.
            var used = Set<Int>()
            var unmet: [MessageExpectation] = []
            for expectation in expectations {
                if let hit = candidates.first(where: { !used.contains($0.index) && matches($0, expectation) }) {
                    used.insert(hit.index)
                } else {
                    unmet.append(expectation)
                }
            }
            if unmet.isEmpty {
                lastMatch = used.max() ?? lastMatch
                for expectation in expectations {
                    if let hit = candidates.first(where: { matches($0, expectation) }) {
                        try capture(expectation.captures, from: hit.envelope.parameters)
                    }
                }
                return
            }
            if ContinuousClock.now >= deadline {
                let names = unmet.map(\.summary).joined(separator: ", ")
                throw StepFailure(message: "still waiting for \(names) (any order); " + arrivedText(candidates, near: unmet.first!))
            }
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
        guard !candidates.isEmpty else { return "nothing arrived" }
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
