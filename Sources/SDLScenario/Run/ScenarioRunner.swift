public import SmartDeviceLink
import Foundation

/// Something that performs driver actions (the emulator); absent on a real head unit.
public protocol ScenarioDriver: Sendable {
    /// Performs `action`; throws a message-bearing error when it cannot.
    func perform(_ action: DriverAction) async throws
    /// Whether `dropTransport` is the head unit's to do. When it is not (the HMI of a real
    /// head unit has no such button), the runner cuts the app's own end of the link.
    var dropsTheLink: Bool { get }
    /// What the head unit's HMI is sent from now on (nil: this driver cannot see it), for
    /// `{"expect": {"hmi": ...}}`. The stream ends when the caller stops iterating it.
    func hmiMessages() async -> AsyncStream<HMIMessage>?
    /// The file the head unit recorded the app's "audio" or "video" stream to, if it records.
    func recording(of service: String) async -> String?
    /// Whether the HMI plays its part of the policy table updates the head unit starts
    /// (on for a scenario with a policy server), set before each scenario.
    func playPolicyUpdates(_ on: Bool) async
}

extension ScenarioDriver {
    public var dropsTheLink: Bool { true }
    public func hmiMessages() async -> AsyncStream<HMIMessage>? { nil }
    public func recording(of service: String) async -> String? { nil }
    public func playPolicyUpdates(_ on: Bool) async {}
}

/// A request or notification the head unit's HMI was sent (by sdl_core, or what the
/// emulator's `HMIView` says core would have sent).
public struct HMIMessage: Sendable {
    /// `Interface.Function`, e.g. `UI.Show`.
    public var method: String
    /// The message's parameters.
    public var params: JSONObject
    /// Whether it is a request (else a notification).
    public var isRequest: Bool

    /// A message, request or notification as `isRequest` says.
    public init(method: String, params: JSONObject, isRequest: Bool) {
        (self.method, self.params, self.isRequest) = (method, params, isRequest)
    }

    /// A message known by name only (the emulator's view): HMI API notifications are `On…`.
    public init(method: String, params: JSONObject) {
        self.init(method: method, params: params, isRequest: !method.contains(".On"))
    }

    /// As a log entry beside the app's messages, so expectations match it the same way.
    var envelope: RPCEnvelope {
        RPCEnvelope(messageType: isRequest ? .request : .notification, functionID: 0, functionName: method, correlationID: 0,
                    parameters: params)
    }
}

/// Where a scenario runs: how to reach the head unit, and its driver if it has one.
public struct ScenarioTarget: Sendable {
    /// For reports: "embedded emulator", "TCP 10.0.0.5:12345", "USB".
    public var name: String
    /// Makes an unopened transport to the head unit (again on every reconnect).
    public var makeTransport: @Sendable () throws -> any SDLTransport
    /// Who performs driver steps; nil: a real head unit, where an operator does.
    public var driver: (any ScenarioDriver)?
    /// Called when the run ends (e.g. to stop an embedded emulator).
    public var finish: @Sendable () async -> Void
    /// How long the head unit may take to accept the app: StartService, then RegisterAppInterface.
    public var registrationTimeout: Duration = .seconds(20)
    /// Whether each app of a scenario with several may have a transport of its own (TCP, the
    /// embedded emulator); false: one link carries them all, each on a session of its own
    /// (the library's `SharedLink`), as a USB or Bluetooth link does.
    public var allowsSeveralApps = true
    /// Whether the target runs the scenario's policy server itself (the embedded emulator,
    /// which must know its URL); otherwise the run starts it where the scenario says.
    public var startsPolicyServer = false

    /// A target reached through `makeTransport`.
    public init(name: String, makeTransport: @escaping @Sendable () throws -> any SDLTransport,
                driver: (any ScenarioDriver)? = nil, finish: @escaping @Sendable () async -> Void = {}) {
        self.name = name
        self.makeTransport = makeTransport
        self.driver = driver
        self.finish = finish
    }
}

/// What to do with `prompt` steps.
public enum PromptPolicy: String, Sendable, CaseIterable {
    /// Ask the operator on the terminal and wait for Enter.
    case ask
    /// Report the step as skipped (CI against the emulator).
    case skip
    /// Fail the step (CI that must not silently skip operator checks).
    case fail
}

