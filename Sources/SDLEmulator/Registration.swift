import SmartDeviceLink

extension HeadUnitEmulator {
    /// RegisterAppInterface, as core's RegisterAppInterfaceRequest.
    func registerApp(_ request: IncomingRequest) {
        // core: a second RAI in a registered session is APPLICATION_REGISTERED_ALREADY.
        if apps[request.key] != nil {
            respond(request, "APPLICATION_REGISTERED_ALREADY")
            return
        }
        guard let registration = decoded(RegisterAppInterface.self, request) else { return }
        let appName = registration.appName, appID = registration.appID, version = registration.syncMsgVersion
        // The spec's limits (syncMsgVersion's range, known languages) were checked as core checks them.
        let language = registration.languageDesired.rawValue, display = registration.hmiDisplayLanguageDesired.rawValue
        // core rejects names made only of whitespace or holding \n / \t.
        if appName.allSatisfy(\.isWhitespace) || appName.contains("\n") || appName.contains("\t") {
            respond(request, "INVALID_DATA", info: "appName must not be blank or hold newlines or tabs")
            return
        }
        let vrSynonyms = registration.vrSynonyms ?? []
        // A serial line has no connection to lose: an app that died without unregistering is
        // never seen to go, and without this its restart would be refused for good. Its new
        // session on the same line replaces the old one, as a dropped link would have (resumable).
        if let stale = apps.values.first(where: { $0.appID == appID && $0.key.connection == request.key.connection }),
           connections[request.key.connection]?.kind == .serial {
            removeApp(stale.key, reason: "the app registered again on a new session of the serial line", keepResumption: true)
        }
        if apps.values.contains(where: { $0.appID == appID }) {
            respond(request, "APPLICATION_REGISTERED_ALREADY", info: "an app with appID \(appID) is already registered")
            return
        }
        // core: appName or a vrSynonym equal (case-insensitively) to another app's name or synonym.
        let mine = Set(([appName] + vrSynonyms).map { $0.lowercased() })
        if let other = apps.values.first(where: { !mine.isDisjoint(with: ([$0.appName] + $0.vrSynonyms).map { $0.lowercased() }) }) {
            respond(request, "DUPLICATE_NAME", info: "the name or a VR synonym is already used by \(other.appName)")
            return
        }
        registrationCounter += 1
        var app = AppState(
            key: request.key, appID: appID, appName: appName, vrSynonyms: vrSynonyms,
            isMedia: registration.isMediaApplication, appHMITypes: registration.appHMIType?.map(\.rawValue) ?? [],
            registrationOrder: registrationCounter, syncMsgVersion: version)
        var resultCode = "SUCCESS"
        var info: String?
        var restored: ResumptionRecord?
        if let hash = registration.hashID {
            if configuration.resumptionEnabled, let record = resumption[appID], record.hashID == hash {
                restored = record
            } else {
                resultCode = "RESUME_FAILED"
                info = "the hashID does not match saved data; nothing was restored"
            }
        }
        resumption[appID] = nil
        if language != configuration.language || display != configuration.hmiDisplayLanguage {
            resultCode = "WRONG_LANGUAGE"
            info = "the head unit speaks \(configuration.language) and displays \(configuration.hmiDisplayLanguage)"
        }
        if let record = restored {
            app.commands = record.commands
            app.submenus = record.submenus
            app.choiceSets = record.choiceSets
            app.globalProperties = record.globalProperties
            app.vehicleSubscriptions = record.vehicleSubscriptions
            app.buttonSubscriptions = record.buttonSubscriptions
            app.hashID = record.hashID
        }
        apps[request.key] = app

        // The RPC spec version: the lower of the app's and the head unit's (8.0.0). Apps before
        // 5.0 knew no negotiation; core answers them with its base version 4.5.1
        // (RegisterAppInterfaceRequest, utils::base_rpc_version).
        let appVersion = ProtocolVersion(version.majorVersion, version.minorVersion, version.patchVersion ?? 0)
        let negotiated = appVersion < ProtocolVersion(5, 0, 0) ? ProtocolVersion(4, 5, 1) : min(appVersion, configuration.rpcSpecVersion)
        var response = configuration.capabilities
        response["syncMsgVersion"] = ["majorVersion": .int(Int64(negotiated.major)), "minorVersion": .int(Int64(negotiated.minor)),
                                      "patchVersion": .int(Int64(negotiated.patch))]
        response["language"] = .string(configuration.language)
        response["hmiDisplayLanguage"] = .string(configuration.hmiDisplayLanguage)
        response["vehicleType"] = .object(configuration.vehicleType)
        response["sdlVersion"] = .string(Capabilities.coreSDLVersion)  // core 8.2.0 names the commit it was built from
        response["systemSoftwareVersion"] = .string(configuration.systemSoftwareVersion)
        response["iconResumed"] = .bool(appIcons[appID].map { files[appID]?[$0] != nil } ?? false)
        respond(request, resultCode, info: info, response)
        emit(.appRegistered(appID: appID, appName: appName, sessionID: request.key.session, resultCode: resultCode))

        // core: OnHMIStatus(NONE) and the app's permissions right after the response.
        refreshStatus(request.key)
        sendRCStatus(only: request.key)
        sendPermissions(request.key)
        // core then sends the lock screen icon's URL from its policy table and the driver
        // distraction state (register_app_interface_request.cc,
        // SendDriverDistractionAndIconUrlNotifications; values of the preloaded table).
        sendLockScreenNotifications(to: request.key)
        // sdl_hmi answers core's OnAppRegistered with the display of the app's template.
        pushDisplays(request.key, windowID: 0)
        startPolicyUpdateForNewApp(request.key)
        startVehicleTimelineIfNeeded()
        if let record = restored {
            // core resumes the HMI level of an app that was FULL or LIMITED when it dropped.
            if record.hmiLevel == .full {
                activate(request.key)
            } else if record.hmiLevel == .limited {
                apps[request.key]?.hmiLevel = .limited
                refreshStatus(request.key)
            }
            hashChanged(request.key)
        }
    }

