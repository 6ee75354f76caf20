import SmartDeviceLink

extension HeadUnitEmulator {
    /// Buttons core lets only media apps subscribe to, and only navigation apps
    /// (subscribe_button_request.cc, IsSubscriptionAllowed).
    static let mediaButtons = Set(["PLAY_PAUSE", "SEEKLEFT", "SEEKRIGHT", "TUNEUP", "TUNEDOWN"] + (0...9).map { "PRESET_\($0)" })
    static let navigationButtons: Set<String> = [
        "NAV_CENTER_LOCATION", "NAV_ZOOM_IN", "NAV_ZOOM_OUT", "NAV_PAN_UP", "NAV_PAN_UP_RIGHT", "NAV_PAN_RIGHT", "NAV_PAN_DOWN_RIGHT",
        "NAV_PAN_DOWN", "NAV_PAN_DOWN_LEFT", "NAV_PAN_LEFT", "NAV_PAN_UP_LEFT", "NAV_TILT_TOGGLE", "NAV_ROTATE_CLOCKWISE",
        "NAV_ROTATE_COUNTERCLOCKWISE", "NAV_HEADING_TOGGLE",
    ]

    /// A second modal request while one is shown is REJECTED by the HMI, in sdl_hmi's words;
    /// true when answered so.
    func rejectedBehindModal(_ request: IncomingRequest, of app: AppState) -> Bool {
        guard let shown = app.modal else { return false }
        respond(request, "REJECTED", info: HMIAnswers.refusedBehindModal(request.name, shown: shown.request.name))
        return true
    }

    /// nil when the app may use `template`; else REJECTED in sdl_hmi's words (before anything
    /// else of the request is done).
    func refusedTemplate(_ template: String, for key: SessionKey) -> String? {
        guard let app = apps[key] else { return nil }
        return HMIAnswers.allowsTemplate(template, templates: configuration.templatesAvailable, isMedia: app.isMedia,
                                         appHMITypes: app.appHMITypes) ? nil : HMIAnswers.templateRefused
    }

    /// Alert: systemContext ALERT while shown, SUCCESS after `duration` (5000 ms) or, with
    /// soft buttons, when one is pressed; a second modal request while one is shown is REJECTED (core/HMI).
    /// A spoken alert attenuates an audible app while the speech lasts (`speakDurationMs`),
    /// so the app sees ALERT+ATTENUATED, ALERT+AUDIBLE, then MAIN+AUDIBLE, as with core and
    /// its HMI (TTS.Speak ends before UI.Alert).
    func alert(_ request: IncomingRequest, _ alert: Alert) {
        guard let app = apps[request.key] else { return }
        let tts = alert.ttsChunks ?? []
        guard alert.alertText1 != nil || alert.alertText2 != nil || alert.alertText3 != nil || !tts.isEmpty else {
            respond(request, "INVALID_DATA", info: "Mandatory parameters are missing")  // alert_request.cc
            return
        }
        guard !rejectedBehindModal(request, of: app) else { return }
        // With soft buttons core gives the HMI duration 0 and sets no timeout of its own: the
        // alert stays until one is pressed (alert_request.cc).
        let buttons = alert.softButtons?.map(\.softButtonID) ?? []
        let token = showAlert(request, kind: .alert, for: buttons.isEmpty ? alert.duration ?? 5000 : nil, ending: "SUCCESS",
                              softButtonIDs: buttons, cancelID: alert.cancelID)
        if !tts.isEmpty {
            apps[request.key]?.attenuated = true
            _ = after(configuration.speakDurationMs) { hu in
                guard hu.apps[request.key]?.modal?.token == token, hu.apps[request.key]?.speak == nil else { return }
                hu.apps[request.key]?.attenuated = false
                hu.refreshStatus(request.key)
            }
        }
        refreshStatus(request.key)
    }

    /// SubtleAlert: systemContext ALERT while shown, with core's own check of what it needs.
    /// sdl_hmi ends it after `duration` (10 s when core sends none, which it does not with soft
    /// buttons): SUCCESS, or ABORTED when it had soft buttons nobody pressed; a soft button ends
    /// it SUCCESS, and so does a press on the alert itself (`pressSubtleAlert`).
    func subtleAlert(_ request: IncomingRequest, _ alert: SubtleAlert) {
        guard let app = apps[request.key] else { return }
        guard alert.alertText1 != nil || alert.alertText2 != nil || !(alert.ttsChunks ?? []).isEmpty else {
            return respond(request, "INVALID_DATA", info: "Mandatory parameters are missing")  // subtle_alert_request.cc
        }
        guard !rejectedBehindModal(request, of: app) else { return }
        let buttons = alert.softButtons?.map(\.softButtonID) ?? []
        let duration = (buttons.isEmpty ? alert.duration : nil).flatMap { $0 > 0 ? $0 : nil } ?? 10_000
        _ = showAlert(request, kind: .subtleAlert, for: duration, ending: buttons.isEmpty ? "SUCCESS" : "ABORTED",
                      softButtonIDs: buttons, cancelID: alert.cancelID)
        refreshStatus(request.key)
    }

