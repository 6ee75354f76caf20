public import SDLScenario
import SmartDeviceLink

extension CoreHMI {
    /// Performs a driver step as a person at core's HMI would: the HMI API notification it
    /// causes, and the answer to the request on screen that it ends.
    public func perform(_ action: DriverAction) async throws {
        let arguments = action.namedArguments
        // Only the steps about an app wait for core to name it; the others need none.
        func appID() async throws -> Int64 { try await hmiAppID(arguments["appID"]?.stringValue) }
        func integer(_ name: String) throws -> Int64 {
            guard let value = arguments[name]?.intValue else { throw Failure(description: "\(action.name) needs an integer \(name)") }
            return value
        }
        switch action.name {
        case "activateApp":
            _ = try await call("SDL.ActivateApp", ["appID": .int(try await appID())])
        case "exitApp":
            try await notify("BasicCommunication.OnExitApplication", ["appID": .int(try await appID()), "reason": "USER_EXIT"])
        case "driverDistraction":
            // core adds the policy's dismissal and its warning on the way to the apps.
            guard let state = arguments["state"]?.stringValue else { throw Failure(description: "driverDistraction needs a state, on or off") }
            let states = ["ON": "DD_ON", "DD_ON": "DD_ON", "OFF": "DD_OFF", "DD_OFF": "DD_OFF"]
            guard let hmiState = states[state.uppercased()] else {
                throw Failure(description: "driverDistraction's state is on or off (DD_ON, DD_OFF), not \(state)")
            }
            try await notify("UI.OnDriverDistraction", ["state": .string(hmiState)])
        case "selectCommand":
            let voice = arguments["triggerSource"]?.stringValue == "VR"
            let app = try await appID()
            try await notify(voice ? "VR.OnCommand" : "UI.OnCommand", ["cmdID": .int(try integer("cmdID")), "appID": .int(app)])
            // Picking from the open menu closes it.
            if views.menuOpenFor == app { try await closeMenu(app) }
        case "openMenu":
            let app = try await appID()
            views.menuOpenFor = app
            try await notify("UI.OnSystemContext", ["systemContext": "MENU", "appID": .int(app)])
        case "closeMenu":
            try await closeMenu(try await appID())
        case "pressSoftButton":
            let id = try integer("softButtonID")
            try await press(["name": "CUSTOM_BUTTON", "customButtonID": .int(id), "appID": .int(try await appID())],
                            long: arguments["longPress"]?.boolValue == true)
            if let view = views.modal, view.softButtonIDs.contains(id) { try await closeView(.success) }
        case "pressButton":
            guard let name = (arguments["name"] ?? arguments["buttonName"])?.stringValue else {
                throw Failure(description: "pressButton needs the button's name, e.g. OK or SEEKRIGHT")
            }
            try await press(["name": .string(name)], long: arguments["longPress"]?.boolValue == true)
        case "selectChoice":
            _ = try openView(["UI.PerformInteraction"], for: "selectChoice")
            try await closeView(.success, ["choiceID": .int(try integer("choiceID"))])
        case "typeOnKeyboard":
            let view = try openView(["UI.PerformInteraction"], for: "typeOnKeyboard")
            // A key at a time, as the app's keypressMode asks (UI.SetGlobalProperties): the
            // whole entry (RESEND_CURRENT_ENTRY, the default), the key, or the queued keys once.
            let typed = arguments["text"]?.stringValue ?? ""
            let mode = keypressModes[view.appID] ?? "RESEND_CURRENT_ENTRY"
            for key in typed {
                views.keyboardText.append(key)
                switch mode {
                case "SINGLE_KEYPRESS": try await notify("UI.OnKeyboardInput", ["event": "KEYPRESS", "data": .string(String(key))])
                case "QUEUE_KEYPRESSES": break
                default: try await notify("UI.OnKeyboardInput", ["event": "KEYPRESS", "data": .string(views.keyboardText)])
                }
            }
            if mode == "QUEUE_KEYPRESSES" { try await notify("UI.OnKeyboardInput", ["event": "KEYPRESS", "data": .string(typed)]) }
        case "submitKeyboard":
            _ = try openView(["UI.PerformInteraction"], for: "submitKeyboard")
            let text = arguments["text"]?.stringValue ?? views.keyboardText
            try await notify("UI.OnKeyboardInput", ["event": "ENTRY_SUBMITTED", "data": .string(text)])
            try await closeView(.success, ["manualTextEntry": .string(text)])
        case "abortKeyboard":
            _ = try openView(["UI.PerformInteraction"], for: "abortKeyboard")
            try await notify("UI.OnKeyboardInput", ["event": "ENTRY_ABORTED"])
            try await closeView(.aborted)
        case "finishAudioPassThru", "cancelAudioPassThru", "retryAudioPassThru":
            _ = try openView(["UI.PerformAudioPassThru"], for: action.name)
            let code: HMIResult = switch action.name {
            case "finishAudioPassThru": .success
            case "cancelAudioPassThru": .aborted
            default: .retry
            }
            try await closeView(code)
        case "setVehicleData":
            var values = arguments["values"]?.objectValue ?? [:]
            if values.isEmpty, let name = arguments["name"]?.stringValue, let value = arguments["value"] { values = [name: value] }
            vehicleData.merge(values) { _, new in new }
            for name in values.keys { unavailableData[name] = nil }
            try await notify("VehicleInfo.OnVehicleData", values)
        case "setVehicleDataUnavailable":
            guard let name = arguments["name"]?.stringValue else { throw Failure(description: "setVehicleDataUnavailable needs the data's name") }
            let code = arguments["resultCode"]?.stringValue ?? "DATA_NOT_AVAILABLE"
            guard let result = HMIResult(name: code) else { throw Failure(description: "setVehicleDataUnavailable: \(code) is not a result code") }
            unavailableData[name] = (result, arguments["info"]?.stringValue)
        case "hmiResult":
            guard let method = arguments["method"]?.stringValue, let name = arguments["resultCode"]?.stringValue else {
                throw Failure(description: "hmiResult needs the HMI API method and a resultCode")
            }
            guard let code = HMIResult(name: name) else { throw Failure(description: "hmiResult: \(name) is not a result code") }
            setResults[method, default: []].append((code, arguments["info"]?.stringValue))
        case "endCall":
            try await notify("BasicCommunication.OnEventChanged", ["eventName": "PHONE_CALL", "isActive": false])
        case "setWayPoints":
            guard let points = arguments["wayPoints"]?.arrayValue, !points.isEmpty else {
                throw Failure(description: "setWayPoints needs an array \"wayPoints\" of LocationDetails objects")
            }
            wayPoints = points
            try await notify("Navigation.OnWayPointChange", ["wayPoints": .array(points)])
        case "updateSubMenu":
            var parameters: JSONObject = ["appID": .int(try await appID()), "menuID": .int(try integer("menuID"))]
            if let cells = arguments["updateSubCells"]?.boolValue { parameters["updateSubCells"] = .bool(cells) }
            try await notify("UI.OnUpdateSubMenu", parameters)
        case "updateFile":
            guard let name = arguments["fileName"]?.stringValue else { throw Failure(description: "updateFile needs a string fileName") }
            try await notify("UI.OnUpdateFile", ["appID": .int(try await appID()), "fileName": .string(name)])
        case "pressSubtleAlert":
            // As sdl_hmi on a tap of the alert's body: it closes, the app is activated, core is told.
            let view = try openView(["UI.SubtleAlert"], for: "pressSubtleAlert")
            try await closeView(.success)
            _ = try await call("SDL.ActivateApp", ["appID": .int(view.appID)])
            try await notify("UI.OnSubtleAlertPressed", ["appID": .int(view.appID)])
        case "updatePolicy":
            try await requestPolicyUpdate()
        case "showWidget":
            try await showWidget(appID: try await appID(), windowID: try integer("windowID"), visible: arguments["visible"]?.boolValue ?? true)
        case "touch":
            // UI.OnTouchEvent carries no app: core gives it to the navigation app in FULL.
            let point = arguments["x"]?.intValue.map { (Int($0), Int(arguments["y"]?.intValue ?? 190)) } ?? (400, 190)  // the center of core 8.2's 800×380 video screen
            let end = arguments["toX"]?.intValue.map { (Int($0), Int(arguments["toY"]?.intValue ?? arguments["y"]?.intValue ?? 190)) }
            let gesture = arguments["gesture"]?.stringValue ?? ""
            guard let steps = TouchSequence.steps(gesture, at: point, to: end, scale: arguments["scale"]?.doubleValue ?? 2, startTime: 1000)
            else { throw Failure(description: "touch: gesture is \(TouchSequence.gestures.joined(separator: ", ")), not \"\(gesture)\"") }
            for step in steps { try await notify("UI.OnTouchEvent", step.parameters) }
        default:
            guard try await performRemoteControl(action.name, arguments) else {
                throw Failure(description: "\(action.name) has no meaning on core's HMI API")
            }
        }
    }

    /// A button goes down and up, then counts as pressed (what core passes to the app).
    private func press(_ button: JSONObject, long: Bool) async throws {
        for mode in ["BUTTONDOWN", "BUTTONUP"] { try await notify("Buttons.OnButtonEvent", button.merging(["mode": .string(mode)]) { $1 }) }
        try await notify("Buttons.OnButtonPress", button.merging(["mode": long ? "LONG" : "SHORT"]) { $1 })
    }

    private func closeMenu(_ app: Int64) async throws {
        views.menuOpenFor = nil
        try await notify("UI.OnSystemContext", ["systemContext": "MAIN", "appID": .int(app)])
    }
}
