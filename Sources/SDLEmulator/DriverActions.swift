public import SmartDeviceLink

/// One thing a person or the car does to the head unit: the one table behind the control
/// channel (and its `help`), the scenario language's `driver` steps, their JSON Schema and
/// their short form (`{"selectCommand": 5}`).
public struct DriverActionSpec: Sendable {
    /// One parameter of an action.
    public struct Parameter: Sendable {
        /// Its key in the action's JSON.
        public var name: String
        /// The JSON type: "integer", "string", "boolean", "object" or "any".
        public var type: String
        /// Whether the action needs it.
        public var required: Bool
        /// What it is, for `help`.
        public var summary: String
    }

    /// The action's name, as the control channel and `driver` steps write it.
    public var name: String
    /// What it does, in a line.
    public var summary: String
    /// Its parameters, `appID` included where it applies to one app.
    public var parameters: [Parameter]
    /// The parameter a scenario's short form fills (`{"selectCommand": 5}` → cmdID 5).
    public var shorthand: String?
    /// Control-channel only (snapshot, help): not a scenario step.
    public var controlOnly: Bool
    let run: @Sendable (isolated HeadUnitEmulator, DriverArguments) async throws(EmulatorError) -> JSONObject?

    /// Whether a scenario may name it bare (`{"driver": "activateApp"}`).
    public var canBeBare: Bool { !parameters.contains(where: \.required) }

    /// `help`'s entry: the name, what it does and its parameters.
    public var json: JSONValue {
        .object(["action": .string(name), "summary": .string(summary), "parameters": .array(parameters.map {
            .object(["name": .string($0.name), "type": .string($0.type), "required": .bool($0.required), "summary": .string($0.summary)])
        })])
    }
}

/// The arguments of one driver action, read with messages that name the action.
public struct DriverArguments: Sendable {
    /// The action's name, for messages.
    public let action: String
    /// The parameters as given.
    public let values: JSONObject

    /// The app the action is for; nil: the one in FULL, or the only one.
    public var appID: String? { values["appID"]?.stringValue }

    func int(_ key: String) throws(EmulatorError) -> Int {
        guard let value = values[key]?.intValue else { throw .invalidAction("\(action) needs an integer \"\(key)\"") }
        return Int(value)
    }

    func string(_ key: String) throws(EmulatorError) -> String {
        guard let value = values[key]?.stringValue else { throw .invalidAction("\(action) needs a string \"\(key)\"") }
        return value
    }

    func bool(_ key: String) -> Bool { values[key]?.boolValue ?? false }
}

extension HeadUnitEmulator {
    private typealias Parameter = DriverActionSpec.Parameter
    private static let appID = Parameter(name: "appID", type: "string", required: false,
                                         summary: "the app; the one in FULL (or the only one) when left out")
    private static func required(_ name: String, _ type: String, _ summary: String) -> Parameter {
        Parameter(name: name, type: type, required: true, summary: summary)
    }
    private static func optional(_ name: String, _ type: String, _ summary: String) -> Parameter {
        Parameter(name: name, type: type, required: false, summary: summary)
    }

    private static func action(
        _ name: String, _ summary: String, _ parameters: [Parameter] = [], shorthand: String? = nil, controlOnly: Bool = false,
        aboutAnApp: Bool = true,
        _ run: @escaping @Sendable (isolated HeadUnitEmulator, DriverArguments) async throws(EmulatorError) -> JSONObject? = { _, _ in nil }
    ) -> DriverActionSpec {
        DriverActionSpec(name: name, summary: summary, parameters: parameters + (controlOnly || !aboutAnApp ? [] : [appID]), shorthand: shorthand,
                         controlOnly: controlOnly, run: run)
    }

    /// A driverDistraction step's state: on/off, or the spec's DD_ON/DD_OFF.
    public static func distraction(_ state: String) throws(EmulatorError) -> Bool {
        switch state.uppercased() {
        case "ON", "DD_ON": return true
        case "OFF", "DD_OFF": return false
        default: throw .invalidAction("driverDistraction's state is on or off (DD_ON, DD_OFF), not \(state)")
        }
    }

