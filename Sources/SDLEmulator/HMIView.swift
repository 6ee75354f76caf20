public import SmartDeviceLink

/// What sdl_core would have sent its HMI for an app's request, so a scenario's
/// `{"expect": {"hmi": "UI.Show", ...}}` reads the same on the emulator as on a real core
/// with `sdl-run --hmi`.
///
/// The shapes follow core's commands (show_request.cc, alert_request.cc, add_command_request.cc,
/// add_sub_menu_request.cc, speak_request.cc, set_global_properties_request.cc,
/// perform_interaction_request.cc, perform_audio_pass_thru_request.cc and the vehicle
/// data requests): text fields become `showStrings`/`alertStrings` entries of
/// `{fieldName, fieldText}`, menus and voice commands split into their UI and VR halves, and
/// every message names the app. Requests not listed here have no HMI view in the emulator.
public enum HMIView {
    /// One message core sends its HMI.
    public struct Message: Sendable, Hashable {
        /// `Interface.Function`, e.g. `UI.Show`.
        public var method: String
        /// The message's parameters, as core would send them.
        public var params: JSONObject
    }

    /// Requests core forwards before it answers the app (the HMI's answer decides the
    /// response), so their view exists even when the user later cancels them.
    static let forwardedBeforeAnswer: Set<String> = [
        "Alert", "PerformInteraction", "PerformAudioPassThru", "ScrollableMessage", "Slider", "Speak",
    ]

    /// The messages for `function` with the app's `params`; `appID` is the HMI's id of the app.
    public static func messages(for function: String, _ params: JSONObject, appID: Int64) -> [Message] {
        var messages: [Message] = []
        func add(_ method: String, _ fields: JSONObject) {
            var fields = fields
            fields["appID"] = .int(appID)
            messages.append(Message(method: method, params: fields))
        }
        func pick(_ names: String...) -> JSONObject { params.filter { names.contains($0.key) } }
        func strings(_ fieldNames: [String]) -> JSONValue {
            .array(fieldNames.compactMap { name in params[name].map { .object(["fieldName": .string(name), "fieldText": $0]) } })
        }
        switch function {
        case "Show":
            var fields = pick("alignment", "graphic", "secondaryGraphic", "softButtons", "customPresets", "templateConfiguration", "windowID")
            fields["showStrings"] = strings(HeadUnitEmulator.showTextKeys)
            add("UI.Show", fields)
        case "Alert":
            var fields = pick("duration", "softButtons", "progressIndicator", "alertIcon", "cancelID")
            fields["alertStrings"] = strings(["alertText1", "alertText2", "alertText3"])
            // An alert with soft buttons stays until one is pressed: core sends duration 0.
            if params["softButtons"] != nil { fields["duration"] = 0 }
            add("UI.Alert", fields)
            if let chunks = params["ttsChunks"] { add("TTS.Speak", ["ttsChunks": chunks, "speakType": "ALERT"]) }
        case "Speak":
            add("TTS.Speak", pick("ttsChunks"))
        case "AddCommand":
            if params["menuParams"] != nil { add("UI.AddCommand", pick("cmdID", "menuParams", "cmdIcon", "secondaryImage")) }
            if let commands = params["vrCommands"] { add("VR.AddCommand", ["cmdID": params["cmdID"] ?? .null, "vrCommands": commands, "type": "Command"]) }
        case "DeleteCommand":
            add("UI.DeleteCommand", pick("cmdID"))
            add("VR.DeleteCommand", pick("cmdID").merging(["type": "Command"]) { $1 })
        case "AddSubMenu":
            var menuParams: JSONObject = ["menuName": params["menuName"] ?? .null]
            if let position = params["position"] { menuParams["position"] = position }
            if let parent = params["parentID"] { menuParams["parentID"] = parent }
            add("UI.AddSubMenu", pick("menuID", "menuIcon", "menuLayout", "secondaryImage").merging(["menuParams": .object(menuParams)]) { $1 })
        case "DeleteSubMenu":
            add("UI.DeleteSubMenu", pick("menuID"))
        case "SetGlobalProperties":
            let ui = pick("vrHelpTitle", "vrHelp", "menuTitle", "menuIcon", "keyboardProperties", "menuLayout", "userLocation")
            if !ui.isEmpty { add("UI.SetGlobalProperties", ui) }
            let tts = pick("helpPrompt", "timeoutPrompt")
            if !tts.isEmpty { add("TTS.SetGlobalProperties", tts) }
        case "PerformInteraction":
            var fields = pick("timeout", "interactionLayout", "cancelID")
            if let text = params["initialText"] { fields["initialText"] = ["fieldName": "initialInteractionText", "fieldText": text] }
            if let prompt = params["initialPrompt"] { fields["initialPrompt"] = prompt }
            add("UI.PerformInteraction", fields)
            add("VR.PerformInteraction", pick("timeout", "cancelID", "helpPrompt", "initialPrompt", "timeoutPrompt"))
        case "PerformAudioPassThru":
            var fields = pick("maxDuration", "muteAudio")
            fields["audioPassThruDisplayTexts"] = strings(["audioPassThruDisplayText1", "audioPassThruDisplayText2"])
            add("UI.PerformAudioPassThru", fields)
        case "ScrollableMessage":
            var fields = pick("timeout", "softButtons", "cancelID")
            if let body = params["scrollableMessageBody"] { fields["messageText"] = ["fieldName": "scrollableMessageBody", "fieldText": body] }
            add("UI.ScrollableMessage", fields)
        case "Slider":
            add("UI.Slider", pick("numTicks", "position", "sliderHeader", "sliderFooter", "timeout", "cancelID"))
        case "SetMediaClockTimer":
            add("UI.SetMediaClockTimer", pick("startTime", "endTime", "updateMode", "audioStreamingIndicator", "countRate"))
        case "SubscribeVehicleData", "UnsubscribeVehicleData", "GetVehicleData":
            add("VehicleInfo.\(function)", params)
        case "ShowAppMenu":
            add("UI.ShowAppMenu", pick("menuID"))
        case "SetAppIcon":
            add("UI.SetAppIcon", ["syncFileName": ["value": params["syncFileName"] ?? .null, "imageType": "DYNAMIC"]])
        default:
            break
        }
        return messages
    }
}