    /// The driver taps the subtle alert (not a button), as on sdl_hmi: it closes (SUCCESS), the
    /// app is activated, and it gets OnSubtleAlertPressed.
    func pressSubtleAlert(appID: String?) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard apps[key]?.modal?.kind == .subtleAlert, let app = apps[key] else { throw .invalidAction("pressSubtleAlert: no subtle alert is shown") }
        finishModal(key, token: nil, resultCode: "SUCCESS")
        try await activateApp(app.appID)
        notify(key, "OnSubtleAlertPressed", [:])
    }

    /// Puts an alert on the screen (systemContext ALERT) until `milliseconds` end, with
    /// `ending` then (nil: until the driver or the app ends it). Returns its timer token.
    private func showAlert(_ request: IncomingRequest, kind: PendingUI.Kind, for milliseconds: Int?, ending: String,
                           softButtonIDs: [Int], cancelID: Int?) -> Int {
        let token = after(milliseconds) { $0.finishModal(request.key, token: nil, resultCode: ending) }
        apps[request.key]?.modal = PendingUI(kind: kind, request: request, token: token, softButtonIDs: softButtonIDs, cancelID: cancelID)
        apps[request.key]?.systemContext = .alert
        return token
    }

    /// Ends the modal UI of an app with a response; `token` nil means whatever is shown.
    func finishModal(_ key: SessionKey, token: Int?, resultCode: String, info: String? = nil, _ extra: JSONObject = [:]) {
        guard let modal = apps[key]?.modal, token == nil || modal.token == token else { return }
        cancelTimer(modal.token)
        apps[key]?.modal = nil
        apps[key]?.systemContext = .main
        if apps[key]?.speak == nil { apps[key]?.attenuated = false }
        respond(modal.request, resultCode, info: info, extra)
        refreshStatus(key)
    }

    /// PerformInteraction: INVALID_ID for unknown choice sets; HMI_OBSCURED (manual) or
    /// VRSESSION (voice) while shown; the driver's choice answers SUCCESS, else TIMED_OUT.
    func performInteraction(_ request: IncomingRequest, _ interaction: PerformInteraction) {
        guard let app = apps[request.key] else { return }
        let setIDs = interaction.interactionChoiceSetIDList
        if setIDs.contains(where: { app.choiceSets[$0] == nil }) {
            respond(request, "INVALID_ID")
            return
        }
        guard !rejectedBehindModal(request, of: app) else { return }
        let mode = interaction.interactionMode, layout = interaction.interactionLayout
        guard !setIDs.isEmpty || layout == .keyboard else {
            respond(request, "INVALID_DATA")
            return
        }
        let choices = setIDs.flatMap { app.choiceSets[$0]?.choiceSet ?? [] }
        if mode != .manualOnly, choices.contains(where: { $0.vrCommands == nil }) {
            respond(request, "INVALID_DATA", info: "Some choices don't contain VR commands.")  // perform_interaction_request.cc
            return
        }
        let token = after(interaction.timeout ?? 10000) {
            $0.finishModal(request.key, token: nil, resultCode: "TIMED_OUT", info: HMIAnswers.interactionTimedOut)
        }
        apps[request.key]?.modal = PendingUI(
            kind: .interaction, request: request, token: token, choiceSetIDs: setIDs, choiceIDs: choices.map(\.choiceID),
            cancelID: interaction.cancelID, triggerSource: mode == .vrOnly ? "VR" : "MENU",
            keyboardText: Self.showsKeyboard(layout: layout, mode: mode) ? "" : nil)
        apps[request.key]?.systemContext = mode == .manualOnly ? .hmiObscured : .vrsession
        refreshStatus(request.key)
    }

    /// Show's text fields, in the spec's order (also the order of core's `showStrings`).
    static let showTextKeys = ["mainField1", "mainField2", "mainField3", "mainField4", "statusBar", "mediaClock", "mediaTrack", "templateTitle"]

    /// Show: stores the fields; text fields the display lacks give WARNINGS, a graphic on
    /// a display without graphics UNSUPPORTED_RESOURCE (success true, as core).
    func show(_ request: IncomingRequest) {
        let p = request.parameters
        guard !p.isEmpty else {
            respond(request, "INVALID_DATA")  // show_request.cc: nothing to show
            return
        }
        let template = p["templateConfiguration"]?["template"]?.stringValue
        if let template, let refused = refusedTemplate(template, for: request.key) {
            respond(request, "REJECTED", info: refused)
            return
        }
        if showOnWidget(request) { return }
        let fields = displayTextFields
        let unsupported = Self.showTextKeys.filter { p[$0] != nil && !fields.contains($0) }
        apps.update(request.key) { app in
            app.show.merge(p) { _, new in new }
            // sdl_hmi shows the main window's fields on the widgets that copy it too.
            for (id, window) in app.windows where window.duplicateUpdatesFromWindowID == 0 {
                app.windows[id]?.show.merge(p) { _, new in new }
            }
        }
        if (p["graphic"] != nil || p["secondaryGraphic"] != nil),
           configuration.capabilities["displayCapabilities"]?["graphicSupported"]?.boolValue == false {
            respond(request, "UNSUPPORTED_RESOURCE", success: true, info: "the display shows no graphics")
        } else if !unsupported.isEmpty {
            respond(request, "WARNINGS", info: "the display has no field \(unsupported.joined(separator: ", "))")
        } else {
            respond(request, "SUCCESS")
        }
        if let template { templateChanged(request.key, to: template) }
    }

    /// Speak: ATTENUATED audio for audible apps while speaking, SUCCESS after the speech.
    func speak(_ request: IncomingRequest, _ speech: Speak) {
        guard let app = apps[request.key] else { return }
        guard app.speak == nil else {
            respond(request, "REJECTED", info: "Speak request already in progress")  // generic_hmi's TTSController
            return
        }
        guard !speech.ttsChunks.isEmpty, speech.ttsChunks.allSatisfy({ $0.text.isEmpty || Self.passesCoreSyntax($0.text) }) else {
            respond(request, "INVALID_DATA")  // speak_request.cc, IsWhiteSpaceExist
            return
        }
        let token = after(configuration.speakDurationMs) { hu in
            guard let pending = hu.apps[request.key]?.speak else { return }
            hu.apps[request.key]?.speak = nil
            if hu.apps[request.key]?.modal == nil { hu.apps[request.key]?.attenuated = false }
            hu.respond(pending.request, "SUCCESS")
            hu.refreshStatus(request.key)
        }
        apps[request.key]?.speak = PendingUI(kind: .speak, request: request, token: token)
        apps[request.key]?.attenuated = true
        refreshStatus(request.key)
    }

    /// SetGlobalProperties: at least one property; vrHelp needs vrHelpTitle and back.
    func setGlobalProperties(_ request: IncomingRequest) {
        let p = request.parameters
        guard !p.isEmpty else {
            respond(request, "INVALID_DATA", info: "There are no parameters present in request.")  // set_global_properties_request.cc
            return
        }
        if (p["vrHelp"] == nil) != (p["vrHelpTitle"] == nil) {
            respond(request, "REJECTED")
            return
        }
        apps[request.key]?.globalProperties.merge(p) { _, new in new }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// ResetGlobalProperties: forgets the named properties.
    func resetGlobalProperties(_ request: IncomingRequest, _ reset: ResetGlobalProperties) {
        let names: [GlobalProperty: String] = [
            .helpprompt: "helpPrompt", .timeoutprompt: "timeoutPrompt", .vrhelptitle: "vrHelpTitle", .vrhelpitems: "vrHelp",
            .menuname: "menuTitle", .menuicon: "menuIcon", .keyboardproperties: "keyboardProperties", .userLocation: "userLocation",
        ]
        let keys = reset.properties.compactMap { names[$0] }
        guard !keys.isEmpty, keys.count == reset.properties.count else {
            respond(request, "INVALID_DATA", info: "properties must list GlobalProperty values")
            return
        }
        for key in keys { apps[request.key]?.globalProperties[key] = nil }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// SetMediaClockTimer: media apps only (REJECTED otherwise, as core); counting needs startTime.
    func setMediaClockTimer(_ request: IncomingRequest, _ timer: SetMediaClockTimer) {
        guard let app = apps[request.key] else { return }
        guard app.isMedia || app.appHMITypes.contains("NAVIGATION") else {
            respond(request, "REJECTED")
            return
        }
        if timer.updateMode == .countup || timer.updateMode == .countdown, timer.startTime == nil {
            respond(request, "INVALID_DATA", info: "\(timer.updateMode) needs startTime")
            return
        }
        apps[request.key]?.show["mediaClockTimer"] = .object(request.parameters)
        respond(request, "SUCCESS")
    }

    /// ScrollableMessage: HMI_OBSCURED while shown, SUCCESS after its timeout (30 s) or a soft button.
    func scrollableMessage(_ request: IncomingRequest, _ message: ScrollableMessage) {
        guard let app = apps[request.key], !rejectedBehindModal(request, of: app) else { return }
        let token = after(message.timeout ?? 30000) { $0.finishModal(request.key, token: nil, resultCode: "SUCCESS") }
        apps[request.key]?.modal = PendingUI(kind: .scrollable, request: request, token: token,
                                             softButtonIDs: message.softButtons?.map(\.softButtonID) ?? [], cancelID: message.cancelID)
        apps[request.key]?.systemContext = .hmiObscured
        refreshStatus(request.key)
    }

    /// Slider: HMI_OBSCURED while shown; TIMED_OUT (with the position) after its timeout (10 s).
    func slider(_ request: IncomingRequest, _ slider: Slider) {
        guard let app = apps[request.key] else { return }
        guard slider.position <= slider.numTicks else {
            respond(request, "INVALID_DATA")
            return
        }
        guard !rejectedBehindModal(request, of: app) else { return }
        let position = JSONValue.int(Int64(slider.position))
        let token = after(slider.timeout ?? 10000) {
            $0.finishModal(request.key, token: nil, resultCode: "TIMED_OUT", ["sliderPosition": position])
        }
        apps[request.key]?.modal = PendingUI(kind: .slider, request: request, token: token, cancelID: slider.cancelID)
        apps[request.key]?.systemContext = .hmiObscured
        refreshStatus(request.key)
    }

    /// SubscribeButton: UNSUPPORTED_RESOURCE for buttons the head unit lacks, REJECTED for
    /// media buttons of non-media apps, IGNORED when already subscribed (core).
    func subscribeButton(_ request: IncomingRequest, _ button: ButtonName) {
        guard let app = apps[request.key] else { return }
        let name = button.rawValue
        // core: first what the app's kind allows, then what the head unit has, neither with info.
        if (Self.mediaButtons.contains(name) && !app.isMedia) || (Self.navigationButtons.contains(name) && !app.appHMITypes.contains("NAVIGATION")) {
            respond(request, "REJECTED")
            return
        }
        let available = Set(configuration.capabilities["buttonCapabilities"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        guard available.contains(name) else {
            respond(request, "UNSUPPORTED_RESOURCE")
            return
        }
        guard !app.buttonSubscriptions.contains(name) else {
            respond(request, "IGNORED")
            return
        }
        apps[request.key]?.buttonSubscriptions.insert(name)
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// UnsubscribeButton: IGNORED when not subscribed.
    func unsubscribeButton(_ request: IncomingRequest, _ button: ButtonName) {
        let name = button.rawValue
        guard apps[request.key]?.buttonSubscriptions.remove(name) != nil else {
            respond(request, "IGNORED")
            return
        }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }
}

extension HeadUnitEmulator {
    /// Functions whose soft buttons a press is passed on for (core's SubscribeApplicationToSoftButton).
    static let softButtonFunctions: Set<String> = [
        "Show", "Alert", "ScrollableMessage", "AlertManeuver", "ShowConstantTBT", "UpdateTurnList", "SubtleAlert",
    ]
    /// Functions whose response ends their soft buttons (core's alert, scrollable message and
    /// alert maneuver responses).
    static let softButtonsEndingFunctions: Set<String> = ["Alert", "ScrollableMessage", "AlertManeuver"]

    func subscribeSoftButtons(of request: IncomingRequest) {
        guard Self.softButtonFunctions.contains(request.name), let buttons = request.parameters["softButtons"]?.arrayValue else { return }
        let ids = buttons.compactMap { $0["softButtonID"]?.intValue }.map { Int($0) }
        // core: a Show replaces the buttons of the last Show; the others add theirs.
        if request.name == "Show" { apps[request.key]?.softButtons["Show"] = Set(ids) } else { apps[request.key]?.softButtons[request.name, default: []].formUnion(ids) }
    }

    func unsubscribeSoftButtons(after request: IncomingRequest) {
        guard Self.softButtonsEndingFunctions.contains(request.name) else { return }
        if configuration.softButtonsPerFunction {
            apps[request.key]?.softButtons[request.name] = nil
        } else if let buttons = request.parameters["softButtons"]?.arrayValue {
            let ids = Set(buttons.compactMap { $0["softButtonID"]?.intValue }.map { Int($0) })
            apps[request.key]?.softButtons[request.name]?.subtract(ids)
        }
    }

    /// Whether a press of this soft button reaches the app.
    func isSubscribed(softButton id: Int, _ key: SessionKey) -> Bool {
        apps[key]?.softButtons.values.contains { $0.contains(id) } ?? false
    }
}
