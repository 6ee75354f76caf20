import SmartDeviceLink

/// The display as sdl_hmi presents it to core: each app's template and its capabilities
/// (BasicCommunication.OnSystemCapabilityUpdated DISPLAYS at registration, at a change of
/// template and for each new window), and the widgets on screen.
struct HMIDisplays: Sendable {
    /// Each app's main template as the HMI last showed it; absent: the one its kind gets.
    var templates: [Int64: String] = [:]
    /// Each app's widgets' templates (UI.Show to a window), by app and window.
    var widgetTemplates: [Int64: [Int64: String]] = [:]
    /// The widgets the driver added to the widget bar: their windows are FULL.
    var widgetsOnScreen: Set<[Int64]> = []
    /// The app's kind, for its default template: media, navigation, web view.
    var kinds: [Int64: String] = [:]

    /// sdl_hmi's getDisplayCapability: the template's display, the window named unless it is the main one.
    func capability(appID: Int64, windowID: Int64) -> JSONObject {
        let template = templates[appID] ?? kinds[appID] ?? "NON-MEDIA"
        var display = SDLHMIStartup.displays[template] ?? SDLHMIStartup.displays["NON-MEDIA"] ?? [:]
        if windowID != 0, case .object(var window)? = display["windowCapabilities"]?.arrayValue?.first {
            window["windowID"] = .int(windowID)
            display["windowCapabilities"] = [.object(window)]
        }
        return ["appID": .int(appID), "systemCapability": ["systemCapabilityType": "DISPLAYS", "displayCapabilities": [.object(display)]]]
    }

    /// The template an app of this kind starts with (OnAppRegistered's application).
    static func defaultTemplate(of application: JSONObject) -> String {
        let types = application["appType"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if types.contains("WEB_VIEW") { return "WEB_VIEW" }
        if types.contains("NAVIGATION") || types.contains("PROJECTION") { return "NAV_FULLSCREEN_MAP" }
        return application["isMediaApplication"]?.boolValue == true ? "MEDIA" : "NON-MEDIA"
    }
}

extension CoreHMI {
    /// Tells core the display of a newly registered app, as sdl_hmi does on OnAppRegistered.
    func appRegistered(_ application: JSONObject, hmiID: Int64) async throws {
        displays.kinds[hmiID] = HMIDisplays.defaultTemplate(of: application)
        try await notify("BasicCommunication.OnSystemCapabilityUpdated", displays.capability(appID: hmiID, windowID: 0))
    }

    /// UI.CreateWindow and UI.DeleteWindow as sdl_hmi answers them, and the capabilities after a
    /// UI.Show that changes a window's template; false for every other method.
    func answerWindows(_ id: Int64, _ method: String, _ params: JSONObject) async throws -> Bool {
        let appID = params["appID"]?.intValue ?? 0
        let windowID = params["windowID"]?.intValue ?? 0
        switch method {
        case "UI.CreateWindow":
            try await answer(id, method)
            try await notify("BasicCommunication.OnSystemCapabilityUpdated", displays.capability(appID: appID, windowID: windowID))
        case "UI.DeleteWindow":
            displays.widgetsOnScreen.remove([appID, windowID])
            displays.widgetTemplates[appID]?[windowID] = nil
            try await answer(id, method)
        case "UI.Show":
            guard let template = params["templateConfiguration"]?["template"]?.stringValue else { return false }
            let before = windowID == 0 ? displays.templates[appID] : displays.widgetTemplates[appID]?[windowID]
            var result = CoreHMIAnswers.result(for: method, params: params)
            result.merge(configuredAnswers[method]?.objectValue ?? [:]) { _, configured in configured }
            try await answer(id, method, .success, result)
            guard template != before else { return true }
            if windowID == 0 { displays.templates[appID] = template } else { displays.widgetTemplates[appID, default: [:]][windowID] = template }
            try await notify("BasicCommunication.OnSystemCapabilityUpdated", displays.capability(appID: appID, windowID: windowID))
        default:
            return false
        }
        return true
    }

    /// The driver adds a widget to sdl_hmi's widget bar, where it shows (core: BACKGROUND, then
    /// FULL), or takes it off (FULL to BACKGROUND).
    func showWidget(appID: Int64, windowID: Int64, visible: Bool) async throws {
        let key = [appID, windowID]
        if visible {
            guard !displays.widgetsOnScreen.contains(key) else { return }
            displays.widgetsOnScreen.insert(key)
            for _ in 0..<2 { try await notify("BasicCommunication.OnAppActivated", ["appID": .int(appID), "windowID": .int(windowID)]) }
        } else {
            guard displays.widgetsOnScreen.remove(key) != nil else { return }
            try await notify("BasicCommunication.OnAppDeactivated", ["appID": .int(appID), "windowID": .int(windowID)])
        }
    }
}
