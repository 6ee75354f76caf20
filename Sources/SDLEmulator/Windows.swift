public import SmartDeviceLink

/// A window an app made besides its main one with CreateWindow: a widget.
public struct WindowSnapshot: Sendable, Hashable {
    /// Its windowID (1 is the primary widget).
    public var windowID: Int
    /// The name it was created with.
    public var windowName: String
    /// The service type it shows (MEDIA, NAVIGATION, ...), when it was created for one.
    public var associatedServiceType: String?
    /// The window whose Show it copies, when it was created so.
    public var duplicateUpdatesFromWindowID: Int?
    /// Its own HMI level: NONE until the driver puts it on screen.
    public var hmiLevel: HMILevel
    /// The fields of the Show calls made to it, merged.
    public var show: JSONObject

    /// The window as the control channel's `snapshot` writes it.
    public var json: JSONValue {
        var object: JSONObject = ["windowID": .int(Int64(windowID)), "windowName": .string(windowName), "hmiLevel": hmiLevel.json,
                                  "show": .object(show)]
        if let associatedServiceType { object["associatedServiceType"] = .string(associatedServiceType) }
        if let duplicateUpdatesFromWindowID { object["duplicateUpdatesFromWindowID"] = .int(Int64(duplicateUpdatesFromWindowID)) }
        return .object(object)
    }
}

/// Widgets, as core 8.2 keeps them with sdl_hmi as its HMI (measured): CreateWindow checks in
/// core's order (create_window_request.cc), the new window in NONE, its capabilities pushed as
/// OnSystemCapabilityUpdated DISPLAYS; Show to a window checked against that window's level;
/// the driver puts a widget on screen as sdl_hmi's widget bar does (BC.OnAppActivated with the
/// window: NONE → BACKGROUND → FULL). And the DISPLAYS capability itself: the one sdl_hmi gives
/// the app's template, pushed at registration and at each change of template.
extension HeadUnitEmulator {
    /// sdl_hmi's limit on widgets per app (windowTypeSupported WIDGET).
    static let maximumWidgets = 16

    func createWindow(_ request: IncomingRequest, _ creation: CreateWindow) {
        guard let app = apps[request.key] else { return }
        let id = creation.windowID
        if id == 0 || app.windows[id] != nil {
            respond(request, "INVALID_ID")
            return
        }
        if creation.type == .main {
            respond(request, "INVALID_DATA")
            return
        }
        if let source = creation.duplicateUpdatesFromWindowID, source != 0, app.windows[source] == nil {
            respond(request, "INVALID_DATA")
            return
        }
        // The primary widget (1) may carry the app's name; no two windows share one.
        let name = creation.windowName
        if id != 1, name == app.appName || app.windows.values.contains(where: { $0.windowName == name }) {
            respond(request, "DUPLICATE_NAME")
            return
        }
        if app.windows.count + 1 > Self.maximumWidgets {
            respond(request, "REJECTED", info: "Maximum allowed amount of windows is exceeded")
            return
        }
        if let service = creation.associatedServiceType, app.windows.values.contains(where: { $0.associatedServiceType == service }) {
            respond(request, "REJECTED", info: "Window for this associated service type is already created")
            return
        }
        let window = WindowSnapshot(windowID: id, windowName: name, associatedServiceType: creation.associatedServiceType,
                                    duplicateUpdatesFromWindowID: creation.duplicateUpdatesFromWindowID, hmiLevel: .none, show: [:])
        apps[request.key]?.windows[id] = window
        // core: the window's first OnHMIStatus, then the answer, the new hash, and the HMI's
        // capabilities of the window (sdl_hmi: the main template's, with the window's id).
        notify(request.key, "OnHMIStatus", windowStatus(window, of: request.key))
        respond(request, "SUCCESS")
        hashChanged(request.key)
        pushDisplays(request.key, windowID: id)
    }

    func deleteWindow(_ request: IncomingRequest, _ deletion: DeleteWindow) {
        guard deletion.windowID != 0, apps[request.key]?.windows[deletion.windowID] != nil else {
            respond(request, "INVALID_ID")
            return
        }
        apps[request.key]?.windows[deletion.windowID] = nil
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// The HMI level a request is checked at: its window's (Show names one), or the app's.
    /// nil: the request names a window the app does not have (core: INVALID_ID).
    func checkedLevel(of request: IncomingRequest, _ app: AppState) -> HMILevel? {
        guard request.functionID == Show.functionID, let id = Self.widgetID(of: request) else { return app.hmiLevel }
        return app.windows[id]?.hmiLevel
    }

    /// The widget a request names (`windowID` other than the main window's 0), if it names one.
    static func widgetID(of request: IncomingRequest) -> Int? {
        guard let id = request.parameters["windowID"]?.intValue, id != 0 else { return nil }
        return Int(id)
    }

    /// Show to a widget: sdl_hmi refuses one that copies another window; else it keeps the fields.
    /// false: the Show is for the main window.
    func showOnWidget(_ request: IncomingRequest) -> Bool {
        guard let id = Self.widgetID(of: request), let window = apps[request.key]?.windows[id] else { return false }
        if window.duplicateUpdatesFromWindowID != nil {
            respond(request, "REJECTED", info: "Widget is duplicating other window. Rejecting UI.Show request.")
            return true
        }
        var fields = request.parameters
        fields["windowID"] = nil
        apps[request.key]?.windows[id]?.show.merge(fields) { _, new in new }
        respond(request, "SUCCESS")
        // A new template for the widget: sdl_hmi pushes the window's capabilities again.
        let template = fields["templateConfiguration"]?["template"]
        if let template, template != window.show["templateConfiguration"]?["template"] { pushDisplays(request.key, windowID: id) }
        return true
    }

    /// The driver puts a widget on screen (sdl_hmi's widget bar: added, then shown) or takes it off.
    public func showWidget(_ appID: String? = nil, windowID: Int, visible: Bool = true) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let window = apps[key]?.windows[windowID] else { throw .unknownWindow(windowID) }
        // core's state controller for a window: activation NONE → BACKGROUND → FULL,
        // deactivation FULL → BACKGROUND, else NONE.
        let steps: [HMILevel] = visible ? (window.hmiLevel == .none ? [.background, .full] : [.full])
                                        : [window.hmiLevel == .full ? .background : .none]
        for level in steps where apps[key]?.windows[windowID]?.hmiLevel != level {
            apps[key]?.windows[windowID]?.hmiLevel = level
            if let updated = apps[key]?.windows[windowID] { notify(key, "OnHMIStatus", windowStatus(updated, of: key)) }
        }
    }