    /// UnregisterAppInterface: SUCCESS, then the app is gone; nothing is kept for resumption.
    func unregisterApp(_ request: IncomingRequest) {
        respond(request, "SUCCESS")
        removeApp(request.key, reason: "UnregisterAppInterface", keepResumption: false)
    }

    /// CloseApplication: the HMI takes the app off the screen (BACKGROUND from FULL or LIMITED),
    /// then core puts it in NONE and answers (measured on core 8.2 with sdl_hmi).
    func closeApplication(_ request: IncomingRequest) {
        if let app = apps[request.key], app.isForeground {
            apps[request.key]?.hmiLevel = .background
            refreshStatus(request.key)
        }
        apps[request.key]?.hmiLevel = .none
        refreshStatus(request.key)
        releaseModules(of: request.key)
        respond(request, "SUCCESS")
    }

    /// ChangeRegistration: languages and names; a name taken by another app is DUPLICATE_NAME.
    func changeRegistration(_ request: IncomingRequest, _ change: ChangeRegistration) {
        guard var app = apps[request.key] else { return }
        let language = change.language.rawValue, display = change.hmiDisplayLanguage.rawValue
        let name = change.appName ?? app.appName
        let synonyms = change.vrSynonyms ?? app.vrSynonyms
        let mine = Set(([name] + synonyms).map { $0.lowercased() })
        if apps.values.contains(where: { $0.key != request.key && !mine.isDisjoint(with: ([$0.appName] + $0.vrSynonyms).map { $0.lowercased() }) }) {
            respond(request, "DUPLICATE_NAME")
            return
        }
        // core: a language the HMI does not list as supported (GetSupportedLanguages) is
        // UNSUPPORTED_RESOURCE, with no info.
        let supported = configuration.supportedLanguages
        guard supported.contains(language), supported.contains(display) else {
            respond(request, "UNSUPPORTED_RESOURCE")
            return
        }
        app.appName = name
        app.vrSynonyms = synonyms
        apps[request.key] = app
        respond(request, "SUCCESS")
    }

