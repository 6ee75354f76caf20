import SmartDeviceLink

/// One app of a running scenario: its lifecycle manager on a transport of its own, and the
/// tasks that log what it receives and what its links do, tagged with its `as` name.
struct AppSession: Sendable {
    /// The app's `as` name; nil in a scenario of one app (nothing is tagged).
    let name: String?
    let app: AppDescription
    let manager: SDLManager
    /// The app's link now (made again on every reconnect), for cutting it from the app's side.
    let currentLink: Locked<(any SDLTransport)?>
    /// Logs the app's transport events; cancelled at the end (the message recorder ends by
    /// itself when the manager goes away).
    private var transportRecorder: Task<Void, Never>?

    /// A manager for `app` on a transport `target` makes, set up as `runner` says.
    init(name: String?, app: AppDescription, runner: ScenarioRunner, target: ScenarioTarget, policyUpdates: Bool) async {
        self.name = name
        self.app = app
        let makeTransport = target.makeTransport
        let currentLink = Locked<(any SDLTransport)?>(nil)
        var configuration = app.configuration(transports: [TransportChoice(target.name) {
            let link = (try? makeTransport()) ?? UnavailableTransport()
            currentLink.withLock { $0 = link }
            return link
        }])
        configuration.systemRequests.policyUpdates = policyUpdates
        configuration.systemRequests.cloudAppIcons = policyUpdates
        configuration.reconnect = ReconnectPolicy(initialDelay: .milliseconds(200), maximumAttempts: 5)
        configuration.registrationTimeout = target.registrationTimeout
        configuration.secondaryTransports = runner.secondaryTransports
        if let makeSecondaryTransport = runner.makeSecondaryTransport { configuration.makeSecondaryTransport = makeSecondaryTransport }
        if let security = runner.security { configuration.security = security }  // --certificate over the scenario's
        self.currentLink = currentLink
        manager = SDLManager(configuration: configuration)
        if let observer = runner.frameObserver { await manager.observeFrames { observer($0, name) } }
    }

    /// Starts logging what the app receives and what its links do, and routes its managers'
    /// requests through the run (each announced, reported and traced as the scenario's).
    mutating func log(into log: MessageLog, transports: EventLog<TransportEvent>, context: RunContext,
                      reporter: (any ScenarioReporter)?) async {
        let name = self.name
        // The console in the order things happened: the link comes up, the lifecycle manager
        // sends RegisterAppInterface on it, then the head unit's messages.
        let registration = await context.record("RegisterAppInterface", app.registrationParameters, reported: false, as: .some(name))
        let registrationReported = Locked(false)
        let transportEvents = await manager.transportEvents()
        transportRecorder = Task {
            for await event in transportEvents {
                await transports.append(event, app: name) { logged in
                    reporter?.transport(logged)
                    guard case .primaryConnected = event, !registrationReported.withLock({ was in defer { was = true }; return was }) else { return }
                    var sentNow = registration
                    sentNow.timeMS = logged.timeMS
                    reporter?.sent(sentNow)
                }
            }
        }
        let messages = await manager.messages()
        Task {
            var linkReported = false
            for await envelope in messages {
                if !linkReported {
                    linkReported = await transports.waitFor(until: .now + .seconds(1), app: .some(name)) {
                        if case .primaryConnected = $0 { true } else { false }
                    }
                }
                // Reported as it is logged: a step that finds it in the log prints after it.
                await log.append(envelope, app: name) { reporter?.received($0) }
            }
        }
        // Weak: the run keeps the manager, the manager must not keep the run.
        await manager.routeRequests { [weak context] function, parameters, bulk, timeout throws(SDLError) in
            guard let context else { throw SDLError.notConnected }
            return try await context.managerRequest(function, parameters, bulk: bulk, timeout: timeout, as: name)
        }
    }

    /// Stops the manager (a refused start leaves its link and tasks behind otherwise) and the logging.
    func stop() async {
        await manager.stop()
        stopRecording()
    }

    /// Ends the transport recorder.
    func stopRecording() {
        transportRecorder?.cancel()
    }
}