/// Receives a run's progress as it happens (the console log).
public protocol ScenarioReporter: Sendable {
    /// A scenario starts on `target`.
    func started(_ scenario: Scenario, target: String)
    /// The app sent a request or notification.
    func sent(_ message: SentMessage)
    /// A message came from the head unit.
    func received(_ message: LoggedMessage)
    /// A transport event: the secondary registered or lost, a service moved.
    func transport(_ event: Logged<TransportEvent>)
    /// A step ended.
    func finished(_ step: StepResult)
    /// Something worth saying during a step (an upload's progress).
    func progress(_ text: String)
    /// The scenario ended.
    func finished(_ result: ScenarioResult)
}

extension ScenarioReporter {
    public func transport(_ event: Logged<TransportEvent>) {}
}

/// Runs scenarios.
public struct ScenarioRunner: Sendable {
    /// Why a step after a failed one did not run (a comparison tells it from a step one head unit cannot run).
    static let earlierStepFailed = "not run: an earlier step failed"
    static let notRunStopped = "not run: the run was stopped"
    static let stoppedMidStep = "the run was stopped before this step ended"
    /// What `prompt` steps do: ask, skip or fail.
    public var promptPolicy: PromptPolicy
    /// Where the files a scenario writes go (`sdl-run --output-dir`); nil: beside the scenario.
    public var outputDirectory: String?
    /// Receives the run's progress (the console log); nil: nothing is printed.
    public var reporter: (any ScenarioReporter)?
    /// Receives every frame (for `--trace`).
    public var frameObserver: (@Sendable (FrameTraceEvent, _ app: String?) -> Void)?
    /// The secondary transports the app may open (`--secondary`); nil for the library's defaults.
    public var secondaryTransports: Set<SecondaryTransportKind>?
    /// How a secondary is opened (`--secondary usb-gadget`); nil for the library's.
    public var makeSecondaryTransport: (@Sendable (SecondaryEndpoint) -> any SDLTransport)?
    /// The app's certificate for protected services (`--certificate`), over the scenario's own.
    public var security: SecurityConfiguration?
    /// On a real head unit, how long the expectation after a driver step waits for the
    /// operator to do it (`--operator-timeout`).
    public var operatorTimeout: Duration = .seconds(120)
    /// On a real head unit, driver actions done by a local command instead of an operator
    /// (`--driver-command selectCommand=./robot-tap.sh`): action name → command line.
    public var driverCommands: [String: String] = [:]
    /// Whether a message from the head unit that breaks the RPC spec fails the run (`--strict`);
    /// otherwise each is a warning in the result.
    public var strict = false
    /// Ends the run early when requested (Ctrl-C, SIGTERM): steps stop, apps still unregister.
    public var stop: RunStop?

    /// A runner; the other options are set on the value.
    public init(promptPolicy: PromptPolicy = .ask, reporter: (any ScenarioReporter)? = nil,
                frameObserver: (@Sendable (FrameTraceEvent, _ app: String?) -> Void)? = nil) {
        self.promptPolicy = promptPolicy
        self.reporter = reporter
        self.frameObserver = frameObserver
    }

    /// Connects, registers the scenario's app, runs every step, unregisters.
    /// Runs until the scenario passes or `attempts` runs were made, each on a fresh target;
    /// an invalid scenario is not run again. The result says how many runs it took.
    public func run(_ scenario: Scenario, attempts: Int,
                    target: () async throws -> ScenarioTarget) async rethrows -> ScenarioResult {
        var result = await run(scenario, on: try await target())
        var attempt = 1
        while result.status != .passed, result.status != .invalid, stop?.reason == nil, attempt < attempts {
            attempt += 1
            reporter?.progress("RETRY \(scenario.name): attempt \(attempt) of \(attempts) after \(result.status.rawValue)")
            result = await run(scenario, on: try await target())
        }
        result.attempts = attempt
        return result
    }

