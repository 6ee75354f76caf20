import Foundation
import SDLEmulator
import SmartDeviceLink

/// Running one step: sending, expecting, acting, and the bookkeeping between them.
extension RunContext {
    // MARK: Steps

    /// Ends a waiting step at once when the run was stopped (``RunStop`` cancels the steps).
    func checkStopped() throws(StepFailure) {
        if Task.isCancelled { throw StepFailure(message: ScenarioRunner.stoppedMidStep) }
    }

    func execute(_ step: Step) async throws(StepFailure) {
        if step.background {
            await beginAction()
            responseMark = await log.count
            guard let (function, parameters) = singleRequest(of: step.kind) else {
                throw StepFailure(message: "this step cannot run in the background")
            }
            try await post(function, substitute(parameters))
            return
        }
        switch step.kind {
        case .send(let function, let parameters, let bulkFile, let expect, let timeoutMS):
            var bulk: [UInt8] = []
            if let bulkFile {
                guard let data = FileManager.default.contents(atPath: bulkFile) else { throw StepFailure(message: "cannot read bulkFile \(bulkFile)") }
                bulk = Array(data)
            }
            await beginAction()
            let response = try await request(function, substitute(parameters), bulk: bulk, timeoutMS: timeoutMS)
            try await check(response, against: expect, function: function)
            try capture(step.captures, from: response.parameters)
        case .answer(let answer):
            await beginAction()
            responseMark = await log.count
            try await self.answer(answer, captures: step.captures)
        case .notify(let function, let parameters):
            await beginAction()
            responseMark = await log.count
            try await notify(function, substitute(parameters))
        case .expect(let expectations, let order):
            actionsSinceExpectation = false
            defer { operatorWindow = nil }
            try await expect(expectations, order: order)
        case .action(let action, let expect, let timeoutMS):
            await beginAction()
            actionTimeoutMS = timeoutMS
            defer { actionTimeoutMS = nil }
            let response = try await perform(action)
            try await check(response, against: expect, function: response.functionName)
            try capture(step.captures, from: response.parameters)
        case .wait(let milliseconds):
            try? await Task.sleep(for: .milliseconds(milliseconds))
        case .repeat:
            break  // expanded by run(_:)
        case .prompt(let message):
            try await prompt(message)
        case .driver(let action):
            guard let driver else {
                await beginAction()
                return try await operatorDriverStep(action)
            }
            await beginAction()
            responseMark = await log.count
            var resolved = action
            resolved.arguments = substitute(action.arguments)
            // With several apps, a driver step about an app is about the step's (`as`), not the newest.
            if let app = currentApp, resolved.arguments["appID"] == nil,
               HeadUnitEmulator.driverAction(named: action.name)?.parameters.contains(where: { $0.name == "appID" }) == true,
               let appID = scenario.apps.first(where: { $0.name == app })?.app.appID {
                resolved.arguments["appID"] = .string(appID)
            }
            if action.name == "dropTransport" && !driver.dropsTheLink {
                return await cutLink(currentApp)
            }
            do {
                try await driver.perform(resolved)
            } catch {
                throw StepFailure(message: "driver \(action.name) failed: \(error)")
            }
        case .stream(let stream):
            await beginAction()
            try await self.stream(stream)
        case .expectTransport(let expectation):
            defer { operatorWindow = nil }
            try await expectTransport(expectation)
        case .exec(let step):
            await beginAction()
            stepOutput = try await exec(step)
        case .media(let step):
            await beginAction()
            try await stream(step)
        case .expectMedia(let expectation):
            try await expectMedia(expectation)
        case .protect(let step):
            await beginAction()
            try await protect(step)
        case .expectProtected(let expectation):
            try await expectProtected(expectation)
        }
    }

    /// Marks the start of an action; the first one after an expectation opens a new window.
    func beginAction() async {
        guard !actionsSinceExpectation else { return }
        actionsSinceExpectation = true
        actionMark = await log.count
        hmiActionMark = await hmiLog.count
        matched = []
        hmiMatched = []
    }

    /// Sends a request as the step's app, or as `app` (a manager of that app asking).
    func request(_ function: String, _ parameters: JSONObject, bulk: [UInt8] = [], timeoutMS: Int? = nil,
                 as app: String?? = nil) async throws(StepFailure) -> RPCEnvelope {
        let app = app ?? currentApp
        let id = try announce(function, .request, parameters, as: app)
        let sentIndex = sent.count - 1
        let response: RPCEnvelope
        do {
            response = try await manager(app).request(functionID: id, functionName: function, parameters: parameters, bulkData: bulk,
                                                      timeout: timeoutMS.map { .milliseconds($0) })
        } catch {
            throw StepFailure(message: error.description, cause: error)
        }
        // The id the library chose, so the run's check can pair the head unit's answers with it.
        sent[sentIndex].correlationID = response.correlationID
        if let index = await log.waitForResponse(correlationID: response.correlationID, app: app, until: .now + .seconds(1)) {
            responseMark = index + 1
        }
        return response
    }

