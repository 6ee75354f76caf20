import SmartDeviceLink

extension HeadUnitEmulator {
    /// SetDisplayLayout, as core: REJECTED for a template the display does not list; else
    /// SUCCESS with the template's capabilities (graphic- and button-only templates have no
    /// main text fields) and, for apps of RPC 5.1 or later, OnSystemCapabilityUpdated(DISPLAYS).
    func setDisplayLayout(_ request: IncomingRequest, _ change: SetDisplayLayout) {
        guard let app = apps[request.key] else { return }
        let layout = change.displayLayout
        var display = configuration.capabilities["displayCapabilities"]?.objectValue ?? [:]
        let templates = display["templatesAvailable"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard templates.contains(layout) else {
            respond(request, "REJECTED", info: "the display has no template \(layout)")
            return
        }
        if layout.hasSuffix("_ONLY") {
            let fields = display["textFields"]?.arrayValue ?? []
            display["textFields"] = .array(fields.filter { !($0["name"]?.stringValue ?? "").hasPrefix("mainField") })
        }
        var extra: JSONObject = ["displayCapabilities": .object(display)]
        for key in ["buttonCapabilities", "softButtonCapabilities", "presetBankCapabilities"] {
            extra[key] = configuration.capabilities[key]
        }
        respond(request, "SUCCESS", extra)
        let version = app.syncMsgVersion
        guard version.majorVersion > 5 || (version.majorVersion == 5 && version.minorVersion >= 1) else { return }
        notify(request.key, "OnSystemCapabilityUpdated", ["systemCapability": [
            "systemCapabilityType": "DISPLAYS", "displayCapabilities": displaysCapability(of: display),
        ]])
    }

    /// The head unit unregisters the app (OnAppInterfaceUnregistered with `reason`, e.g.
    /// APP_UNAUTHORIZED, LANGUAGE_CHANGE); with `language`, an OnLanguageChange comes first,
    /// as core sends before a LANGUAGE_CHANGE. The session stays open.
    public func unregisterApp(_ appID: String? = nil, reason: String,
                              language: (language: String, hmiDisplayLanguage: String)? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        if let language {
            notify(key, "OnLanguageChange", ["language": .string(language.language),
                                              "hmiDisplayLanguage": .string(language.hmiDisplayLanguage)])
        }
        notify(key, "OnAppInterfaceUnregistered", ["reason": .string(reason)])
        removeApp(key, reason: reason, keepResumption: false)
    }
}