    /// A widget's OnHMIStatus: its own level and MAIN context, the app's audio and video
    /// states (core's state controller copies them into every window's state; measured).
    func windowStatus(_ window: WindowSnapshot, of key: SessionKey) -> JSONObject {
        apps[key]?.status(hmiLevel: window.hmiLevel, systemContext: .main, windowID: window.windowID) ?? [:]
    }

    // MARK: - The DISPLAYS capability

    /// The template whose capabilities an app's windows have: the one it set, else its kind's
    /// (sdl_hmi's getDisplayCapability: web view, navigation, media, non-media).
    func displayTemplate(of app: AppState) -> String {
        if let template = app.template, template != "DEFAULT" { return template }
        if app.appHMITypes.contains("WEB_VIEW") { return "WEB_VIEW" }
        if app.appHMITypes.contains("NAVIGATION") || app.appHMITypes.contains("PROJECTION") { return "NAV_FULLSCREEN_MAP" }
        return app.isMedia ? "MEDIA" : "NON-MEDIA"
    }

    /// The app's display with the given windows (0: the main one, which core names without an id).
    func displays(of app: AppState, windows: [Int]) -> JSONValue {
        var display = displayCapability(template: displayTemplate(of: app))
        let main = display["windowCapabilities"]?.arrayValue?.first?.objectValue ?? [:]
        display["windowCapabilities"] = .array(windows.map { id in
            var window = main
            if id != 0 { window["windowID"] = .int(Int64(id)) }
            return .object(window)
        })
        return [.object(display)]
    }

    /// The DisplayCapability of a template: sdl_hmi's as recorded, while the head unit has
    /// sdl_hmi's display; built from the configured display otherwise.
    func displayCapability(template: String) -> JSONObject {
        var display: JSONObject
        if usesRecordedDisplays, let recorded = Capabilities.coreDisplays[template] {
            display = recorded
        } else {
            let configured = configuration.capabilities["displayCapabilities"]?.objectValue ?? [:]
            var window: JSONObject = ["imageTypeSupported": ["DYNAMIC", "STATIC"]]
            for key in ["imageFields", "templatesAvailable", "numCustomPresetsAvailable"] { window[key] = configured[key] }
            window["textFields"] = Self.textFields(configured["textFields"], template: template)
            window["buttonCapabilities"] = configuration.capabilities["buttonCapabilities"]
            window["softButtonCapabilities"] = configuration.capabilities["softButtonCapabilities"]
            display = ["displayName": configured["displayName"] ?? "GENERIC_DISPLAY",
                       "windowTypeSupported": [["type": "MAIN", "maximumNumberOfWindows": 1],
                                               ["type": "WIDGET", "maximumNumberOfWindows": .int(Int64(Self.maximumWidgets))]],
                       "windowCapabilities": [.object(window)]]
        }
        if let layouts = configuration.menuLayoutsAvailable, case .object(var main)? = display["windowCapabilities"]?.arrayValue?.first {
            main["menuLayoutsAvailable"] = .array(layouts.map(JSONValue.string))
            display["windowCapabilities"] = [.object(main)]
        }
        return display
    }

    /// OnSystemCapabilityUpdated DISPLAYS with one window, as sdl_hmi pushes it; apps before
    /// RPC 5.1 know no such notification.
    func pushDisplays(_ key: SessionKey, windowID: Int) {
        guard let app = apps[key] else { return }
        let version = app.syncMsgVersion
        guard (version.majorVersion, version.minorVersion) >= (5, 1) else { return }
        notify(key, "OnSystemCapabilityUpdated", ["systemCapability": [
            "systemCapabilityType": "DISPLAYS", "displayCapabilities": displays(of: app, windows: [windowID]),
        ]])
    }

    /// A new template for the main window (Show.templateConfiguration, SetDisplayLayout):
    /// sdl_hmi pushes the capabilities when the template differs from the one it had.
    func templateChanged(_ key: SessionKey, to template: String) {
        guard let app = apps[key], app.template != template else { return }
        apps[key]?.template = template
        pushDisplays(key, windowID: 0)
    }
}
