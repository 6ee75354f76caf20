import SmartDeviceLink

/// One service an app published (core's AppService record).
struct PublishedService: Sendable {
    var id: String
    var provider: SessionKey
    var manifest: JSONObject
    var active = false
    var published = true

    var type: String { manifest["serviceType"]?.stringValue ?? "" }
    var name: String? { manifest["serviceName"]?.stringValue }
    var allowsAppConsumers: Bool { manifest["allowAppConsumers"]?.boolValue ?? false }

    var record: JSONValue {
        ["serviceID": .string(id), "serviceManifest": .object(manifest), "servicePublished": .bool(published), "serviceActive": .bool(active)]
    }
}

/// The app services: what is published, and the consumers' requests a provider has not answered yet.
struct AppServicesState: Sendable {
    var services: [PublishedService] = []
    /// A consumer's request, by the provider's session and the correlation id it was passed on with.
    var forwarded: [RequestKey: IncomingRequest] = [:]
    /// Each provider session's next correlation id (core numbers its requests to an app from 1).
    var nextCorrelationID: [SessionKey: Int32] = [:]
    /// Service types each consumer subscribed to (GetAppServiceData with subscribe).
    var subscribers: [SessionKey: Set<String>] = [:]
}

/// App services as sdl_core 8.2 runs them (app_service_manager.cc and the app_service_rpc_plugin,
/// measured): a provider publishes, the first service of a type (or one of an app in FULL) is
/// the active one, consumers' GetAppServiceData and PerformAppServiceInteraction go to the
/// active provider and its answer comes back, its OnAppServiceData reaches the subscribers, and
/// every change is pushed as OnSystemCapabilityUpdated APP_SERVICES.
extension HeadUnitEmulator {
    func publishAppService(_ request: IncomingRequest) {
        guard let manifest = request.parameters["appServiceManifest"]?.objectValue, let app = apps[request.key] else { return }
        let type = manifest["serviceType"]?.stringValue ?? "", handled = manifest["handledRPCs"]?.arrayValue ?? []
        guard policy.appServiceTypes(for: app.appID).contains(type), handled.isEmpty else {
            respond(request, "DISALLOWED", info: "Service disallowed by policies")
            return
        }
        apps[request.key]?.capabilitySubscriptions.insert("APP_SERVICES")  // core subscribes the provider
        let name = manifest["serviceName"]?.stringValue
        let namesake = name.flatMap { name in appServices.services.firstIndex { $0.name == name } }
        if let mine = appServices.services.firstIndex(where: { $0.provider == request.key && $0.type == type }) {
            guard namesake == nil || namesake == mine else { return respond(request, "REJECTED", info: "Failed to publish service") }
            appServices.services[mine].manifest = manifest
            broadcastServices([(mine, "MANIFEST_UPDATE")])
            return respond(request, "SUCCESS", ["appServiceRecord": appServices.services[mine].record])
        }
        guard namesake == nil else { return respond(request, "REJECTED", info: "Failed to publish service") }
        appServices.services.append(PublishedService(id: serviceID(type, for: app), provider: request.key, manifest: manifest))
        let index = appServices.services.count - 1
        broadcastServices([(index, "PUBLISHED")])
        if !appServices.services.contains(where: { $0.type == type && $0.active }) || app.hmiLevel == .full { activateService(at: index) }
        respond(request, "SUCCESS", ["appServiceRecord": appServices.services[index].record])
    }

    func unpublishAppService(_ request: IncomingRequest) {
        let id = request.parameters["serviceID"]?.stringValue
        guard let index = appServices.services.firstIndex(where: { $0.id == id && $0.provider == request.key }) else {
            return respond(request, "INVALID_ID", info: "No app service with the requested service ID was published by this application")
        }
        unpublishService(at: index)
        respond(request, "SUCCESS")
    }

    func getAppServiceData(_ request: IncomingRequest) {
        let type = request.parameters["serviceType"]?.stringValue ?? ""
        guard let provider = appServices.services.first(where: { $0.type == type && $0.active && $0.allowsAppConsumers }) else {
            return respond(request, "DATA_NOT_AVAILABLE", info: "No app service provider with serviceType: \(type) is available")
        }
        forward(request, to: provider, request.parameters)
    }

    func performAppServiceInteraction(_ request: IncomingRequest) {
        let id = request.parameters["serviceID"]?.stringValue
        guard let index = appServices.services.firstIndex(where: { $0.id == id }) else {
            return respond(request, "INVALID_ID", info: "The requested service ID does not exist")
        }
        guard appServices.services[index].allowsAppConsumers else {
            return respond(request, "REJECTED", info: "The requested service ID does not allow mobile app consumers")
        }
        var parameters = request.parameters
        // A consumer in FULL may make the service the active one; core asks the driver otherwise (not modelled).
        if parameters.removeValue(forKey: "requestServiceActive")?.boolValue == true, apps[request.key]?.hmiLevel == .full {
            activateService(at: index)
        }
        forward(request, to: appServices.services[index], parameters)
    }

