public import SmartDeviceLink

/// A way a message the head unit sent breaks the RPC spec: a mandatory parameter missing, a
/// value of the wrong type, an enum value the spec does not have, a string, number or array
/// out of its bounds, a name the spec does not know.
///
/// A run reports them as warnings (as failures with `--strict`): a head unit's mistake is
/// what a test engineer is there to find, and an app's strict decoder would reject the message.
public struct SpecViolation: Sendable, Hashable {
    /// The message's place in the run's log of received messages.
    public var messageIndex: Int
    /// The message: its function and type.
    public var function: String
    /// Whether it was a response, a notification or a request.
    public var messageType: RPCMessageType
    /// Where in the message, from the function name (`RegisterAppInterface.displayCapabilities.imageFields[0]`).
    public var path: String
    /// What is wrong, in one sentence.
    public var problem: String

    /// The path with its array positions left out, for grouping the same mistake in many items.
    public var pattern: String {
        path.replacing(/\[[0-9]+\]/, with: "[]")
    }
}

/// The spec check of what a head unit sends, for runs and for `sdl-run register`.
package enum HeadUnitSpecCheck {
    /// Every way `message` breaks the spec, checked as strictly as the app's own requests are.
    static func violations(of message: LoggedMessage) -> [SpecViolation] {
        violations(of: message.envelope, index: message.index)
    }

    /// Every way `envelope`, the `index`th message received, breaks the spec.
    package static func violations(of envelope: RPCEnvelope, index: Int) -> [SpecViolation] {
        problems(function: envelope.functionName, messageType: envelope.messageType, parameters: envelope.parameters)
            .map { SpecViolation(messageIndex: index, function: envelope.functionName, messageType: envelope.messageType,
                                 path: $0.path, problem: $0.problem) }
    }

    /// Where and how a received message breaks the spec, for one message (a trace line).
    static func problems(function: String, messageType: RPCMessageType, parameters: JSONObject) -> [(path: String, problem: String)] {
        RPCSpec.shared.violations(function: function, messageType: messageType, parameters: parameters)
            .filter { !isResultCodeOutsideItsList($0) }
            .map { ($0.path, whatIsWrong($0)) }
    }

    /// Responses that break the protocol's pairing: a second response to one request, or a
    /// response of another function than the request with its correlation id (the scenario's
    /// requests as `sent` has them). Either leaves the app matching an answer to the wrong call.
    /// Correlation ids start again with each registration (the lifecycle manager's reconnect),
    /// so each RegisterAppInterface response opens a space of its own.
    static func pairingViolations(of messages: [LoggedMessage], sent: [SentMessage]) -> [SpecViolation] {
        // Each app of a scenario with several has a session, and so correlation ids, of its own.
        let registrations = messages.filter { $0.envelope.functionName == "RegisterAppInterface" && $0.envelope.messageType == .response }
        func registration(at timeMS: Double, of app: String?) -> Int { registrations.count { $0.app == app && $0.timeMS <= timeMS } }
        struct Key: Hashable { var app: String?, registration: Int, correlation: Int32 }
        var asked: [Key: String] = [:]
        for message in sent {
            guard let correlation = message.correlationID else { continue }
            asked[Key(app: message.app, registration: registration(at: message.timeMS, of: message.app), correlation: correlation)] = message.function
        }
        var answered: Set<Key> = []
        var found: [SpecViolation] = []
        for message in messages where message.envelope.messageType == .response {
            let envelope = message.envelope, name = envelope.functionName
            let key = Key(app: message.app, registration: registration(at: message.timeMS, of: message.app), correlation: envelope.correlationID)
            func report(_ problem: String) {
                found.append(SpecViolation(messageIndex: message.index, function: name, messageType: .response,
                                           path: "\(name)#\(key.correlation)", problem: problem))
            }
            if !answered.insert(key).inserted {
                report("second \(name) response to correlation id \(key.correlation): a request gets one response")
            }
            if let function = asked[key], function != name {
                report("\(name) response to correlation id \(key.correlation), which the app used for a \(function) request")
            }
        }
        return found
    }

    /// A result code of the Result enum that the spec leaves out of this response's list. Core
    /// 8.2 itself answers so (ShowAppMenu DISALLOWED in NONE, CancelInteraction INVALID_ID,
    /// SetDisplayLayout WARNINGS), and sdl_ios and sdl_java_suite take any Result value: the
    /// lists are incomplete rather than the head units wrong, so this is not reported. A value
    /// outside the Result enum still is.
    static func isResultCodeOutsideItsList(_ error: RPCValidationError) -> Bool {
        guard case .allowedValues = error.limit else { return false }
        return error.path == "\(error.rpc).resultCode"
    }

    /// The validator's sentence without its advice to the sender ("; add it."): the head
    /// unit's maker is not reading.
    static func whatIsWrong(_ error: RPCValidationError) -> String {
        let sentence = error.description
        guard let advice = sentence.range(of: "; ", options: .backwards) else { return sentence }
        return String(sentence[..<advice.lowerBound])
    }

    /// Every violation of a run's received messages, in the order they came: the spec's, then
    /// the protocol's pairing of responses with the app's requests.
    static func violations(of messages: [LoggedMessage], sent: [SentMessage] = []) -> [SpecViolation] {
        messages.flatMap(violations(of:)) + pairingViolations(of: messages, sent: sent)
    }

    /// One line per distinct mistake, for people: the same mistake in ten array items is one
    /// line that says ten times, with the first item's words.
    static func summary(_ violations: [SpecViolation]) -> [String] {
        var order: [String] = []
        var groups: [String: (first: SpecViolation, count: Int)] = [:]
        for violation in violations {
            let key = "\(violation.function) \(violation.messageType.specName) \(violation.pattern)"
            if let group = groups[key] {
                groups[key] = (group.first, group.count + 1)
            } else {
                groups[key] = (violation, 1)
                order.append(key)
            }
        }
        return order.map { key in
            let (first, count) = groups[key]!
            return first.problem + (count > 1 ? " (\(count) times, here the first)" : "")
        }
    }
}
