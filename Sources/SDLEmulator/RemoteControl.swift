public import SmartDeviceLink

/// The head unit's remote-control state: who holds which module, what the driver agreed to,
/// and the modules' data (core's resource allocation and consent managers, the HMI's models).
struct RemoteControlState: Sendable {
    var allowed: Bool
    var accessMode: String
    /// Every module of the capabilities, in core's order, with whether several apps may use it.
    let modules: [(module: RCModule, multipleAccess: Bool)]
    var data: [RCModule: JSONObject] = [:]
    var holders: [RCModule: SessionKey] = [:]
    /// The driver's answers by app id (core keeps them per app and device).
    var consents: [String: [RCModule: Bool]] = [:]
    /// Modules the driver refused an app while asked (core's rejected resources).
    var refused: [SessionKey: Set<RCModule>] = [:]
    /// The request waiting for the driver's answer (RC.GetInteriorVehicleDataConsent).
    var question: ConsentQuestion?

    init(_ settings: RemoteControlSettings) {
        allowed = settings.allowed
        accessMode = settings.accessMode
        modules = RCModel.modules(settings.capability ?? [:])
    }
}

struct ConsentQuestion: Sendable {
    var request: IncomingRequest
    var modules: [RCModule]
    /// Answers already known, in the request's order; nil where the driver is asked.
    var known: [Bool?]
    /// What runs once the driver agreed, for a request that needs the module (not for
    /// GetInteriorVehicleDataConsent, which is answered with the consents).
    var then: (@Sendable (isolated HeadUnitEmulator) -> Void)?
}

/// Remote control as sdl_core 8.2's rc_rpc_plugin does it, with sdl_hmi's modules: each request
/// passes core's checks in core's order with its texts (rc_command_request.cc), a module another
/// app holds is handed over by the access mode, and what the car changes reaches the subscribers.
extension HeadUnitEmulator {
    enum RCAccess { case allowed, inUse, askDriver, rejected }