    /// Every driver action, in the order `help` lists them.
    public static let driverActions: [DriverActionSpec] = [
        action("activateApp", "the user picks the app: HMI level FULL") { unit, a throws(EmulatorError) in
            try await unit.activateApp(a.appID); return nil
        },
        action("exitApp", "the user leaves the app: HMI level NONE") { unit, a throws(EmulatorError) in
            try await unit.exitApp(a.appID); return nil
        },
        action("driverDistraction", "the car starts (on) or stops (off) needing the driver's attention: OnDriverDistraction to every app",
               [required("state", "string", "on or off (DD_ON or DD_OFF)")], shorthand: "state", aboutAnApp: false) { unit, a throws(EmulatorError) in
            unit.setDriverDistraction(try HeadUnitEmulator.distraction(try a.string("state"))); return nil
        },
        action("selectCommand", "the user picks a menu command (OnCommand)",
               [required("cmdID", "integer", "the command's id"), optional("triggerSource", "string", "MENU (default) or VR")],
               shorthand: "cmdID") { unit, a throws(EmulatorError) in
            try await unit.selectCommand(try a.int("cmdID"), appID: a.appID, triggerSource: a.values["triggerSource"]?.stringValue ?? "MENU")
            return nil
        },
        action("pressSoftButton", "the user presses a soft button on the screen, an alert or a scrollable message",
               [required("softButtonID", "integer", "the button's id"), optional("longPress", "boolean", "a long press")],
               shorthand: "softButtonID") { unit, a throws(EmulatorError) in
            try await unit.pressSoftButton(try a.int("softButtonID"), longPress: a.bool("longPress"), appID: a.appID)
            return nil
        },
        action("pressButton", "the user presses a hardware button the app subscribed to",
               [required("name", "string", "the ButtonName, e.g. OK or SEEKRIGHT"), optional("longPress", "boolean", "a long press")],
               shorthand: "name") { unit, a throws(EmulatorError) in
            try await unit.pressButton(try a.string(a.values["buttonName"] != nil ? "buttonName" : "name"), longPress: a.bool("longPress"),
                                       appID: a.appID)
            return nil
        },
        action("selectChoice", "the user picks a choice of the open PerformInteraction",
               [required("choiceID", "integer", "the choice's id")], shorthand: "choiceID") { unit, a throws(EmulatorError) in
            try await unit.selectChoice(try a.int("choiceID"), appID: a.appID); return nil
        },
        action("finishAudioPassThru", "the user ends the recording: SUCCESS") { unit, a throws(EmulatorError) in
            try await unit.finishAudioPassThru(appID: a.appID); return nil
        },
        action("cancelAudioPassThru", "the user cancels the recording: ABORTED") { unit, a throws(EmulatorError) in
            try await unit.cancelAudioPassThru(appID: a.appID); return nil
        },
        action("retryAudioPassThru", "the user asks to record again: RETRY") { unit, a throws(EmulatorError) in
            try await unit.retryAudioPassThru(appID: a.appID); return nil
        },
        action("setVehicleData", "the car's data changes; subscribed apps get OnVehicleData",
               [required("values", "object", "vehicle data names and their new values (or \"name\" and \"value\" for one)")]) {
            unit, a throws(EmulatorError) in
            let single = a.values["name"]?.stringValue.flatMap { name in a.values["value"].map { [name: $0] } }
            guard let values = a.values["values"]?.objectValue ?? single else {
                throw .invalidAction("setVehicleData needs \"values\", or \"name\" and \"value\"")
            }
            for name in values.keys.sorted() where VehicleDataNames.dataTypes[name] == nil { throw .unknownVehicleData(name) }
            unit.updateVehicleData(values)
            return nil
        },
        action("setVehicleDataUnavailable", "a vehicle data item stops being available (VEHICLE_DATA_NOT_AVAILABLE, or the HMI's answer)",
               [required("name", "string", "the vehicle data name"),
                optional("resultCode", "string", "what the HMI answers GetVehicleData, e.g. DATA_NOT_AVAILABLE"),
                optional("info", "string", "the HMI's info text, passed on to the app")], shorthand: "name") { unit, a throws(EmulatorError) in
            try await unit.setVehicleDataUnavailable(try a.string("name"), resultCode: a.values["resultCode"]?.stringValue,
                                                     info: a.values["info"]?.stringValue)
            return nil
        },
        action("hmiResult", "the HMI answers the next request of a method with this result (core passes it on to the app)",
               [required("method", "string", "the HMI API method, e.g. UI.Show or TTS.Speak"),
                required("resultCode", "string", "e.g. REJECTED, GENERIC_ERROR, WARNINGS"),
                optional("info", "string", "the HMI's info text")], aboutAnApp: false) { unit, a throws(EmulatorError) in
            try unit.setHMIResult(try a.string("method"), resultCode: try a.string("resultCode"), info: a.values["info"]?.stringValue)
            return nil
        },
        action("dropTransport", "the link to the app drops (a cable pulled)") { unit, a throws(EmulatorError) in
            try await unit.dropTransport(appID: a.appID); return nil
        },
        action("offerSecondary", "the head unit's TCP endpoint comes up: TransportEventUpdate with it (listens on loopback if needed)",
               aboutAnApp: false) {
            unit, _ throws(EmulatorError) in
            do {
                return ["endpoint": .string(try await unit.offerSecondaryTransport())]
            } catch let error as EmulatorError {
                throw error
            } catch {
                throw .listenFailed("\(error)")
            }
        },
        action("withdrawSecondary", "the head unit's TCP endpoint goes away: TransportEventUpdate with an empty address",
               aboutAnApp: false) { unit, _ throws(EmulatorError) in
            unit.withdrawSecondaryTransport(); return nil
        },
        action("cutSecondary", "the secondary link drops (Wi-Fi lost, or the USB cable); the RPC session stays") { unit, a throws(EmulatorError) in
            let cut = await unit.cutSecondaryTransport(appID: a.appID)
            guard cut > 0 else { throw .invalidAction("cutSecondary: no registered secondary transport" + (a.appID.map { " for \($0)" } ?? "")) }
            return ["cut": .int(Int64(cut))]
        },
        action("endCall", "the driver hangs up the phone call a DialNumber started: apps are audible again", aboutAnApp: false) {
            unit, _ throws(EmulatorError) in
            guard unit.endPhoneCall() else { throw .invalidAction("endCall: no phone call is on (a DialNumber starts one)") }
            return nil
        },
        action("setInteriorVehicleData", "the driver changes a remote-control module (turns the temperature knob): subscribed apps get OnInteriorVehicleData",
               [required("moduleData", "object", "a ModuleData: moduleType, its data (climateControlData, ...), optionally moduleId")],
               aboutAnApp: false) { unit, a throws(EmulatorError) in
            guard let data = a.values["moduleData"]?.objectValue else { throw .invalidAction("setInteriorVehicleData needs an object \"moduleData\"") }
            try unit.setInteriorVehicleData(data); return nil
        },
        action("answerConsent", "the driver answers the question whether an app may control a module",
               [required("allowed", "boolean", "true: the app may; false: it may not")], shorthand: "allowed", aboutAnApp: false) {
            unit, a throws(EmulatorError) in
            guard let allowed = a.values["allowed"]?.boolValue else { throw .invalidAction("answerConsent needs a boolean \"allowed\"") }
            try await unit.answerConsent(allowed); return nil
        },
        action("rcSettings", "the driver changes the remote-control settings (RC.OnRemoteControlSettings): every RC app gets OnRCStatus",
               [optional("allowed", "boolean", "remote control on or off"), optional("accessMode", "string", "AUTO_ALLOW, AUTO_DENY or ASK_DRIVER")],
               aboutAnApp: false) { unit, a throws(EmulatorError) in
            guard a.values["allowed"] != nil || a.values["accessMode"] != nil else { throw .invalidAction("rcSettings needs \"allowed\" or \"accessMode\"") }
            try unit.setRemoteControlSettings(allowed: a.values["allowed"]?.boolValue, accessMode: a.values["accessMode"]?.stringValue)
            return nil
        },
        action("setWayPoints", "the driver sets a new route: apps subscribed to waypoints get OnWayPointChange",
               [required("wayPoints", "array", "LocationDetails objects, e.g. [{\"locationName\": \"Home\", \"coordinate\": {...}}]")],
               shorthand: "wayPoints", aboutAnApp: false) { unit, a throws(EmulatorError) in
            guard let points = a.values["wayPoints"]?.arrayValue?.compactMap(\.objectValue) else {
                throw .invalidAction("setWayPoints needs an array \"wayPoints\" of LocationDetails objects")
            }
            unit.setWayPoints(points); return nil
        },
        action("pressSubtleAlert", "the user taps the subtle alert (not a button): it closes, the app comes to FULL and gets OnSubtleAlertPressed") { unit, a throws(EmulatorError) in
            try await unit.pressSubtleAlert(appID: a.appID); return nil
        },
        action("updateSubMenu", "the HMI asks the app to fill a submenu it is about to show (OnUpdateSubMenu)",
               [required("menuID", "integer", "the submenu's id"), optional("updateSubCells", "boolean", "whether its submenus too")],
               shorthand: "menuID") { unit, a throws(EmulatorError) in
            try unit.requestSubMenuUpdate(try a.int("menuID"), updateSubCells: a.values["updateSubCells"]?.boolValue, appID: a.appID)
            return nil
        },
        action("updateFile", "the HMI asks the app for a file again, e.g. an image it lost (OnUpdateFile)",
               [required("fileName", "string", "the file's name")], shorthand: "fileName") { unit, a throws(EmulatorError) in
            try unit.requestFileUpdate(try a.string("fileName"), appID: a.appID); return nil
        },
        action("showWidget", "the user puts a widget of the app on screen (sdl_hmi's widget bar): the window goes BACKGROUND, then FULL; with visible false off screen again",
               [required("windowID", "integer", "the widget's window"), optional("visible", "boolean", "false takes it off screen (true when left out)")],
               shorthand: "windowID") { unit, a throws(EmulatorError) in
            try await unit.showWidget(a.appID, windowID: try a.int("windowID"), visible: a.values["visible"]?.boolValue ?? true); return nil
        },
        action("updatePolicy", "the driver asks for a policy table update (sdl_hmi's Update SDL): the app core picks gets the snapshot to carry to the policy server (OnSystemRequest PROPRIETARY)",
               aboutAnApp: false) { unit, _ throws(EmulatorError) in
            try unit.startPolicyUpdate(); return nil
        },
        action("touch", "the user touches the video screen of a navigation app: OnTouchEvent sequences of a gesture",
               [required("gesture", "string", "tap, doubleTap, pan or pinch"),
                optional("x", "integer", "where (the pinch's center, the pan's start); the screen's center when left out"),
                optional("y", "integer", "where, vertically"),
                optional("toX", "integer", "pan: where the finger ends (200 px right when left out)"), optional("toY", "integer", "pan: where, vertically"),
                optional("scale", "number", "pinch: the fingers' end distance over their start distance (default 2: zoom in)")],
               shorthand: "gesture") { unit, a throws(EmulatorError) in
            let x = a.values["x"]?.intValue, y = a.values["y"]?.intValue
            let toX = a.values["toX"]?.intValue, toY = a.values["toY"]?.intValue
            try await unit.touch(try a.string("gesture"), at: x.map { (Int($0), Int(y ?? 190)) },
                                 to: toX.map { (Int($0), Int(toY ?? y ?? 190)) }, scale: a.values["scale"]?.doubleValue ?? 2, appID: a.appID)
            return nil
        },
        action("streamingStop", "the head unit ends the app's video (or audio) stream with EndService",
               [optional("service", "string", "video (default) or audio")], shorthand: "service") { unit, a throws(EmulatorError) in
            try await unit.stopStreaming(a.values["service"]?.stringValue ?? "video", appID: a.appID); return nil
        },
        action("typeOnKeyboard", "the user types on the open keyboard", [required("text", "string", "what is typed")],
               shorthand: "text") { unit, a throws(EmulatorError) in
            try await unit.typeOnKeyboard(try a.string("text"), appID: a.appID); return nil
        },
        action("submitKeyboard", "the user submits the keyboard", [optional("text", "string", "the text, else what was typed")],
               shorthand: "text") { unit, a throws(EmulatorError) in
            try await unit.submitKeyboard(a.values["text"]?.stringValue, appID: a.appID); return nil
        },
        action("abortKeyboard", "the user closes the keyboard without submitting") { unit, a throws(EmulatorError) in
            try await unit.abortKeyboard(appID: a.appID); return nil
        },
        action("openMenu", "the user opens the app's menu (system context MENU)") { unit, a throws(EmulatorError) in
            try await unit.openMenu(appID: a.appID); return nil
        },
        action("closeMenu", "the user closes the menu") { unit, a throws(EmulatorError) in
            try await unit.closeMenu(appID: a.appID); return nil
        },
        action("hmiMessages", "what the HMI was sent (as sdl_core would send it), from place \"since\" on",
               [optional("since", "integer", "the place to read from (0: all; the last answer's \"next\")"),
                optional("waitMs", "integer", "wait this long for a message when there is none yet")], controlOnly: true) {
            unit, a throws(EmulatorError) in
            await unit.hmiMessages(since: Int(a.values["since"]?.intValue ?? 0), waitMS: Int(a.values["waitMs"]?.intValue ?? 0))
        },
        action("snapshot", "the state of every app and of the vehicle", controlOnly: true) { unit, _ throws(EmulatorError) in
            ["snapshot": unit.snapshot().json]
        },
        action("help", "this list", controlOnly: true) { _, _ throws(EmulatorError) in
            ["actions": .array(HeadUnitEmulator.driverActions.map(\.json))]
        },
    ]

    /// The action of that name, if any.
    public static func driverAction(named name: String) -> DriverActionSpec? {
        driverActions.first { $0.name == name }
    }
}
