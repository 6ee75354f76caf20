import SmartDeviceLink

/// A request core waits on while it is on the screen: an alert, a scrollable message, a
/// choice or keyboard, a recording. A driver step or its own time ends it.
struct OpenView: Sendable {
    var requestID: Int64
    var method: String
    var appID: Int64
    var softButtonIDs: [Int64]
    /// Ends the view when its time is up (nil: it waits for a person).
    var timer: Task<Void, Never>?
    /// Which opening of a view this is, so a stale timer does not close a later one.
    var token: Int
}

/// What is open on this HMI's screen.
struct OpenViews: Sendable {
    /// One UI view at a time, as on a real screen: a second alert is REJECTED while one is up.
    var modal: OpenView?
    /// core's VR.PerformInteraction beside the UI one (a choice can be spoken or touched).
    var voiceInteraction: OpenView?
    /// What was typed on the open keyboard.
    var keyboardText = ""
    /// The app whose menu is open (system context MENU).
    var menuOpenFor: Int64?
    var tokens = 0

    mutating func nextToken() -> Int {
        tokens += 1
        return tokens
    }

    func cancelTimers() {
        modal?.timer?.cancel()
        voiceInteraction?.timer?.cancel()
    }
}

extension CoreHMI {
    /// Answers a request core sent: the views wait, the rest are answered at once.
    func answerRequest(_ id: Int64, _ method: String, _ params: JSONObject) async throws {
        let appID = params["appID"]?.intValue ?? 0
        if let set = setResults[method]?.first {
            setResults[method]?.removeFirst()
            return try await answer(id, method, set.code, info: set.info)
        }
        if method == "UI.Show", let refusal = templateRefusal(params, appID: appID) {
            // generic_hmi sends both as an error object, the WARNINGS too, so that core keeps the message.
            let code: HMIResult = refusal.code == "WARNINGS" ? .warnings : .unsupportedRequest
            return try await send(["jsonrpc": "2.0", "id": .int(id), "error": [
                "code": .int(Int64(code.rawValue)), "message": .string(refusal.info), "data": ["method": .string(method)]]])
        }
        if try await answerRemoteControl(id, method, params) { return }
        if try await answerPolicyUpdate(id, method, params) { return }
        if try await answerWindows(id, method, params) { return }
        switch method {
        case "UI.Alert", "UI.SubtleAlert", "UI.ScrollableMessage", "UI.PerformInteraction", "UI.PerformAudioPassThru":
            guard views.modal == nil else {
                // The official sdl_hmi's words where it refuses the same, which core passes on
                // to the app with REJECTED; our own for the rest.
                let shown = views.modal?.method.split(separator: ".").last.map(String.init) ?? "request"
                let words = ["UI.Alert": "Another Alert is active.", "UI.ScrollableMessage": "Higher priority request is being processed on HMI!",
                             "UI.PerformAudioPassThru": "PerformAudioPassThru request aborted!"]
                return try await answer(id, method, .rejected, info: words[method] ?? "another \(shown) is shown")
            }
            try await open(id, method, params, appID: appID)
        case "VR.PerformInteraction":
            let token = views.nextToken()
            views.voiceInteraction = OpenView(requestID: id, method: method, appID: appID, softButtonIDs: [], timer: nil, token: token)
            if let milliseconds = params["timeout"]?.intValue, milliseconds > 0 {
                views.voiceInteraction?.timer = after(milliseconds) { hmi in try await hmi.endVoiceInteraction(.timedOut, token: token) }
            }
        case "UI.CancelInteraction":
            // As smartdevicelink/generic_hmi (UIController): the open view of that function ends
            // ABORTED and this succeeds; with none, IGNORED in its words.
            let cancellable: [Int64: String] = [10: "UI.PerformInteraction", 12: "UI.Alert", 25: "UI.ScrollableMessage", 64: "UI.SubtleAlert"]
            guard let view = views.modal, let function = params["functionID"]?.intValue, cancellable[function] == view.method else {
                return try await answer(id, method, .ignored, info: CoreHMIAnswers.cancelIgnoredInfo)
            }
            // sdl_hmi closes a subtle alert as if it had run its time.
            try await closeView(view.method == "UI.SubtleAlert" ? .success : .aborted)
            try await answer(id, method)
        case "UI.EndAudioPassThru":
            guard views.modal?.method == "UI.PerformAudioPassThru" else {
                // generic_hmi's respondFail: a result with code 22 (GENERIC_ERROR) and no message.
                return try await send(["jsonrpc": "2.0", "id": .int(id), "result": ["code": 22, "method": .string(method)]])
            }
            try await closeView(.success)
            try await answer(id, method)
        case "UI.ShowAppMenu":
            try await answer(id, method)
            views.menuOpenFor = appID
            try await notify("UI.OnSystemContext", ["systemContext": "MENU", "appID": .int(appID)])
        case "BasicCommunication.DialNumber":
            // As sdl_hmi when the driver agrees: the call takes the screen, and core mutes every app while it lasts.
            try await answer(id, method)
            try await notify("BasicCommunication.OnAppDeactivated", ["appID": .int(appID)])
            try await notify("BasicCommunication.OnEventChanged", ["eventName": "PHONE_CALL", "isActive": true])
        case "Navigation.SendLocation":
            // sdl_hmi keeps each location sent among its waypoints (NavigationController.sendLocation).
            var point: JSONObject = [:]
            if let latitude = params["latitudeDegrees"], let longitude = params["longitudeDegrees"] {
                point["coordinate"] = ["latitudeDegrees": latitude, "longitudeDegrees": longitude]
            }
            for key in ["locationName", "addressLines", "locationDescription", "phoneNumber", "locationImage"] { point[key] = params[key] }
            point["searchAddress"] = params["address"]
            wayPoints.append(.object(point))
            try await answer(id, method)
        case "Navigation.GetWayPoints":
            try await answer(id, method, .success, ["appID": .int(appID), "wayPoints": .array(wayPoints)])
        case "VehicleInfo.GetVehicleData":
            let asked = params.keys.filter { params[$0]?.boolValue == true }
            if let name = asked.sorted().first(where: { unavailableData[$0] != nil }), let failure = unavailableData[name] {
                return try await answer(id, method, failure.code, info: failure.info)
            }
            try await answer(id, method, .success, vehicleData.filter { asked.contains($0.key) })
        default:
            if method == "UI.SetGlobalProperties", let mode = params["keyboardProperties"]?["keypressMode"]?.stringValue {
                keypressModes[appID] = mode
            }
            var result = CoreHMIAnswers.result(for: method, params: params)
            result.merge(configuredAnswers[method]?.objectValue ?? [:]) { _, configured in configured }
            try await answer(id, method, .success, result)
        }
    }