    /// Removes a registered app: pending requests end, session files go, and on an
    /// unexpected end the data is kept for resumption by hash id.
    func removeApp(_ key: SessionKey, reason: String, keepResumption: Bool) {
        guard let app = apps[key] else { return }
        for pending in [app.modal, app.speak, app.audioPassThru].compactMap({ $0 }) { cancelTimer(pending.token) }
        if keepResumption, configuration.resumptionEnabled, let hash = app.hashID {
            resumption[app.appID] = ResumptionRecord(
                hashID: hash, hmiLevel: app.hmiLevel, commands: app.commands, submenus: app.submenus, choiceSets: app.choiceSets,
                globalProperties: app.globalProperties, vehicleSubscriptions: app.vehicleSubscriptions,
                buttonSubscriptions: app.buttonSubscriptions)
        }
        deleteSessionFiles(of: app.appID)
        closeRecordings(of: key)
        if let timer = streamEndTimers.removeValue(forKey: key) { cancelTimer(timer) }
        apps[key] = nil
        releaseModules(of: key)
        unpublishServices(of: key)
        emit(.appUnregistered(appID: app.appID, reason: reason))
    }

    /// GetSystemCapability for the capabilities this head unit has.
    func getSystemCapability(_ request: IncomingRequest, _ query: GetSystemCapability) {
        let type = query.systemCapabilityType.rawValue
        if let subscribe = query.subscribe, type != "DISPLAYS" {
            if subscribe { apps[request.key]?.capabilitySubscriptions.insert(type) } else { apps[request.key]?.capabilitySubscriptions.remove(type) }
        }
        var capability: JSONObject = ["systemCapabilityType": .string(type)]
        switch type {
        case "DISPLAYS":
            guard let app = apps[request.key] else { return }
            capability["displayCapabilities"] = displays(of: app, windows: [0] + app.windows.keys.sorted())
        case "PHONE_CALL", "NAVIGATION":
            // core answers from its system capabilities (hmi_capabilities.json), whatever
            // hmiCapabilities' phoneCall and navigation flags say (get_system_capability_request.cc).
            let (key, value) = type == "PHONE_CALL" ? ("phoneCapability", configuration.phoneCapability)
                                                   : ("navigationCapability", configuration.navigationCapability)
            guard let value else {
                respond(request, "DATA_NOT_AVAILABLE")
                return
            }
            capability[key] = .object(value)
        case "VIDEO_STREAMING":
            capability["videoStreamingCapability"] = .object(configuration.videoStreaming)
        case "SEAT_LOCATION":
            // The seats and the driver distraction limits come from the HMI (RC and UI capabilities).
            capability["seatLocationCapability"] = Capabilities.coreSystemCapability("SEAT_LOCATION", "seatLocationCapability").map(JSONValue.object)
        case "DRIVER_DISTRACTION":
            capability["driverDistractionCapability"] = Capabilities.coreSystemCapability("DRIVER_DISTRACTION", "driverDistractionCapability").map(JSONValue.object)
        case "APP_SERVICES":
            capability["appServicesCapabilities"] = appServicesCapability
        case "REMOTE_CONTROL" where !(apps[request.key]?.appHMITypes.contains("REMOTE_CONTROL") ?? false):
            respond(request, "DISALLOWED")
            return
        case "REMOTE_CONTROL" where configuration.remoteControl.capability != nil:
            capability["remoteControlCapability"] = configuration.remoteControl.capability.map(JSONValue.object)
        default:
            // As core with an HMI that has no RC interface.
            respond(request, "UNSUPPORTED_RESOURCE")
            return
        }
        respond(request, "SUCCESS", ["systemCapability": .object(capability)])
    }
}
