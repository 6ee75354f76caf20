public import Logging
import Foundation

/// The one entry point of an SDL app: connects over the transport plan, registers, keeps
/// the HMI state and permissions current, and reconnects when the link drops.
///
/// All state lives in this actor, so events arriving in any order can never crash it: an
/// event that does not fit the current state is logged and ignored.
///
/// ```swift
/// let manager = SDLManager(configuration: SDLConfiguration(
///     appName: "Hello", appID: "hello-1", transports: [.usb(), .tcp(host: "192.168.1.20")]))
/// try await manager.start()
/// _ = try await manager.send(Show(mainField1: "Hello"), timeout: nil)
/// ```
public actor SDLManager: RPCChannel {
    /// The configuration it runs with.
    public private(set) var configuration: SDLConfiguration
    /// Where it is in its life (``states()`` follows it).
    public private(set) var state: LifecycleState = .stopped
    /// The app's HMI state now (``hmiChanges()`` follows it).
    public private(set) var hmiState = HMIState.initial
    /// The head unit's answer to the last successful registration (capabilities, versions).
    public private(set) var registration: RegisterAppInterfaceResponse? { didSet { mirrorSendPath() } }
    /// The protocol session of the current link.
    public private(set) var session: SessionInfo?
    /// Why the manager last stopped or failed to reconnect.
    public private(set) var lastError: SDLError?
    /// Which RPCs the head unit allows, kept current from OnPermissionsChange and OnHMIStatus.
    public nonisolated let permissionManager = PermissionManager()
    /// Uploads and lists files; interrupted uploads resume after a reconnect.
    public nonisolated let fileManager: SDLFileManager
    /// What the head unit can do, from registration, layouts and GetSystemCapability.
    public nonisolated let systemCapabilityManager: SystemCapabilityManager
    /// Text, graphics, soft buttons, menu, voice commands, choice sets, keyboard and alerts.
    public nonisolated let screenManager: ScreenManager
    /// Hardware button subscriptions and the media clock.
    public nonisolated let buttonManager: ButtonManager
    /// Vehicle data reads, subscriptions and updates.
    public nonisolated let vehicleDataManager: VehicleDataManager
    /// Recording from the car's microphone.
    public nonisolated let audioPassThruManager: AudioPassThruManager
    /// Video and audio streaming of navigation and projection apps.
    public nonisolated let streamingMediaManager: StreamingMediaManager
    /// Tap, pan and pinch on the video screen.
    public nonisolated let touchManager: TouchManager
    /// Turn-by-turn guidance on the head unit's navigation screen.
    public nonisolated let navigationManager: NavigationManager
    /// Whether the app must lock its screen (HMI level, driver distraction), and the head unit's icon for it.
    public nonisolated let lockScreenManager: LockScreenManager
    /// Policy table updates and cloud app icons: the OnSystemRequest the app answers by itself.
    public nonisolated let systemRequestManager: SystemRequestManager

    /// Decides the configuration to re-register with after the head unit's language changed
    /// (OnAppInterfaceUnregistered LANGUAGE_CHANGE); nil keeps the old one with the new languages.
    public typealias LanguageChangeHandler = @Sendable (_ language: Language, _ hmiDisplayLanguage: Language, _ current: SDLConfiguration) async -> SDLConfiguration?

    private var languageChangeHandler: LanguageChangeHandler?
    private var frameObserver: (@Sendable (FrameTraceEvent) -> Void)?
    var requestRoute: RequestRoute? { didSet { mirrorSendPath() } }
    /// The link of the current (or coming) registration.
    var connection: SDLConnection? { didSet { mirrorSendPath() } }
    /// Where requests go while the app is registered, for ``send(_:timeout:)`` to read
    /// without a hop onto this actor (see `mirrorSendPath`).
    nonisolated let sendPath = Locked<SendPath?>(nil)
    /// Messages taken from the link and not yet handled here (see ``send(_:timeout:)``).
    nonisolated let backlog = Backlog()
    private var stopping = false
    private var reconnecting = false
    /// True while connectAndRegister runs: a link lost then fails that registration.
    var registering = false
    /// Why the head unit last unregistered the app, until it registers again.
    var unregisteredBy: AppInterfaceUnregisteredReason?
    private var hashID: String?
    private var pendingLanguage: (Language, Language)?
    private let stateObservers = Broadcast<LifecycleState>()
    private let hmiObservers = Broadcast<HMIStateChange>()
    private let messageObservers = Broadcast<RPCEnvelope>()
    let transportObservers = Broadcast<TransportEvent>()
    private let logger: Logger

    /// A manager for this app; nothing connects before ``start()``.
    public init(configuration: SDLConfiguration, logger: Logger = Logger(label: SDLLogModule.lifecycle.label)) {
        self.configuration = configuration
        self.logger = logger
        let relay = ChannelRelay()
        self.fileManager = SDLFileManager(channel: relay, pacing: configuration.uploadPacing, clock: configuration.clock)
        self.systemCapabilityManager = SystemCapabilityManager(channel: relay)
        self.screenManager = ScreenManager(channel: relay, fileManager: fileManager, systemCapabilityManager: systemCapabilityManager)
        self.buttonManager = ButtonManager(channel: relay)
        self.vehicleDataManager = VehicleDataManager(channel: relay)
        self.audioPassThruManager = AudioPassThruManager(channel: relay, clock: configuration.clock)
        self.streamingMediaManager = StreamingMediaManager(channel: relay, capabilities: systemCapabilityManager, clock: configuration.clock)
        self.touchManager = TouchManager(channel: relay, clock: configuration.clock)
        self.navigationManager = NavigationManager(channel: relay)
        self.lockScreenManager = LockScreenManager(configuration: configuration.lockScreen)
        self.systemRequestManager = SystemRequestManager(configuration: configuration.systemRequests, channel: relay,
                                                         logger: Logger(label: SDLLogModule.lifecycle.label))
        relay.attach(self)
    }

    /// Decides what to register again with when the user changes the head unit's language.
    public func setLanguageChangeHandler(_ handler: LanguageChangeHandler?) {
        languageChangeHandler = handler
    }

    // MARK: - Start and stop

    /// Connects over the first transport of the plan that works, registers, and returns
    /// once the manager is ready. Throws the reason when no transport worked, the head unit
    /// refused the app, a minimum version was not met, or it took longer than
    /// ``SDLConfiguration/registrationTimeout``.
    public func start() async throws(SDLError) {
        guard state == .stopped else { return }
        stopping = false
        lastError = nil
        await screenManager.startListening()
        do {
            try await connectAndRegister()
        } catch {
            lastError = error
            // A link that dropped while registering is as transient as one that drops later:
            // the reconnect policy applies. A refusal or a silent peer is final.
            if case .connectionLost = error, configuration.reconnect.maximumAttempts > 0, !stopping {
                await reconnect(after: nil)
                if state == .ready { return }
            }
            transition(to: .stopped)
            throw lastError ?? error
        }
    }

    /// Unregisters (UnregisterAppInterface, then EndService) and closes the link.
    public func stop() async {
        stopping = true
        await systemRequestManager.cancelAll()
        if let connection {
            if registration != nil { _ = try? await connection.send(UnregisterAppInterface(), timeout: .seconds(2)) }
            await connection.stop()
        }
        connection = nil
        registration = nil
        await updateHMI(.initial)  // off the head unit: NONE, whatever arrived before the link closed
        // Updates waiting for the app to be shown would wait forever: let them fail now.
        await screenManager.stopped()
        transition(to: .stopped)
    }

    // MARK: - Observing

    /// The current state, then every change.
    public func states() -> AsyncStream<LifecycleState> {
        stateObservers.subscribe(initial: state)
    }

    /// Each real change of the HMI state, with the old and the new value.
    public func hmiChanges() -> AsyncStream<HMIStateChange> {
        hmiObservers.subscribe()
    }

    /// The first HMI level other than NONE: the moment an app may show its UI. Returns at
    /// once when the app is already past NONE.
    public func firstNonNoneHMILevel() async -> HMILevel {
        if hmiState.hmiLevel != HMILevel.none { return hmiState.hmiLevel }
        for await change in hmiChanges() where change.new.hmiLevel != HMILevel.none {
            return change.new.hmiLevel
        }
        return hmiState.hmiLevel
    }

    /// Every message from the head unit, across reconnects.
    public func messages() -> AsyncStream<RPCEnvelope> {
        messageObservers.subscribe()
    }

    // MARK: - RPCChannel

    /// Waits for the registration on a new link after the old one dropped: returns
    /// `.reconnected` once the manager is ready on a live link, `.gaveUp` when it stopped
    /// (reconnecting off, the policy's attempts used up, or `stop()`).
    public func waitForReconnection() async -> LinkRecovery {
        for await state in states() {
            switch state {
            case .ready:
                if let connection, await connection.session != nil { return .reconnected }
            case .stopped:
                return .gaveUp(lastError?.description ?? "the manager was stopped")
            default:
                continue
            }
        }
        return .gaveUp("the manager was stopped")
    }

    /// The current link's ``SDLConnection/linkExecutor``. After a reconnect it names the new
    /// link's; one taken before runs its jobs on the global pool from then on.
    public var linkExecutor: (any TaskExecutor)? {
        connection?.linkExecutor
    }

    public func notifications<Notification: RPCNotification>(_ type: Notification.Type) -> AsyncStream<Notification> {
        messageObservers.notifications(Notification.self, logger: logger)
    }

    /// The head unit's requests of one kind from now on, over every link this manager opens:
    /// what an app-service provider answers (GetAppServiceData, PerformAppServiceInteraction)
    /// with ``HeadUnitRequest/respond(_:)``, on the link that is up then.
    public func requests<Request: RPCRequest>(_ type: Request.Type) -> AsyncStream<HeadUnitRequest<Request>> {
        messageObservers.requests(Request.self, logger: logger) { [weak self] functionID, correlationID, response, bulkData throws(SDLError) in
            guard let self else { throw SDLError.notConnected }
            try await self.respond(functionID: functionID, correlationID: correlationID, parameters: response, bulkData: bulkData)
        }
    }

    /// Calls `observer` with every frame of every link this manager opens (for traces).
    public func observeFrames(_ observer: @escaping @Sendable (FrameTraceEvent) -> Void) {
        frameObserver = observer
    }

    // MARK: - Connecting

    private func connectAndRegister() async throws(SDLError) {
        registering = true
        defer { registering = false }
        transition(to: reconnecting ? state : .connecting)
        var failure = SDLError.invalidRequest("the transport plan is empty: give SDLConfiguration at least one transport")
        for choice in configuration.transports {
            guard !stopping else { throw SDLError.connectionLost("stopped") }
            var protocolConfiguration = ProtocolConfiguration()
            protocolConfiguration.minimumVersion = configuration.minimumProtocolVersion
            protocolConfiguration.security = configuration.security
            var connectionConfiguration = SDLConnection.Configuration(
                protocolConfiguration: protocolConfiguration, startTimeout: configuration.registrationTimeout,
                requestTimeout: configuration.requestTimeout)
            connectionConfiguration.clock = configuration.clock
            connectionConfiguration.secondaryTransports = configuration.secondaryTransports
            connectionConfiguration.makeSecondaryTransport = configuration.makeSecondaryTransport
            connectionConfiguration.secondaryRetryDelay = configuration.secondaryRetryDelay
            let connection = SDLConnection(transport: choice.make(), configuration: connectionConfiguration)
            if let frameObserver { await connection.observeFrames(frameObserver) }
            relayTransportEvents(of: connection)
            do {
                session = try await connection.start()
            } catch {
                logger.info("\(choice.name): \(error)")
                failure = error
                continue
            }
            // Listen before registering, so nothing that follows the response is missed. A
            // response is for its caller; this loop takes one only to pass it on to
            // `messages()`, so only while someone there takes every message.
            let (observers, backlog) = (messageObservers, backlog)
            let stream = await connection.messages { envelope in
                guard envelope.messageType != .response || observers.hasUnfilteredSubscribers else { return false }
                backlog.arrived()
                return true
            }
            self.connection = connection
            // Weak: the stream ends with the connection, which must be free to go first.
            Task { [weak self, weak connection] in
                for await envelope in stream {
                    await self?.handle(envelope)
                    backlog.handled()
                }
                backlog.caughtUp()
                if let connection { await self?.linkEnded(connection) }
            }
            let response: RegisterAppInterfaceResponse
            let resuming = hashID != nil
            // Before the request: the new head unit's pushes may come before its response is handled.
            await systemCapabilityManager.forgetSystemCapabilities()
            do {
                response = try await connection.send(configuration.registration(resumingWith: hashID), timeout: configuration.registrationTimeout)
            } catch {
                self.connection = nil
                await connection.stop()
                failure = error
                continue
            }
            guard response.success else {
                self.connection = nil
                await connection.stop()
                throw SDLError.unsuccessfulResponse(function: "RegisterAppInterface", resultCode: response.resultCode.rawValue, info: response.info)
            }
            let rpcVersion = ProtocolVersion(response.syncMsgVersion?.majorVersion ?? 1, response.syncMsgVersion?.minorVersion ?? 0,
                                             response.syncMsgVersion?.patchVersion ?? 0)
            guard rpcVersion >= configuration.minimumRPCVersion else {
                _ = try? await connection.send(UnregisterAppInterface(), timeout: .seconds(2))
                self.connection = nil
                await connection.stop()
                throw SDLError.sessionRejected(
                    reason: "the head unit speaks RPC \(rpcVersion), below the minimum \(configuration.minimumRPCVersion) this app needs",
                    rejectedParams: [])
            }
            registration = response
            unregisteredBy = nil
            await lockScreenManager.registered()
            logger.info("\(configuration.appID) registered over \(choice.name): \(response.resultCode.rawValue), RPC \(rpcVersion)\(resuming ? ", resumption asked" : "")")
            transition(to: .registered)
            transition(to: .settingUpManagers)
            if let session { await fileManager.fitChunks(to: session) }
            await systemCapabilityManager.update(registration: response)
            // What the head unit had before a reconnect is read again, never assumed.
            await fileManager.forgetRemoteFiles()
            await screenManager.registered()
            // A head unit that resumed the app (SUCCESS for its hash id) kept its menu,
            // choices and subscriptions; any other starts empty.
            if !(resuming && response.resultCode == .success) {
                await screenManager.headUnitForgot()
                await buttonManager.headUnitForgot()
                await vehicleDataManager.headUnitForgot()
            }
            if let icon = configuration.icon { await setIcon(icon, over: connection, resumed: response.iconResumed == true) }
            transition(to: .ready)
            return
        }
        throw failure
    }

    /// Uploads the icon unless the head unit resumed it, then SetAppIcon. A failure here is
    /// logged, not fatal: the app works without its icon.
    private func setIcon(_ icon: SDLFile, over connection: SDLConnection, resumed: Bool) async {
        guard !resumed else { return }
        do {
            try await fileManager.refresh()
            try await fileManager.upload(icon)
            let response = try await connection.send(SetAppIcon(syncFileName: icon.name), timeout: nil)
            if !response.success { logger.warning("SetAppIcon \(icon.name): \(response.resultCode)") }
        } catch {
            logger.warning("the app icon \(icon.name) was not set: \(error)")
        }
    }

    private func linkEnded(_ ended: SDLConnection) async {
        guard ended === connection else { return }
        connection = nil
        registration = nil
        await updateHMI(.initial)
        guard !stopping else {
            transition(to: .stopped)
            return
        }
        // A link lost while registering fails the registration itself; its caller decides.
        guard !registering else { return }
        await reconnect(after: nil)
    }

    /// Tries to get the link back with exponential back-off, up to the policy's limit.
    private func reconnect(after immediateReason: String?) async {
        guard !reconnecting else { return }
        reconnecting = true
        defer { reconnecting = false }
        let policy = configuration.reconnect
        for attempt in 1...max(policy.maximumAttempts, 1) where policy.maximumAttempts > 0 {
            transition(to: .reconnecting(attempt: attempt))
            if immediateReason == nil || attempt > 1 {
                try? await configuration.clock.sleep(for: policy.delay(beforeAttempt: attempt))
            }
            guard !stopping else { break }
            do {
                try await connectAndRegister()
                return
            } catch {
                lastError = error
                logger.info("reconnect attempt \(attempt) failed: \(error)")
                if case .unsuccessfulResponse = error { break }  // refused: retrying will not help
            }
        }
        if policy.maximumAttempts <= 0 {
            lastError = .connectionLost("the link dropped and reconnecting is off")
        } else if let last = lastError {
            switch last {
            case .transport, .connectionLost:
                lastError = .connectionLost("the link dropped and \(policy.maximumAttempts) reconnect attempts failed, the last: \(Self.cause(last))")
            default:
                break  // a refusal or a timeout says what happened by itself
            }
        } else {
            lastError = .connectionLost("the link dropped and could not be reconnected")
        }
        transition(to: .stopped)
    }

    /// An error's own words, without the "connection lost: " that the caller adds again.
    private static func cause(_ error: SDLError) -> String {
        if case .connectionLost(let why) = error { return why }
        return error.description
    }

    // MARK: - Incoming

    private func handle(_ envelope: RPCEnvelope) async {
        messageObservers.yield(envelope)
        guard envelope.messageType == .notification else { return }
        switch envelope.functionID {
        case OnHMIStatus.functionID:
            if let status = try? envelope.decoded(as: OnHMIStatus.self) { await updateHMI(HMIState(status)) }
        case OnPermissionsChange.functionID:
            if let change = try? envelope.decoded(as: OnPermissionsChange.self) { await permissionManager.update(change.permissionItem) }
        case OnHashChange.functionID:
            hashID = (try? envelope.decoded(as: OnHashChange.self))?.hashID
        case OnSystemCapabilityUpdated.functionID:
            if let update = try? envelope.decoded(as: OnSystemCapabilityUpdated.self) {
                await systemCapabilityManager.update(pushed: update.systemCapability)
            }
        case OnLanguageChange.functionID:
            if let change = try? envelope.decoded(as: OnLanguageChange.self) { pendingLanguage = (change.language, change.hmiDisplayLanguage) }
        case OnDriverDistraction.functionID:
            if let distraction = try? envelope.decoded(as: OnDriverDistraction.self) { await lockScreenManager.update(distraction) }
        case OnSystemRequest.functionID:
            guard let request = try? envelope.decoded(as: OnSystemRequest.self) else { break }
            if request.requestType == .lockScreenIconUrl, let url = request.url {
                await lockScreenManager.iconOffered(at: url)
            } else {
                await systemRequestManager.received(request)
            }
        case OnAppInterfaceUnregistered.functionID:
            if let notice = try? envelope.decoded(as: OnAppInterfaceUnregistered.self) { await unregistered(notice.reason) }
        default:
            break
        }
    }

    /// The head unit unregistered the app. As sdl_ios: stop for reasons a retry cannot fix,
    /// re-register for a language change, and reconnect for the rest (ignition cycles...).
    private func unregistered(_ reason: AppInterfaceUnregisteredReason) async {
        logger.notice("the head unit unregistered the app: \(reason)")
        unregisteredBy = reason
        let fatal: Set<AppInterfaceUnregisteredReason> = [.appUnauthorized, .unsupportedHmiResource, .protocolViolation, .masterReset, .factoryDefaults]
        registration = nil
        if fatal.contains(reason) {
            lastError = .sessionRejected(reason: "the head unit unregistered the app (\(reason))", rejectedParams: [])
            stopping = true
            let ending = connection
            connection = nil
            await ending?.stop()
            await updateHMI(.initial)
            transition(to: .stopped)
            return
        }
        if reason == .languageChange {
            let (language, hmiLanguage) = pendingLanguage ?? (configuration.language, configuration.hmiDisplayLanguage)
            var next = configuration
            next.language = language
            next.hmiDisplayLanguage = hmiLanguage
            if let handler = languageChangeHandler, let chosen = await handler(language, hmiLanguage, configuration) { next = chosen }
            configuration = next
            let ending = connection
            connection = nil
            await ending?.stop()
            await updateHMI(.initial)
            await reconnect(after: "language change")
        }
    }

    // MARK: - State

    private func transition(to new: LifecycleState) {
        guard new != state else { return }
        logger.debug("\(state) → \(new)")
        state = new
        stateObservers.yield(new)
    }

    private func updateHMI(_ new: HMIState) async {
        if new == .initial { await lockScreenManager.disconnected() }  // only ever set when the app leaves the head unit
        guard new != hmiState else { return }
        let change = HMIStateChange(old: hmiState, new: new)
        hmiState = new
        await permissionManager.update(hmiLevel: new.hmiLevel)
        if new != .initial { await lockScreenManager.update(hmiLevel: new.hmiLevel) }
        hmiObservers.yield(change)
    }


}