    /// The display's templates, as this HMI told core (sdl_hmi's).
    static let templates = SDLHMIStartup.answers["UI.GetCapabilities"]?["displayCapabilities"]?["templatesAvailable"]?.arrayValue?
        .compactMap(\.stringValue) ?? []

    /// generic_hmi's answer to a UI.Show asking for a template the display lacks; nil otherwise.
    private func templateRefusal(_ params: JSONObject, appID: Int64) -> (code: String, info: String)? {
        guard let template = params["templateConfiguration"]?["template"]?.stringValue else { return nil }
        // Only the template asked for: appID, an empty showStrings and the configuration alone.
        let onlyTemplate = params.count == 3 && params["showStrings"]?.arrayValue?.isEmpty == true
            && params["templateConfiguration"]?.objectValue?.count == 1
        return CoreHMIAnswers.templateAnswer(template: template, isMedia: mediaApps.contains(appID), templates: Self.templates,
                                             onlyTemplate: onlyTemplate)
    }

    /// Puts a view on the screen: the app's system context changes as a generic HMI's does,
    /// and its time starts (an alert's duration, an interaction's timeout, a recording's
    /// maxDuration). core sends duration 0 for an alert with soft buttons: it stays until one is pressed.
    private func open(_ id: Int64, _ method: String, _ params: JSONObject, appID: Int64) async throws {
        let token = views.nextToken()
        let buttons = params["softButtons"]?.arrayValue?.compactMap { $0["softButtonID"]?.intValue } ?? []
        views.modal = OpenView(requestID: id, method: method, appID: appID, softButtonIDs: buttons, timer: nil, token: token)
        views.keyboardText = ""
        let (context, limit, ending): (String, Int64?, HMIResult) = switch method {
        case "UI.Alert": ("ALERT", params["duration"]?.intValue, .success)
        // sdl_hmi: 10 s when core sends no duration (it sends none with soft buttons), then
        // ABORTED if it had buttons nobody pressed.
        case "UI.SubtleAlert": ("ALERT", params["duration"]?.intValue.flatMap { $0 > 0 ? $0 : nil } ?? 10_000, buttons.isEmpty ? .success : .aborted)
        case "UI.ScrollableMessage": ("HMI_OBSCURED", params["timeout"]?.intValue, .success)
        case "UI.PerformInteraction": ("HMI_OBSCURED", params["timeout"]?.intValue, .timedOut)
        default: ("HMI_OBSCURED", params["maxDuration"]?.intValue, .success)  // UI.PerformAudioPassThru
        }
        try await notify("UI.OnSystemContext", ["systemContext": .string(context), "appID": .int(appID)])
        if let limit, limit > 0 {
            views.modal?.timer = after(limit) { hmi in try await hmi.closeView(ending, token: token) }
        }
    }

    /// Ends the open view with `code` (and `result`), then returns the app to MAIN.
    func closeView(_ code: HMIResult, _ result: JSONObject = [:], token: Int? = nil) async throws {
        guard let view = views.modal, token == nil || view.token == token else { return }
        // A timer that ends its own view must not cancel itself: its answer would be cancelled too.
        if token == nil { view.timer?.cancel() }
        views.modal = nil
        if view.method == "UI.PerformInteraction" {
            // A choice made on the screen ends the spoken one: core waits for both answers.
            try await endVoiceInteraction(.aborted, token: nil)
        }
        try await answer(view.requestID, view.method, code, result)
        try await notify("UI.OnSystemContext", ["systemContext": "MAIN", "appID": .int(view.appID)])
    }

    func endVoiceInteraction(_ code: HMIResult, _ result: JSONObject = [:], token: Int?) async throws {
        guard let view = views.voiceInteraction, token == nil || view.token == token else { return }
        if token == nil { view.timer?.cancel() }
        views.voiceInteraction = nil
        try await answer(view.requestID, view.method, code, result)
    }

    /// The open view of `method` (any UI view when nil), or a failure that says what is on screen.
    func openView(_ methods: Set<String>, for step: String) throws -> OpenView {
        guard let view = views.modal, methods.contains(view.method) else {
            let wanted = methods.sorted().joined(separator: " or ")
            throw Failure(description: "\(step): core sent no \(wanted) that is still open" + (views.modal.map { " (\($0.method) is)" } ?? ""))
        }
        return view
    }

    /// Runs `body` on this HMI after `milliseconds`, unless cancelled first.
    private func after(_ milliseconds: Int64, _ body: @escaping @Sendable (isolated CoreHMI) async throws -> Void) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: .milliseconds(milliseconds))) != nil else { return }
            do { try await body(self) } catch { self.ended("\(error)") }
        }
    }
}
