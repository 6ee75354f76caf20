public import SmartDeviceLink
import Foundation

/// A head unit that behaves like sdl_core 8.2 toward apps: the stand-in for a TDK.
///
/// It speaks the head-unit role of the protocol on any number of links (in memory, TCP),
/// any number of apps per link, and models registration, HMI levels and policies, menus,
/// alerts, interactions, vehicle data, audio pass-thru, files and resumption. A "driver"
/// API (``activateApp(_:)``, ``selectCommand(_:appID:triggerSource:)``, ...) plays what a
/// person or the car does.
///
/// ```swift
/// let headUnit = HeadUnitEmulator()
/// let link = await headUnit.connectInMemory()
/// let connection = SDLConnection(transport: link)
/// try await connection.start()
/// ```
public actor HeadUnitEmulator {
    /// The configuration the emulator was made with.
    public nonisolated let configuration: EmulatorConfiguration
    /// The display's text field names, which every Show is checked against.
    lazy var displayTextFields = Set(configuration.capabilities["displayCapabilities"]?["textFields"]?.arrayValue?
        .compactMap { $0["name"]?.stringValue } ?? [])
    /// Whether the display is sdl_hmi's, whose DISPLAYS capability by template was recorded.
    lazy var usesRecordedDisplays = configuration.capabilities["displayCapabilities"] == Capabilities.core["displayCapabilities"]

    struct Connection {
        var id: Int
        /// The transport, the head-unit protocol machine, the ordered outbox and the timer.
        var driver: LinkDriver<HeadUnitProtocolMachine>
        /// Mutated in place (`_modify`), so the decoder's buffer is never copied.
        var machine: HeadUnitProtocolMachine {
            get { driver.machine }
            _modify { yield &driver.machine }
        }
        /// What the link is; core names it (AOA_USB, TCP_WIFI...) to pick secondaries and services.
        var kind: TransportKind
        /// Malformed messages on this link, for the malformed-message filter.
        var malformed = SlidingWindow()
        /// Messages per session, for the flood filter.
        var traffic: [UInt8: SlidingWindow] = [:]
    }

    /// Emulated time: timers, heartbeats, flood and malformed-message windows.
    let clock: LinkClock
    var connections: [Int: Connection] = [:]
    /// Session id → the connection registered as its secondary transport.
    var secondaryConnections: [UInt8: Int] = [:]
    /// The first TCP listener's address: the secondary endpoint unless one is configured.
    var listeningAddress: (host: String, port: UInt16)?
    /// Whether the TCP endpoint is up (the driver withdraws and offers it again).
    var tcpOffered = true
    var nextConnectionID = 1
    /// Started RPC sessions (registered or not).
    var sessions: Set<SessionKey> = []
    var apps: [SessionKey: AppState] = [:]
    var registrationCounter = 0
    var resumption: [String: ResumptionRecord] = [:]
    var files: [String: [String: StoredFile]] = [:]
    let storage = UploadStorage()
    /// App id → the file SetAppIcon named, for iconResumed.
    var appIcons: [String: String] = [:]
    var vehicleData: JSONObject
    var unavailableVehicleData: Set<String>
    /// Remote control: modules, who holds them, the driver's answers.
    var rc: RemoteControlState
    /// The policy table now: the configuration's, as policy table updates changed it.
    var policy: PolicyTable
    var policyUpdate = PolicyUpdateState()
    /// Cloud app properties by app id, as SetCloudAppProperties left them.
    var cloudApps: [String: JSONObject] = [:]
    /// The icons of enabled cloud apps, by app id.
    var cloudIcons: [String: CloudIcon] = [:]
    /// App services: what is published, and the requests passed on to providers.
    var appServices = AppServicesState()
    /// The route's waypoints (GetWayPoints, OnWayPointChange): sdl_hmi's four placeholders at first.
    var wayPoints: [JSONObject] = HMIAnswers.wayPoints
    /// The HMI's answer to a GetVehicleData of unavailable items only.
    var unavailableAnswer: (resultCode: String, info: String?) = ("VEHICLE_DATA_NOT_AVAILABLE", nil)
    var timelineStarted = false
    /// The car's driver distraction state (the HMI's last UI.OnDriverDistraction).
    var driverDistracted = false
    var listeners: [TCPListener] = []
    var unixListeners: [UnixSocketListener] = []
    var backgroundTasks: [Task<Void, Never>] = []
    var timers: [Int: Task<Void, Never>] = [:]
    var nextToken = 1
    let subscribers = Broadcast<EmulatorEvent>()
    /// What the HMI was sent (``HMIView``), and the messages of requests not yet answered.
    var hmi = HMILog()
    nonisolated let storageRoot: String
    /// A storage folder the emulator made itself (no `storage.directory` configured) goes
    /// when it stops or is freed; a configured one is the user's and stays.
    private let ownsStorage: Bool
    var stopped = false
    /// Callers of ``waitUntil(timeout:_:)`` (see Emulator+Waiting.swift).
    var stateWaiters: [StateWaiter] = []
    /// Received audio and video, written to files (see Streaming.swift).
    var recordings: [SessionKey: [ServiceType: StreamRecording]] = [:]
    /// The folder of the recordings, made at the first stream.
    var recordingFolder: String?
    /// Timers ending the streams of an app sent to BACKGROUND (core's StopStreamingTimeout).
    var streamEndTimers: [SessionKey: Int] = [:]
    /// The `ts` of the last OnTouchEvent sent, in milliseconds.
    var touchTime = 0

    /// A head unit, not yet listening.
    /// - Parameters:
    ///   - configuration: what it offers and how it behaves (core 8.2's defaults: ``EmulatorConfiguration/standard``).
    ///   - clock: the emulator's time; tests pass a clock they advance themselves.
    public init(configuration: EmulatorConfiguration = .standard, clock: any Clock<Duration> = ContinuousClock()) {
        self.configuration = configuration
        self.clock = LinkClock(clock)
        self.vehicleData = configuration.vehicleData
        self.unavailableVehicleData = configuration.unavailableVehicleData
        self.rc = RemoteControlState(configuration.remoteControl)
        self.policy = configuration.policy
        if let directory = configuration.storageDirectory {
            storageRoot = directory
        } else {
            storageRoot = NSTemporaryDirectory() + "sdl-emulator-" + UUID().uuidString
        }
        ownsStorage = configuration.storageDirectory == nil
    }

    deinit {
        if ownsStorage { try? FileManager.default.removeItem(atPath: storageRoot) }
    }

    // MARK: - Links

    /// Serves the head-unit end of a link: opens it and handles it until it closes.
    /// Returns once the link is being served, with its connection number (nil when it could
    /// not be opened). `kind` says what the link stands for when it is not what it seems (a
    /// USB TDK bridged over TCP is a USB primary to core's rules).
    @discardableResult
    public func serve(_ transport: any SDLTransport, as kind: TransportKind? = nil) async -> Int? {
        let kind = kind ?? transport.kind
        guard !stopped else {
            await transport.close()
            return nil
        }
        let id = nextConnectionID
        nextConnectionID += 1
        var protocolConfiguration = configuration.protocolConfiguration
        protocolConfiguration.connectionHandle = Int32(id)
        protocolConfiguration.heartbeatInterval = configuration.heartbeatTimeoutMs.map { .milliseconds($0) }
        protocolConfiguration.security = configuration.security?.protocolSecurity
        // core sends these lists whether or not secondaries are on.
        let transports = configuration.multipleTransports
        protocolConfiguration.secondaryTransports = transports.secondaryTransports(forPrimary: kind)
        protocolConfiguration.audioServiceTransports = transports.serviceTransports(transports.audioServiceTransports, forPrimary: kind)
        protocolConfiguration.videoServiceTransports = transports.serviceTransports(transports.videoServiceTransports, forPrimary: kind)
        protocolConfiguration.vehicleInfo = VehicleTypeInfo(
            make: configuration.vehicleType["make"]?.stringValue, model: configuration.vehicleType["model"]?.stringValue,
            modelYear: configuration.vehicleType["modelYear"]?.stringValue, trim: configuration.vehicleType["trim"]?.stringValue,
            systemSoftwareVersion: configuration.systemSoftwareVersion, systemHardwareVersion: configuration.systemHardwareVersion)
        // The driver before the link opens: a socket then hands its reads to it directly.
        let connection = Connection(id: id, driver: LinkDriver(transport: transport, configuration: protocolConfiguration, clock: clock),
                                    kind: kind)
        do {
            try await transport.open()
        } catch {
            emit(.connectionClosed(connection: 0, reason: "cannot open \(transport.description): \(error)"))
            return nil
        }
        connection.driver.io.start(
            onBytes: { [weak self] chunk in await self?.received(chunk, on: id) },
            onDeadline: { [weak self] in await self?.tick(id) },
            onClosed: { [weak self] failure in
                await self?.closeConnection(id, reason: failure.map { "link failed: \($0)" } ?? "the app closed the link")
            })
        connections[id] = connection
        emit(.connectionOpened(connection: id, description: transport.description))
        return id
    }

    /// Whether connection `id` is still open.
    public func isOpen(connection id: Int) -> Bool {
        connections[id] != nil
    }

    /// Makes an in-memory link, serves its head-unit end and returns the app end.
    public func connectInMemory() async -> MemoryTransport {
        let (app, headUnit) = MemoryTransport.pair()
        await serve(headUnit)
        return app
    }

    /// Listens for apps on TCP (loopback unless told otherwise); returns the bound port
    /// (useful with port 0). `kind` is what the links stand for, when a bridge carries USB or
    /// Bluetooth over TCP; the first TCP listener is the secondary endpoint announced.
    public func listen(host: String = "127.0.0.1", port: UInt16 = 12345, as kind: TransportKind? = nil) async throws -> UInt16 {
        let listener: TCPListener
        do {
            listener = try TCPListener(host: host, port: port)
        } catch {
            throw EmulatorError.listenFailed("\(host):\(port): \(error)")
        }
        listeners.append(listener)
        if listeningAddress == nil, kind == nil || kind == .tcp { listeningAddress = (host, listener.port) }
        let accepted = listener.connections
        backgroundTasks.append(Task { [weak self] in
            for await link in accepted {
                guard let self else { await link.close(); continue }
                await self.serve(link, as: kind)
            }
        })
        return listener.port
    }

    /// Stops listening, closes every link, cancels every timer, and removes the storage
    /// folder it made itself (a configured `storage.directory` stays).
    public func stop() async {
        stopped = true
        for waiter in stateWaiters { waiter.continuation.resume(returning: false) }
        stateWaiters.removeAll()
        for listener in listeners { listener.close() }
        listeners.removeAll()
        for listener in unixListeners { listener.close() }
        unixListeners.removeAll()
        for id in connections.keys.sorted() { closeConnection(id, reason: "the emulator stopped") }
        for task in backgroundTasks { task.cancel() }
        backgroundTasks.removeAll()
        for task in timers.values { task.cancel() }
        timers.removeAll()
        subscribers.finish()
        storage.close()
        if ownsStorage { try? FileManager.default.removeItem(atPath: storageRoot) }
    }

    // MARK: - Observing

    /// Everything that happens from now on; the stream ends when the emulator stops.
    public func events() -> AsyncStream<EmulatorEvent> {
        subscribers.subscribe()
    }

    /// Built only when someone listens: an event for every request and answer looked up the
    /// app's id by copying its whole state out of `apps`, twice per request, for nobody.
    func emit(_ event: @autoclosure () -> EmulatorEvent) {
        guard subscribers.hasSubscribers else { return }
        subscribers.yield(event())
    }

    /// The state of every registered app and of the vehicle.
    public func snapshot() -> EmulatorSnapshot {
        let list = appsInOrder.map { app in
            AppSnapshot(
                appID: app.appID, appName: app.appName, sessionID: app.key.session, isMedia: app.isMedia,
                hmiLevel: app.hmiLevel, audioStreamingState: app.audioStreamingState, systemContext: app.systemContext,
                videoStreamingState: app.videoStreamingState, commands: app.commands, submenus: app.submenus,
                choiceSets: app.choiceSets, files: Array((files[app.appID] ?? [:]).keys),
                vehicleSubscriptions: app.vehicleSubscriptions, buttonSubscriptions: app.buttonSubscriptions,
                show: app.show, globalProperties: app.globalProperties, hashID: app.hashID, openMenuID: app.openMenuID,
                dialedNumbers: app.dialedNumbers, sentLocations: app.sentLocations,
                streams: Dictionary(uniqueKeysWithValues: app.streams.map { ($0.key == .audio ? "audio" : "video", $0.value) }),
                navigation: app.navigation, windows: app.windows)
        }
        return EmulatorSnapshot(apps: list, vehicleData: vehicleData, connections: connections.count, remoteControl: rcSnapshot)
    }

    // MARK: - Protocol

    private func received(_ chunk: [UInt8], on id: Int) {
        let now = clock.now
        guard let actions = connections.update(id, { $0.machine.receive(chunk, now: now) }) else { return }
        perform(actions, on: id)
        stateChanged()
    }

    private func tick(_ id: Int) {
        guard let actions = connections[id]?.machine.tick(now: clock.now) else { return }
        perform(actions, on: id)
    }

    func write(_ bytes: [UInt8], on id: Int) {
        connections.update(id) { $0.driver.io.enqueue(bytes) }
    }

    func perform(_ actions: [ProtocolAction], on id: Int) {
        defer { connections.update(id) { $0.driver.rearm() } }
        for action in actions {
            guard connections.index(forKey: id) != nil else { return }
            switch action {
            case .send(let bytes):
                write(bytes, on: id)
            case .startServiceRequested(let request):
                startServiceRequested(request, on: id)
            case .sessionStarted(let info):
                let key = SessionKey(connection: id, session: info.sessionID)
                sessions.insert(key)
                emit(.sessionStarted(connection: id, sessionID: info.sessionID, protocolVersion: info.version.description))
                announceSecondary(to: key)
            case .sessionEnded(let sessionID):
                // EndService(RPC) without UnregisterAppInterface: as core, the app is gone
                // without a clean unregistration, so its resumption data is kept.
                sessionGone(SessionKey(connection: id, session: sessionID), reason: "the app ended the RPC service", keepResumption: true)
            case .message(let sessionID, let service, let payload, let protected):
                guard service == .rpc || service == .hybrid else {
                    streamData(payload, service: service, sessionID: sessionID, on: id)
                    continue
                }
                let key = SessionKey(connection: id, session: sessionID)
                if flooded(key) { continue }
                handleRPC(payload, key: key, protected: protected)
            case .serviceStarted(let sessionID, let service, let payload, let protected):
                if service == .audio || service == .video { streamStarted(service, sessionID: sessionID, payload: payload, on: id) }
                if protected { emit(.serviceProtected(connection: id, sessionID: sessionID, service: Self.serviceName(service))) }
            case .serviceStartFailed(let sessionID, let service, _, _) where service == .audio || service == .video:
                // A stream whose protection core refused takes the app to NONE when no other
                // stream runs (ApplicationManagerImpl::HandleRejectedServiceStatus).
                let key = primaryKey(sessionID, on: id)
                if apps[key]?.streams.values.allSatisfy({ $0.runningOn == nil }) == true {
                    apps[key]?.hmiLevel = .none
                    refreshStatus(key)
                }
            case .securityFailed(let sessionID, let failure):
                emit(.securityFailed(connection: id, sessionID: sessionID, reason: failure.fromPeer ? "the app: \(failure.text)" : failure.text))
            case .heartbeatTimedOut(let sessionID):
                sessionGone(SessionKey(connection: id, session: sessionID), reason: "heartbeat timeout", keepResumption: true)
                if !sessions.contains(where: { $0.connection == id }) { closeConnection(id, reason: "heartbeat timeout") }
            case .violation(.malformedFrame(let problem)):
                emit(.malformed(connection: id, reason: problem.description))
                countMalformed(on: id)
            case .secondaryTransportRequested(let sessionID):
                secondaryTransportRequested(sessionID, on: id)
            case .serviceEnded(let sessionID, let service):
                streamEnded(service, sessionID: sessionID, on: id, reason: "the app ended it")
            case .sessionStartFailed, .serviceStartFailed, .serviceEndFailed,
                 .transportEventUpdate, .secondaryTransportRegistered, .secondaryTransportRejected, .violation:
                break
            }
        }
    }

    private func startServiceRequested(_ request: StartServiceRequest, on id: Int) {
        func reject(_ reason: String) -> [ProtocolAction]? {
            connections[id]?.machine.rejectStartService(request, reason: reason, rejectedParams: [])
        }
        let actions: [ProtocolAction]?
        if request.serviceType == .rpc && request.sessionID == 0 {
            // core: the lowest free session id in 1…255, across every connection.
            let used = Set(sessions.map(\.session))
            if let free = (1...255).lazy.map(UInt8.init).first(where: { !used.contains($0) }),
               let accepted = try? connections[id]?.machine.acceptStartService(request, sessionID: free, now: clock.now) {
                actions = accepted
            } else {
                actions = reject("no free session id")
            }
        } else if request.serviceType == .audio || request.serviceType == .video {
            actions = startStream(request, on: id)
        } else if request.serviceType == .rpc {
            // RPC again in its session: the app asking for protection. The machine runs the
            // handshake, or (no security manager) answers with core's NAK for a second RPC service.
            let appID = apps[SessionKey(connection: id, session: request.sessionID)]?.appID
            actions = try? connections[id]?.machine.acceptStartService(request, appID: appID, now: clock.now)
        } else {
            actions = reject("service \(request.serviceType) cannot be started")
        }
        perform(actions ?? [], on: id)
    }

    /// Closes a link; its apps are gone without unregistering (resumption data kept).
    func closeConnection(_ id: Int, reason: String) {
        guard let connection = connections[id] else { return }
        for key in sessions where key.connection == id {
            sessionGone(key, reason: reason, keepResumption: true)
        }
        // A lost secondary ends what ran on it and frees its session to register another
        // (core's OnSecondaryTransportEnded).
        streamsEnded(withConnection: id, reason: reason)
        connections[id] = nil
        secondaryConnections = secondaryConnections.filter { $0.value != id }
        // The writer drains what is queued (a last OnAppInterfaceUnregistered), then closes the transport.
        connection.driver.io.finish()
        emit(.connectionClosed(connection: id, reason: reason))
    }

    /// A session ended: clean up its app.
    func sessionGone(_ key: SessionKey, reason: String, keepResumption: Bool) {
        // The primary gone, its secondary registration is void and its link, used by no
        // other session, is closed (protocol spec §4.6.4).
        if let secondary = secondaryConnections[key.session], secondary != key.connection {
            secondaryConnections[key.session] = nil
            closeConnection(secondary, reason: "the primary transport of session \(key.session) is gone")
        }
        sessions.remove(key)
        guard let app = apps[key] else { return }
        removeApp(key, reason: reason, keepResumption: keepResumption)
        _ = app
    }
}