    /// Records and reports a message that something else (the lifecycle manager) sends;
    /// with `reported: false` only records it, for the caller to report at its moment.
    @discardableResult
    func record(_ function: String, _ parameters: JSONObject, reported: Bool = true, as app: String?? = nil) -> SentMessage {
        var message = SentMessage(timeMS: nowMS, function: function, correlationID: nil, parameters: parameters)
        message.app = app ?? currentApp
        sent.append(message)
        if reported { reporter?.sent(message) }
        return message
    }

    /// The function id of a message about to be sent, which is recorded and reported as sent.
    func announce(_ function: String, _ type: RPCMessageType, _ parameters: JSONObject, as app: String?? = nil) throws(StepFailure) -> UInt32 {
        guard let id = ScenarioSpecCheck.functionID(function, type) else {
            throw StepFailure(message: "\(function) is not a \(type.specName) of the RPC spec")
        }
        var message = SentMessage(timeMS: nowMS, function: function, correlationID: nil, parameters: parameters)
        message.app = app ?? currentApp
        message.isResponse = type == .response
        sent.append(message)
        reporter?.sent(message)
        return id
    }

    /// Sends a request whose response a later `expect` checks.
    func post(_ function: String, _ parameters: JSONObject) async throws(StepFailure) {
        let id = try announce(function, .request, parameters)
        do {
            try await connection.post(functionID: id, parameters: parameters)
        } catch {
            throw StepFailure(message: error.description)
        }
    }

    /// The one request a step sends, for steps that can run in the background.
    func singleRequest(of kind: Step.Kind) -> (String, JSONObject)? {
        switch kind {
        case .send(let function, let parameters, nil, _, _): return (function, parameters)
        case .action(let action, _, _): return ScenarioActions.singleRequest(action)
        default: return nil
        }
    }

    /// Why a request may have been DISALLOWED, when the app's HMI level says so: in NONE the
    /// policy allows almost nothing, and a newcomer's first Show lands there.
    func disallowedHint() async -> String? {
        let level = await log.messages(from: 0).last { $0.app == currentApp && $0.envelope.functionName == "OnHMIStatus" }?
            .envelope.parameters["hmiLevel"]?.stringValue
        guard level == nil || level == "NONE" else { return nil }
        return "The app is in HMI level NONE, where the policy allows almost nothing: activate it first ({\"driver\": \"activateApp\"}, or `driver activateApp` in the console)"
    }

    func notify(_ function: String, _ parameters: JSONObject) async throws(StepFailure) {
        let id = try announce(function, .notification, parameters)
        do {
            try await connection.notify(functionID: id, parameters: parameters)
        } catch {
            throw StepFailure(message: error.description)
        }
    }

    func check(_ response: RPCEnvelope, against expect: ResponseExpectation, function: String) async throws(StepFailure) {
        let code = response.resultCode ?? "(none)"
        let info = response.parameters["info"]?.stringValue.map { " (info: \($0))" } ?? ""
        let hint = code == "DISALLOWED" ? await disallowedHint().map { ". " + $0 } ?? "" : ""
        if let codes = expect.resultCodes, !codes.contains(code) {
            throw StepFailure(message: "\(function) answered \(code)\(info); expected \(codes.joined(separator: " or "))" + hint)
        }
        if let success = expect.success, response.success != success {
            throw StepFailure(message: "\(function) answered \(code)\(info); expected \(success ? "success" : "a failure")" + hint)
        }
        if let matcher = expect.parameters,
           let mismatch = matcher.mismatch(.object(response.parameters), at: function, variables: variables) {
            throw StepFailure(message: mismatch)
        }
    }

    func capture(_ captures: [String: String], from parameters: JSONObject) throws(StepFailure) {
        for (name, path) in captures.sorted(by: { $0.key < $1.key }) {
            guard let value = JSONPathLookup.value(at: path, in: .object(parameters)) else {
                throw StepFailure(message: "cannot capture ${\(name)}: the message has no '\(path)'")
            }
            variables[name] = value
        }
    }

    func substitute(_ parameters: JSONObject) -> JSONObject {
        parameters.mapValues(substitute)
    }

    func substitute(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("${") && text.hasSuffix("}") && !text.dropFirst(2).contains("${"):
            return variables[String(text.dropFirst(2).dropLast())] ?? value
        case .string(let text) where text.contains("${"):
            var result = text
            for (name, bound) in variables {
                result = result.replacingOccurrences(of: "${\(name)}", with: bound.stringValue ?? bound.description)
            }
            return .string(result)
        case .array(let items): return .array(items.map(substitute))
        case .object(let object): return .object(object.mapValues(substitute))
        default: return value
        }
    }
}
