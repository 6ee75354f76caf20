import SmartDeviceLink

extension HeadUnitEmulator {
    static let mediaButtons: Set<String> = ["PLAY_PAUSE", "SEEKLEFT", "SEEKRIGHT", "TUNEUP", "TUNEDOWN"]

    private func softButtonIDs(_ parameters: JSONObject) -> [Int] {
        parameters["softButtons"]?.arrayValue?.compactMap { $0["softButtonID"]?.intValue.map(Int.init) } ?? []
    }

    /// Alert: systemContext ALERT while shown (and ATTENUATED audio for spoken alerts of
    /// audible apps), SUCCESS after `duration` (5000 ms) or a soft-button press; a second
    /// modal request while one is shown is REJECTED (core/HMI).
    func alert(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        let p = request.parameters
        let tts = p["ttsChunks"]?.arrayValue ?? []
        guard p["alertText1"] != nil || p["alertText2"] != nil || p["alertText3"] != nil || !tts.isEmpty else {
            respond(request, "INVALID_DATA", info: "an Alert needs alertText1, alertText2 or ttsChunks")
            return
        }
        guard app.modal == nil else {
            respond(request, "REJECTED", info: "another \(app.modal!.request.name) is shown")
            return
        }
        let duration = Int(p["duration"]?.intValue ?? 5000)
        let token = after(duration) { $0.finishModal(request.key, token: nil, resultCode: "SUCCESS") }
        apps[request.key]?.modal = PendingUI(kind: .alert, request: request, token: token, softButtonIDs: softButtonIDs(p))
        apps[request.key]?.systemContext = .alert
        if !tts.isEmpty { apps[request.key]?.attenuated = true }
        refreshStatus(request.key)
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
    func performInteraction(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        let p = request.parameters
        let setIDs = p["interactionChoiceSetIDList"]!.arrayValue!.compactMap { $0.intValue.map(Int.init) }
        if let missing = setIDs.first(where: { app.choiceSets[$0] == nil }) {
            respond(request, "INVALID_ID", info: "no choice set \(missing)")
            return
        }
        guard app.modal == nil else {
            respond(request, "REJECTED", info: "another \(app.modal!.request.name) is shown")
            return
        }
        let mode = p["interactionMode"]!.stringValue!
        let layout = p["interactionLayout"]?.stringValue
        guard !setIDs.isEmpty || layout == "KEYBOARD" else {
            respond(request, "INVALID_DATA", info: "interactionChoiceSetIDList may be empty only for the KEYBOARD layout")
            return
        }
        let choices = setIDs.flatMap { app.choiceSets[$0]?["choiceSet"]?.arrayValue ?? [] }
        if mode != "MANUAL_ONLY", choices.contains(where: { $0["vrCommands"] == nil }) {
            respond(request, "INVALID_DATA", info: "\(mode) needs vrCommands in every choice")
            return
        }
        let timeout = Int(p["timeout"]?.intValue ?? 10000)
        let token = after(timeout) { $0.finishModal(request.key, token: nil, resultCode: "TIMED_OUT") }
        apps[request.key]?.modal = PendingUI(
            kind: .interaction, request: request, token: token,
            choiceIDs: choices.compactMap { $0["choiceID"]?.intValue.map(Int.init) },
            triggerSource: mode == "VR_ONLY" ? "VR" : "MENU",
            keyboardText: Self.showsKeyboard(layout: layout, mode: mode) ? "" : nil)
        apps[request.key]?.systemContext = mode == "MANUAL_ONLY" ? .hmiObscured : .vrsession
        refreshStatus(request.key)
    }

    /// Show: stores the fields; text fields the display lacks give WARNINGS, a graphic on
    /// a display without graphics UNSUPPORTED_RESOURCE (success true, as core).
    func show(_ request: IncomingRequest) {
        let p = request.parameters
        let display = configuration.capabilities["displayCapabilities"]?.objectValue ?? [:]
        let fields = Set(display["textFields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        let textKeys = ["mainField1", "mainField2", "mainField3", "mainField4", "statusBar", "mediaClock", "mediaTrack", "templateTitle"]
        let unsupported = textKeys.filter { p[$0] != nil && !fields.contains($0) }
        apps[request.key]?.show.merge(p) { _, new in new }
        if (p["graphic"] != nil || p["secondaryGraphic"] != nil), display["graphicSupported"]?.boolValue == false {
            respond(request, "UNSUPPORTED_RESOURCE", success: true, info: "the display shows no graphics")
        } else if !unsupported.isEmpty {
            respond(request, "WARNINGS", info: "the display has no field \(unsupported.joined(separator: ", "))")
        } else {
            respond(request, "SUCCESS")
        }
    }

    /// Speak: ATTENUATED audio for audible apps while speaking, SUCCESS after the speech.
    func speak(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        guard app.speak == nil else {
            respond(request, "REJECTED", info: "a Speak is in progress")
            return
        }
        guard !(request.parameters["ttsChunks"]?.arrayValue?.isEmpty ?? true) else {
            respond(request, "INVALID_DATA", info: "ttsChunks is empty")
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
            respond(request, "INVALID_DATA", info: "SetGlobalProperties needs at least one property")
            return
        }
        if (p["vrHelp"] == nil) != (p["vrHelpTitle"] == nil) {
            respond(request, "REJECTED", info: "vrHelp and vrHelpTitle go together")
            return
        }
        apps[request.key]?.globalProperties.merge(p) { _, new in new }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// ResetGlobalProperties: forgets the named properties.
    func resetGlobalProperties(_ request: IncomingRequest) {
        let names: [String: String] = [
            "HELPPROMPT": "helpPrompt", "TIMEOUTPROMPT": "timeoutPrompt", "VRHELPTITLE": "vrHelpTitle", "VRHELPITEMS": "vrHelp",
            "MENUNAME": "menuTitle", "MENUICON": "menuIcon", "KEYBOARDPROPERTIES": "keyboardProperties", "USER_LOCATION": "userLocation",
        ]
        guard let list = request.parameters["properties"]?.arrayValue?.compactMap(\.stringValue), !list.isEmpty,
              list.allSatisfy({ names[$0] != nil }) else {
            respond(request, "INVALID_DATA", info: "properties must list GlobalProperty values")
            return
        }
        for name in list { apps[request.key]?.globalProperties[names[name]!] = nil }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// SetMediaClockTimer: media apps only (REJECTED otherwise, as core); counting needs startTime.
    func setMediaClockTimer(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        guard app.isMedia || app.appHMITypes.contains("NAVIGATION") else {
            respond(request, "REJECTED", info: "only media and navigation apps have a media clock")
            return
        }
        let mode = request.parameters["updateMode"]!.stringValue!
        if mode == "COUNTUP" || mode == "COUNTDOWN", request.parameters["startTime"] == nil {
            respond(request, "INVALID_DATA", info: "\(mode) needs startTime")
            return
        }
        apps[request.key]?.show["mediaClockTimer"] = .object(request.parameters)
        respond(request, "SUCCESS")
    }

    /// ScrollableMessage: HMI_OBSCURED while shown, SUCCESS after its timeout (30 s) or a soft button.
    func scrollableMessage(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        guard app.modal == nil else {
            respond(request, "REJECTED", info: "another \(app.modal!.request.name) is shown")
            return
        }
        let timeout = Int(request.parameters["timeout"]?.intValue ?? 30000)
        let token = after(timeout) { $0.finishModal(request.key, token: nil, resultCode: "SUCCESS") }
        apps[request.key]?.modal = PendingUI(kind: .scrollable, request: request, token: token, softButtonIDs: softButtonIDs(request.parameters))
        apps[request.key]?.systemContext = .hmiObscured
        refreshStatus(request.key)
    }

    /// Slider: HMI_OBSCURED while shown; TIMED_OUT (with the position) after its timeout (10 s).
    func slider(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        let p = request.parameters
        guard p["position"]!.intValue! <= p["numTicks"]!.intValue! else {
            respond(request, "INVALID_DATA", info: "position exceeds numTicks")
            return
        }
        guard app.modal == nil else {
            respond(request, "REJECTED", info: "another \(app.modal!.request.name) is shown")
            return
        }
        let timeout = Int(p["timeout"]?.intValue ?? 10000)
        let position = p["position"]!
        let token = after(timeout) { $0.finishModal(request.key, token: nil, resultCode: "TIMED_OUT", ["sliderPosition": position]) }
        apps[request.key]?.modal = PendingUI(kind: .slider, request: request, token: token)
        apps[request.key]?.systemContext = .hmiObscured
        refreshStatus(request.key)
    }

    /// SubscribeButton: UNSUPPORTED_RESOURCE for buttons the head unit lacks, REJECTED for
    /// media buttons of non-media apps, IGNORED when already subscribed (core).
    func subscribeButton(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        let name = request.parameters["buttonName"]!.stringValue!
        let available = Set(configuration.capabilities["buttonCapabilities"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        guard available.contains(name) else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "the head unit has no button \(name)")
            return
        }
        if Self.mediaButtons.contains(name), !app.isMedia {
            respond(request, "REJECTED", info: "only media apps may subscribe to \(name)")
            return
        }
        guard !app.buttonSubscriptions.contains(name) else {
            respond(request, "IGNORED", info: "already subscribed to \(name)")
            return
        }
        apps[request.key]?.buttonSubscriptions.insert(name)
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// UnsubscribeButton: IGNORED when not subscribed.
    func unsubscribeButton(_ request: IncomingRequest) {
        let name = request.parameters["buttonName"]!.stringValue!
        guard apps[request.key]?.buttonSubscriptions.remove(name) != nil else {
            respond(request, "IGNORED", info: "not subscribed to \(name)")
            return
        }
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }
}