    /// Connects to `target`, registers the scenario's app, runs every step and unregisters; never throws, the result says what happened.
    public func run(_ scenario: Scenario, on target: ScenarioTarget) async -> ScenarioResult {
        let start = ContinuousClock.now
        let startedAt = Date()
        reporter?.started(scenario, target: target.name)
        let log = MessageLog(start: start)
        var hmiMessages: MessageLog?
        let strict = strict
        // The scenario's policy server, where the head unit's policy table sends the app.
        var policyServer: PolicyServer?
        func finish(_ status: ScenarioResult.Status, _ message: String?, _ steps: [StepResult], sent: [SentMessage]) async -> ScenarioResult {
            await target.finish()
            policyServer?.stop()
            let messages = await log.messages
            var result = ScenarioResult(
                name: scenario.name, source: scenario.source, target: target.name, status: status, message: message,
                steps: steps, durationMS: (ContinuousClock.now - start).milliseconds, messages: messages, sent: sent)
            result.specViolations = HeadUnitSpecCheck.violations(of: messages, sent: sent)
            if strict, status == .passed, let first = HeadUnitSpecCheck.summary(result.specViolations).first {
                result.status = .failed
                result.message = "--strict: the head unit broke the RPC spec \(result.specViolations.count) times, first: \(first)"
            }
            result.startedAt = startedAt
            result.hmiMessages = await hmiMessages?.messages ?? []
            reporter?.finished(result)
            return result
        }

        // Each app's lifecycle manager registers it and reconnects when the link drops
        // mid-scenario (a driver step may drop it on purpose); one transport choice: the target,
        // a session of its own per app.
        let kind: TransportKind
        do {
            kind = try target.makeTransport().kind  // a target that cannot even make its transport fails here, once
        } catch {
            return await finish(.connectionFailed, "\(error)", [], sent: [])
        }
        await target.driver?.playPolicyUpdates(scenario.policyServer != nil)
        if let spec = scenario.policyServer, !target.startsPolicyServer {
            do {
                policyServer = try PolicyServer(spec)
            } catch {
                return await finish(.connectionFailed, error.description, [], sent: [])
            }
        }
        let transports = EventLog<TransportEvent>(start: start)
        let roster = scenario.apps.isEmpty ? [(name: String?.none, app: scenario.app)] : scenario.apps.map { (name: Optional($0.name), app: $0.app) }
        // Several apps on a link that is one (USB, Bluetooth): a session each on it, as a router service does.
        let shared = roster.count > 1 && !target.allowsSeveralApps
            ? SharedLink(kind: kind, target.makeTransport) : nil
        var sessions: [AppSession] = []
        for (name, app) in roster {
            var appTarget = target
            if let shared { appTarget.makeTransport = { shared.session(name ?? app.appName) } }
            sessions.append(await AppSession(name: name, app: app, runner: self, target: appTarget,
                                             policyUpdates: scenario.policyServer != nil))
        }
        let context = RunContext(scenario: scenario, managers: Dictionary(uniqueKeysWithValues: sessions.map { ($0.name ?? "", $0.manager) }),
                                 log: log, transports: transports, driver: target.driver, reporter: reporter,
                                 promptPolicy: promptPolicy, start: start)
        for index in sessions.indices {
            await sessions[index].log(into: log, transports: transports, context: context, reporter: reporter)
        }
        let hmiLog = context.hmiLog
        hmiMessages = hmiLog
        let gestureLog = context.gestures
        // Every app's touch manager: the gestures are the navigation app's, whichever it is.
        for session in sessions {
            let gestureStream = await session.manager.touchManager.gestures()
            let name = session.name
            Task { for await gesture in gestureStream { await gestureLog.append(gesture, app: name) } }
        }
        let hmiWatch: Task<Void, Never>? = await target.driver?.hmiMessages().map { stream in
            Task { for await message in stream { await hmiLog.append(message.envelope) } }
        }
        defer { hmiWatch?.cancel() }
        await context.setHMIVisible(hmiWatch != nil)
        await context.setSecondaryKinds(secondaryTransports)
        let links = Dictionary(uniqueKeysWithValues: sessions.map { ($0.name ?? "", $0.currentLink) })
        await context.setLinkCutter { app in
            let link = links[app ?? ""]?.withLock { $0 }
            await link?.close()
        }
        await context.setOperator(timeout: operatorTimeout, commands: driverCommands)
        await context.setOutputDirectory(outputDirectory)
        // The apps register one after the other, in the scenario's order.
        for session in sessions {
            do {
                try await session.manager.start()
            } catch {
                // A start that failed may leave its link and tasks behind: `watch` runs scenario
                // after scenario in one process, and each refused head unit would keep them.
                for session in sessions { await session.stop() }
                let message: String
                if case .unsuccessfulResponse(_, let code, let info) = error {
                    message = "the head unit refused " + (session.name.map { "the app \($0)" } ?? "the app") + " with \(code)" + (info.map { ": \($0)" } ?? "")
                } else {
                    message = error.description  // reported as "connection failed: …", which says the rest
                }
                return await finish(.connectionFailed, message, [], sent: await context.sent)
            }
            // The console in wire order: the registration's response (taken in by the manager
            // already) is logged before anything else is reported.
            await log.waitFor(until: .now + .seconds(1), app: .some(session.name)) {
                $0.messageType == .response && $0.functionName == "RegisterAppInterface"
            }
        }
        let steps = scenario.steps
        let results = await (stop ?? RunStop()).cancellable {
            var results: [StepResult] = []
            await context.run(steps, suffix: "", into: &results)
            return results
        }
        for session in sessions {
            await context.record("UnregisterAppInterface", [:], as: .some(session.name))
            let unregistering = await session.manager.registration != nil
            await session.manager.stop()
            // The response reached the manager before stop() returned; the recorder logs it a
            // moment later. Waiting for it puts it in every run's log, not only in the runs where
            // the recorder was quick (`compare` saw it on one side only).
            if unregistering {
                await log.waitFor(until: .now + .seconds(1), app: .some(session.name)) {
                    $0.messageType == .response && $0.functionName == "UnregisterAppInterface"
                }
            }
        }
        // The links' end is reported before the verdict, which is the last line; nothing after it.
        await transports.waitUntil(.now + .seconds(1)) { !EventLog.primaryUp($0) }
        for session in sessions { session.stopRecording() }
        // The recorders end by themselves when the managers go away with this run.
        if results.contains(where: { $0.status == .failed }) {
            return await finish(.failed, nil, results, sent: await context.sent)
        }
        if let reason = stop?.reason, results.contains(where: { [Self.notRunStopped, Self.stoppedMidStep].contains($0.message) }) {
            return await finish(.stopped, "stopped by \(reason); the app unregistered", results, sent: await context.sent)
        }
        return await finish(.passed, nil, results, sent: await context.sent)
    }
}

