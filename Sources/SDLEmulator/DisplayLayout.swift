import SmartDeviceLink

extension HeadUnitEmulator {
    /// SetDisplayLayout, as core with sdl_hmi: REJECTED for a template the app may not use; else
    /// SUCCESS with the template's capabilities (graphic- and button-only templates have no
    /// main text fields) and, when the template changed, the HMI's OnSystemCapabilityUpdated(DISPLAYS).
    func setDisplayLayout(_ request: IncomingRequest, _ change: SetDisplayLayout) {
        guard let app = apps[request.key] else { return }
        let layout = change.displayLayout
        var display = configuration.capabilities["displayCapabilities"]?.objectValue ?? [:]
        // core asks the HMI with a UI.Show of the template (and colours); the HMI decides.
        if let refused = refusedTemplate(layout, for: request.key) {
            respond(request, "REJECTED", info: refused)
            return
        }
        display["textFields"] = Self.textFields(display["textFields"], template: layout)
        var extra: JSONObject = ["displayCapabilities": .object(display)]
        for key in ["buttonCapabilities", "softButtonCapabilities", "presetBankCapabilities"] {
            extra[key] = configuration.capabilities[key]
        }
        if app.syncMsgVersion.majorVersion >= 6 {  // set_display_layout_request.cc
            respond(request, "WARNINGS", info: "The RPC is deprecated and will be removed in a future version. The requested display "
                    + "layout is set to the main window. Please use `Show.templateConfiguration` instead.", extra)
        } else {
            respond(request, "SUCCESS", extra)
        }
        templateChanged(request.key, to: layout)
    }

    /// A display's text fields under `template`: graphic- and button-only templates (`*_ONLY`)
    /// show no main text fields.
    static func textFields(_ fields: JSONValue?, template: String) -> JSONValue? {
        guard template.hasSuffix("_ONLY") else { return fields }
        return .array((fields?.arrayValue ?? []).filter { !($0["name"]?.stringValue ?? "").hasPrefix("mainField") })
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