/// What the emulator's HMI was sent, for the control channel's `hmiMessages`, and what it
/// will be sent once requests are answered.
struct HMILog: Sendable {
    /// Every message, oldest first; `dropped` were let go to bound memory (between `limit`
    /// and twice that are kept).
    var messages: [HMIView.Message] = []
    var dropped = 0
    /// Messages of requests not yet answered; shown if the answer is a success.
    var awaiting: [RequestKey: [HMIView.Message]] = [:]
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Answers the HMI gives the next request of a method instead of SUCCESS (`hmiResult`).
    var results: [String: [(code: String, info: String?)]] = [:]
    static let limit = 10_000
}

extension HeadUnitEmulator {
    /// Records what core would send its HMI for `request`: at once for the requests the HMI
    /// answers, else when the request succeeds (core checks first: a duplicate name never
    /// reaches the screen).
    /// Returns false when the HMI answers the request with a result set by `hmiResult`: core
    /// passes the HMI's result code and info on to the app, and the request has no effect.
    func forwardToHMI(_ request: IncomingRequest, _ app: AppState) -> Bool {
        let view = HMIView.messages(for: request.name, request.parameters, appID: Int64(app.registrationOrder))
        if let method = view.first(where: { hmi.results[$0.method]?.isEmpty == false })?.method,
           let answer = hmi.results[method]?.removeFirst() {
            respond(request, answer.code, info: answer.info)
            return false
        }
        if HMIView.forwardedBeforeAnswer.contains(request.name) {
            display(view, appID: app.appID)
        } else if !view.isEmpty {
            hmi.awaiting[RequestKey(session: request.key, correlationID: request.correlationID)] = view
        }
        return true
    }

    /// The HMI answers the next request of `method` (`UI.Show`) with `resultCode`, an HMI API
    /// result code, and `info`; the app gets the code core maps it to (``CoreResults``).
    public func setHMIResult(_ method: String, resultCode: String, info: String?) throws(EmulatorError) {
        guard let appResult = CoreResults.appResult(forHMIResult: resultCode) else { throw CoreResults.notAnHMIResult(resultCode) }
        hmi.results[method, default: []].append((appResult, info))
    }

    func answeredOnHMI(_ request: IncomingRequest, _ resultCode: String) {
        guard let view = hmi.awaiting.removeValue(forKey: RequestKey(session: request.key, correlationID: request.correlationID)),
              let app = apps[request.key], Self.successfulCodes.contains(resultCode) else { return }
        display(view, appID: app.appID)
    }

    /// A message core sends its HMI by itself (not for an app's request), for `expect` `hmi` steps.
    func tellHMI(_ method: String, _ params: JSONObject, appID: String) {
        display([HMIView.Message(method: method, params: params)], appID: appID)
    }

    private func display(_ view: [HMIView.Message], appID: String) {
        for message in view { emit(.hmiMessage(appID: appID, method: message.method, parameters: message.params)) }
        hmi.messages += view
        // Keep the last `limit` at least; drop in halves so an append stays cheap.
        if hmi.messages.count > 2 * HMILog.limit {
            let dropping = hmi.messages.count - HMILog.limit
            hmi.dropped += dropping
            hmi.messages.removeFirst(dropping)
        }
        wakeHMIWaiters()
    }

    /// The HMI's messages from place `since` on (counting from the first ever), waiting up to
    /// `waitMS` for one when there is none yet; `next` is the place to ask from next time.
    func hmiMessages(since: Int, waitMS: Int) async -> JSONObject {
        if hmi.dropped + hmi.messages.count <= since, waitMS > 0 {
            let timer = Task {
                try? await Task.sleep(for: .milliseconds(waitMS))
                self.wakeHMIWaiters()
            }
            await withCheckedContinuation { hmi.waiters.append($0) }
            timer.cancel()
        }
        let start = max(0, since - hmi.dropped)
        let messages = start < hmi.messages.count ? Array(hmi.messages[start...]) : []
        return ["messages": .array(messages.map { .object(["method": .string($0.method), "params": .object($0.params)]) }),
                "next": .int(Int64(hmi.dropped + hmi.messages.count))]
    }

    private func wakeHMIWaiters() {
        let waiters = hmi.waiters
        hmi.waiters = []
        for waiter in waiters { waiter.resume() }
    }
}