/// Stands in for a transport the target could not make on a reconnect; opening it fails.
package final class UnavailableTransport: SDLTransport {
    package let description = "unavailable transport"
    package var kind: TransportKind { .memory }
    package let incoming = AsyncThrowingStream<[UInt8], any Error> { $0.finish() }
    package init() {}
    package func open() async throws(TransportError) { throw TransportError.unsupported("the target cannot make its transport any more") }
    package func send(_ bytes: [UInt8]) async throws(TransportError) { throw TransportError.closed(description) }
    package func close() async {}
}

/// A step failure with the message a user reads.
struct StepFailure: Error {
    var message: String
    var skipped = false
    /// The library's error behind the failure, when there is one.
    var cause: SDLError?
    /// What an `exec` command printed before it failed.
    var output: String?
}

/// State of one run: variables, where expectations search, what was sent.
actor RunContext {
    let scenario: Scenario
    /// Each app's manager by its `as` name ("" for the one app of a scenario without `apps`).
    let managers: [String: SDLManager]
    /// The app the running step acts as (nil in a scenario of one app).
    var currentApp: String?
    let log: MessageLog
    /// Transport events (secondary registered, service moved...), searched in order.
    let transports: EventLog<TransportEvent>
    var lastTransportMatch = -1
    /// Touch gestures the app recognised, searched in order by `gesture` expectations.
    let gestures: EventLog<TouchGesture>
    var lastGestureMatch = -1
    let driver: (any ScenarioDriver)?
    let reporter: (any ScenarioReporter)?
    let promptPolicy: PromptPolicy
    var outputDirectory: String?
    let start: ContinuousClock.Instant
    /// What the run sent, in order (only the step code appends).
    var sent: [SentMessage] = []
    var variables: [String: JSONValue] = [:]
    /// Log position when the first action after the last expectation started: expectations
    /// search from here (so "do A, do B, expect what A and B caused" sees both)...
    var actionMark = 0
    /// True once an action ran since the last expectation step.
    var actionsSinceExpectation = false
    /// ...less the messages expectations since then already matched (one window: see `expect`).
    var matched: Set<Int> = []
    /// The head unit's requests an `answer` step answered, by place in the log.
    var answered: Set<Int> = []
    /// Log position after the last action's response. `never` and `count` expectations start
    /// here: a notification already on the wire when the request went out (say the OnHashChange
    /// of the step before) comes before the response and belongs to the earlier step.
    var responseMark = 0
    /// Responses to requests the library's managers sent for high-level actions.
    var managerResponses: [RPCEnvelope] = []
    /// The `timeout` of the action step running: how long each of its requests waits for its
    /// response (a putFile's chunks on a slow TDK, or a stalled link found sooner).
    var actionTimeoutMS: Int?
    var failedAlready = false
    /// What the last step printed or sent (an `exec` step's output, a stream's summary), for its step result.
    var stepOutput: String?
    /// Operator settings for driver steps on a real head unit (see OperatorSteps.swift).
    var operatorTimeout: Duration = .seconds(120)
    var driverCommands: [String: String] = [:]
    /// Set by a driver step handed to the operator: the next expectation waits this long.
    var operatorWindow: Duration?
    /// A driver step skipped for want of an operator: every later step depends on it.
    /// Why every step from here on is skipped: an earlier step was, and the rest depend on it.
    var skippingRest: String?
    /// The secondary transports the app may open (nil: the library's defaults for its primary).
    var secondaryKinds: Set<SecondaryTransportKind>?
    /// What the head unit's HMI was sent, for `hmi` expectations (stays empty where the driver cannot see it).
    let hmiLog: MessageLog
    /// Where `hmi` expectations search from: the first action since the last expectation,
    /// less the HMI messages already matched since then.
    var hmiActionMark = 0
    /// Whether the driver sees what the HMI is sent (the embedded emulator, sdl_core with --hmi).
    var hmiVisible = false
    var hmiMatched: Set<Int> = []
    /// Closes an app's end of its current link, for `dropTransport` where the driver cannot.
    var cutLink: @Sendable (String?) async -> Void = { _ in }

    init(scenario: Scenario, managers: [String: SDLManager], log: MessageLog, transports: EventLog<TransportEvent>,
         driver: (any ScenarioDriver)?, reporter: (any ScenarioReporter)?, promptPolicy: PromptPolicy, start: ContinuousClock.Instant) {
        self.scenario = scenario
        self.managers = managers
        self.currentApp = scenario.apps.first?.name
        self.log = log
        self.transports = transports
        self.driver = driver
        self.reporter = reporter
        self.promptPolicy = promptPolicy
        self.start = start
        self.hmiLog = MessageLog(start: start)
        self.gestures = EventLog(start: start)
        self.variables = scenario.variables
    }

    var nowMS: Double { (ContinuousClock.now - start).milliseconds }

    func setOutputDirectory(_ directory: String?) { outputDirectory = directory }
    func setHMIVisible(_ visible: Bool) { hmiVisible = visible }
    func setSecondaryKinds(_ kinds: Set<SecondaryTransportKind>?) { secondaryKinds = kinds }
    func setLinkCutter(_ cut: @escaping @Sendable (String?) async -> Void) { cutLink = cut }

    /// The manager of the step's app, or of `app`.
    func manager(_ app: String?) -> SDLManager { managers[app ?? ""]! }
    /// The manager of the app the running step acts as.
    var connection: SDLManager { manager(currentApp) }
    /// The running step's app; in a scenario of several apps, the first unless it says `as`.
    func app(of step: Step) -> String? { scenario.apps.isEmpty ? nil : step.app ?? scenario.apps[0].name }

    /// Where a file the scenario writes goes: under the output directory when there is one
    /// (a relative name keeps its subfolders), else where the scenario said.
    func outputPath(written: String, resolved: String) -> String {
        guard let outputDirectory, !written.hasPrefix("/") else { return resolved }
        return (outputDirectory as NSString).appendingPathComponent(written)
    }

    func run(_ steps: [Step], suffix: String, into results: inout [StepResult]) async {
        for step in steps {
            if case .repeat(let times, let inner) = step.kind {
                for iteration in 1...times {
                    await run(inner, suffix: "\(suffix)#\(iteration)", into: &results)
                }
                continue
            }
            let begin = nowMS
            var result = StepResult(path: step.path + suffix, summary: step.summary, status: .passed, message: nil, startMS: begin, durationMS: 0)
            if Task.isCancelled {
                result.status = .skipped
                result.message = ScenarioRunner.notRunStopped
            } else if failedAlready {
                result.status = .skipped
                result.message = ScenarioRunner.earlierStepFailed
            } else if let skipped = skippingRest {
                result.status = .skipped
                result.message = "not run: \(skipped)"
            } else {
                currentApp = app(of: step)
                do {
                    try await execute(step)
                    result.output = stepOutput
                } catch where Task.isCancelled {
                    // Whatever the step was waiting for when the run was stopped, it did not fail.
                    result.status = .skipped
                    result.message = ScenarioRunner.stoppedMidStep
                    result.output = error.output
                } catch {
                    result.status = error.skipped ? .skipped : .failed
                    result.message = error.message
                    result.output = error.output
                    if !error.skipped { failedAlready = true }
                }
                stepOutput = nil
            }
            result.durationMS = nowMS - begin
            reporter?.finished(result)
            results.append(result)
        }
    }
}

/// Looks up `a.b[0].c` in a JSON value.
enum JSONPathLookup {
    static func value(at path: String, in root: JSONValue) -> JSONValue? {
        var current: JSONValue? = root
        for component in path.split(separator: ".") {
            var name = Substring(component)
            var indices: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]"), let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) {
                indices.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { current = current?[String(name)] }
            for index in indices {
                guard let items = current?.arrayValue, items.indices.contains(index) else { return nil }
                current = items[index]
            }
        }
        return current
    }
}