    /// Passes a consumer's request on to the provider (core's SendProviderRequest); its answer
    /// comes back through ``providerAnswered(_:_:from:)``.
    private func forward(_ request: IncomingRequest, to service: PublishedService, _ parameters: JSONObject) {
        guard service.provider != request.key else { return respond(request, "IGNORED", info: "Consumer app is same as producer app") }
        let correlationID = appServices.nextCorrelationID[service.provider, default: 1]
        appServices.nextCorrelationID[service.provider] = correlationID + 1
        appServices.forwarded[RequestKey(session: service.provider, correlationID: correlationID)] = request
        sendRequest(request.name, functionID: request.functionID, correlationID: correlationID, parameters, to: service.provider)
    }

    /// A provider's answer to a request core passed on: the consumer gets it as it is, and a
    /// successful GetAppServiceData with `subscribe` (un)subscribes the consumer to the type.
    func providerAnswered(_ correlationID: Int32, _ parameters: JSONObject, from key: SessionKey) {
        guard let request = appServices.forwarded.removeValue(forKey: RequestKey(session: key, correlationID: correlationID)) else { return }
        var extra = parameters
        let code = extra.removeValue(forKey: "resultCode")?.stringValue ?? "GENERIC_ERROR"
        let success = extra.removeValue(forKey: "success")?.boolValue
        let info = extra.removeValue(forKey: "info")?.stringValue
        respond(request, code, success: success, info: info, extra)
        if success == true, request.name == "GetAppServiceData", let subscribe = request.parameters["subscribe"]?.boolValue,
           let type = request.parameters["serviceType"]?.stringValue {
            if subscribe { appServices.subscribers[request.key, default: []].insert(type) } else { appServices.subscribers[request.key]?.remove(type) }
            hashChanged(request.key)
        }
    }

    /// A provider's OnAppServiceData: passed on to the consumers of its type when the service
    /// is its own and active (core drops it silently otherwise).
    func appServiceDataFromProvider(_ parameters: JSONObject, from key: SessionKey) {
        guard let data = parameters["serviceData"], let type = data["serviceType"]?.stringValue, let app = apps[key],
              policy.appServiceTypes(for: app.appID).contains(type),
              appServices.services.contains(where: { $0.id == data["serviceID"]?.stringValue && $0.provider == key && $0.active && $0.type == type })
        else { return }
        notifySubscribers("OnAppServiceData", parameters) { appServices.subscribers[$0.key]?.contains(type) == true }
    }

    /// GetSystemCapability APP_SERVICES: every published service, in core's order (by id).
    var appServicesCapability: JSONValue {
        ["appServices": .array(appServices.services.sorted { $0.id < $1.id }.map { ["updatedAppServiceRecord": $0.record] })]
    }

    /// The app's services become the active ones of their types when it comes to FULL.
    func activateServices(of key: SessionKey) {
        for index in appServices.services.indices where appServices.services[index].provider == key { activateService(at: index) }
    }

    /// An app that leaves takes its services with it; its consumers' open requests stay open, as core leaves them.
    func unpublishServices(of key: SessionKey) {
        while let index = appServices.services.firstIndex(where: { $0.provider == key }) { unpublishService(at: index) }
        appServices.subscribers[key] = nil
    }

    private func activateService(at index: Int) {
        guard !appServices.services[index].active else { return }
        var changes: [(Int, String)] = []
        if let current = appServices.services.firstIndex(where: { $0.type == appServices.services[index].type && $0.active }) {
            appServices.services[current].active = false
            changes.append((current, "DEACTIVATED"))
        }
        appServices.services[index].active = true
        broadcastServices(changes + [(index, "ACTIVATED")])
    }

    private func unpublishService(at index: Int) {
        appServices.services[index].published = false
        appServices.services[index].active = false
        broadcastServices([(index, "REMOVED")])
        appServices.services.remove(at: index)
    }

    /// OnSystemCapabilityUpdated APP_SERVICES with these changes, to every app subscribed to it.
    private func broadcastServices(_ changes: [(index: Int, reason: String)]) {
        let updates: [JSONValue] = changes.map { ["updateReason": .string($0.reason), "updatedAppServiceRecord": appServices.services[$0.index].record] }
        let capability: JSONObject = ["systemCapability": ["systemCapabilityType": "APP_SERVICES", "appServicesCapabilities": ["appServices": .array(updates)]]]
        for app in appsInOrder where app.capabilitySubscriptions.contains("APP_SERVICES") {
            notify(app.key, "OnSystemCapabilityUpdated", capability)
        }
    }

    /// A service id as core makes them (64 hex digits, a hash); here derived from the app and the type, so runs repeat.
    private func serviceID(_ type: String, for app: AppState) -> String {
        (0..<8).map { round in
            let hex = String(CRC32.checksum(Array("\(round)\(type)\(app.appID)\(app.registrationOrder)".utf8)), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }
}