    /// core's checks before any RC request runs; false after answering.
    func passesRCChecks(_ request: IncomingRequest, type: String) -> Bool {
        guard let capability = configuration.remoteControl.capability else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "RC is not supported by system")
            return false
        }
        guard let app = apps[request.key], app.appHMITypes.contains("REMOTE_CONTROL") else {
            respond(request, "DISALLOWED")
            return false
        }
        guard rc.allowed else {
            respond(request, "USER_DISALLOWED", info: "Remote control is disabled by user")
            return false
        }
        guard !capability.isEmpty else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "Accessing not supported module")
            return false
        }
        guard policy.moduleTypes(for: app.appID)?.contains(type) ?? false else {
            respond(request, "DISALLOWED", info: "The RPC is disallowed by vehicle settings")
            return false
        }
        return true
    }

    /// The module a request means: its moduleId, or core's default for the type (the first of the capabilities).
    func rcModule(_ type: String, id: String?) -> RCModule {
        RCModule(type: type, id: id ?? rc.modules.first { $0.module.type == type }?.module.id ?? "")
    }

    func rcModuleExists(_ module: RCModule) -> Bool { rc.modules.contains { $0.module == module } }

    /// Whether several apps may use the module (its moduleInfo's allowMultipleAccess, true when left out).
    func allowsMultipleAccess(_ module: RCModule) -> Bool { rc.modules.first { $0.module == module }?.multipleAccess ?? true }

    func rcData(_ module: RCModule) -> JSONObject { rc.data[module] ?? RCModel.initialData(module.type) }

    func access(_ module: RCModule, for key: SessionKey) -> RCAccess {
        guard let holder = rc.holders[module], holder != key else { return .allowed }
        if rc.refused[key]?.contains(module) == true { return .rejected }
        guard apps[key]?.hmiLevel == .full else { return .rejected }
        guard allowsMultipleAccess(module) else { return .rejected }
        switch rc.accessMode {
        case "AUTO_DENY": return .inUse
        case "ASK_DRIVER": return .askDriver
        default: return .allowed
        }
    }

    /// Runs `body` once the app may control the module: at once, or after the driver agreed.
    func acquire(_ request: IncomingRequest, _ module: RCModule, then body: @escaping @Sendable (isolated HeadUnitEmulator) -> Void) {
        switch access(module, for: request.key) {
        case .allowed: body(self)
        case .inUse: respond(request, "IN_USE")
        case .rejected: respond(request, "REJECTED")
        case .askDriver:
            guard let appID = apps[request.key]?.appID else { return }
            if let known = rc.consents[appID]?[module] {
                consentDecided(request, module, allowed: known, then: body)
            } else {
                rc.question = ConsentQuestion(request: request, modules: [module], known: [nil], then: body)
            }
        }
    }

    private func consentDecided(_ request: IncomingRequest, _ module: RCModule, allowed: Bool,
                                then body: @Sendable (isolated HeadUnitEmulator) -> Void) {
        if allowed {
            body(self)
        } else {
            rc.refused[request.key, default: []].insert(module)
            respond(request, "REJECTED", info: "The resource [\(module.label)] is in use and the driver disallows this remote control RPC")
        }
    }

    /// The driver answers the consent question on the screen (RC.GetInteriorVehicleDataConsent),
    /// waiting a little for a request still on its way to ask it.
    public func answerConsent(_ allowed: Bool, within timeout: Duration = .seconds(5)) async throws(EmulatorError) {
        _ = await waitUntil(timeout: timeout) { $0.remoteControl["askingDriver"] != nil }
        guard let question = rc.question else { throw .invalidAction("answerConsent: no app is asking the driver for a module") }
        rc.question = nil
        guard let appID = apps[question.request.key]?.appID else { return }
        for module in question.modules { rc.consents[appID, default: [:]][module] = allowed }
        if let body = question.then {
            consentDecided(question.request, question.modules[0], allowed: allowed, then: body)
        } else {
            let answers = question.known.map { $0 ?? allowed }
            respond(question.request, "SUCCESS", ["allowed": .array(answers.map(JSONValue.bool))])
        }
    }

    /// The snapshot's `remoteControl`.
    var rcSnapshot: JSONObject {
        var snapshot: JSONObject = ["allowed": .bool(rc.allowed), "accessMode": .string(rc.accessMode),
                                    "allocated": .object(JSONObject(uniqueKeysWithValues: rc.holders.compactMap { module, key in
                                        apps[key].map { (module.label, JSONValue.string($0.appID)) } }))]
        if let question = rc.question {
            snapshot["askingDriver"] = ["appID": .string(apps[question.request.key]?.appID ?? ""),
                                        "modules": .array(question.modules.map { .string($0.label) })]
        }
        return snapshot
    }

    /// The module becomes the app's; every RC app hears who holds what.
    func allocate(_ module: RCModule, to key: SessionKey) -> Bool {
        guard rc.holders[module] != key else { return false }
        rc.holders[module] = key
        return true
    }

    /// OnRCStatus to each REMOTE_CONTROL app (or only `key`'s, at its registration): its
    /// modules, the free ones in the capabilities' order, and whether RC is allowed.
    func sendRCStatus(only key: SessionKey? = nil) {
        for target in key.map({ [$0] }) ?? appsInOrder.map(\.key) where apps[target]?.appHMITypes.contains("REMOTE_CONTROL") == true {
            let mine = rc.allowed ? rc.holders.filter { $0.value == target }.keys.sorted() : []
            let free = rc.allowed ? rc.modules.map(\.module).filter { rc.holders[$0] == nil } : []
            notify(target, "OnRCStatus", ["allocatedModules": .array(mine.map(\.json)), "freeModules": .array(free.map(\.json)),
                                          "allowed": .bool(rc.allowed)])
        }
    }

    /// An app that leaves (unregistered, or exited to NONE) gives its modules back.
    func releaseModules(of key: SessionKey) {
        let held = rc.holders.filter { $0.value == key }.keys
        if let question = rc.question, question.request.key == key { rc.question = nil }
        guard !held.isEmpty else { return }
        for module in held { rc.holders[module] = nil }
        sendRCStatus()
    }

    /// The car (or the driver at its controls) changes a module: subscribed apps get
    /// OnInteriorVehicleData with what changed.
    func interiorDataChanged(_ module: RCModule, _ changes: JSONObject) {
        guard !changes.isEmpty, let dataKey = RCModel.dataKey(module.type) else { return }
        rc.data[module] = rcData(module).merging(changes) { $1 }
        let notification: JSONObject = ["moduleData": ["moduleType": .string(module.type), "moduleId": .string(module.id),
                                                       dataKey: .object(changes)]]
        notifySubscribers("OnInteriorVehicleData", notification) { $0.interiorSubscriptions.contains(module) }
    }

    /// The driver turns a knob: `moduleData` as the spec's ModuleData (moduleType, its data,
    /// optionally moduleId).
    public func setInteriorVehicleData(_ moduleData: JSONObject) throws(EmulatorError) {
        guard let type = moduleData["moduleType"]?.stringValue, let dataKey = RCModel.dataKey(type) else {
            throw .invalidAction("setInteriorVehicleData needs moduleData with a moduleType (\(RCModel.types.map(\.type).joined(separator: ", ")))")
        }
        let module = rcModule(type, id: moduleData["moduleId"]?.stringValue)
        guard rcModuleExists(module) else { throw .invalidAction("setInteriorVehicleData: the head unit has no \(module.label) module") }
        guard let changes = moduleData[dataKey]?.objectValue, !changes.isEmpty else {
            throw .invalidAction("setInteriorVehicleData: a \(type) module's moduleData changes \"\(dataKey)\"")
        }
        interiorDataChanged(module, changes)
    }

    /// The driver changes the remote-control settings (RC.OnRemoteControlSettings): turning RC
    /// off frees every module, forgets the answers and ends subscriptions, as core does.
    public func setRemoteControlSettings(allowed: Bool?, accessMode: String?) throws(EmulatorError) {
        if let accessMode {
            guard RemoteControlSettings.accessModes.contains(accessMode) else {
                throw .invalidAction("rcSettings: accessMode is one of \(RemoteControlSettings.accessModes.joined(separator: ", ")), not \(accessMode)")
            }
            if accessMode != "ASK_DRIVER" { rc.refused = [:] }
            rc.accessMode = accessMode
        }
        guard let allowed else { return }
        if !allowed {
            rc.holders = [:]
            rc.consents = [:]
            for key in apps.keys { apps[key]?.interiorSubscriptions = [] }
        }
        rc.allowed = allowed
        sendRCStatus()
    }
}
