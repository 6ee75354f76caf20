import SmartDeviceLink

/// The keyboard, the app menu, cancelling modal views, phone and navigation.
extension HeadUnitEmulator {
    /// Layouts of PerformInteraction that show a keyboard (a search field for the two
    /// list layouts), when the mode lets the user type.
    static func showsKeyboard(layout: LayoutMode?, mode: InteractionMode) -> Bool {
        guard mode != .vrOnly, let layout else { return false }
        return [.keyboard, .listWithSearch, .iconWithSearch].contains(layout)
    }

    // MARK: - Keyboard (the driver types)

    /// The user types `text` on the shown keyboard: one OnKeyboardInput KEYPRESS per
    /// character with what the app's keypressMode asks for (the whole entry for
    /// RESEND_CURRENT_ENTRY, the default; the single key for SINGLE_KEYPRESS; the keys
    /// queued so far, once, for QUEUE_KEYPRESSES).
    public func typeOnKeyboard(_ text: String, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let typed = apps[key]?.modal?.keyboardText else { throw .noKeyboard }
        let mode = apps[key]?.globalProperties["keyboardProperties"]?["keypressMode"]?.stringValue ?? "RESEND_CURRENT_ENTRY"
        var entry = typed
        for character in text {
            entry.append(character)
            switch mode {
            case "SINGLE_KEYPRESS": notify(key, "OnKeyboardInput", ["event": "KEYPRESS", "data": .string(String(character))])
            case "QUEUE_KEYPRESSES": break
            default: notify(key, "OnKeyboardInput", ["event": "KEYPRESS", "data": .string(entry)])
            }
        }
        if mode == "QUEUE_KEYPRESSES" { notify(key, "OnKeyboardInput", ["event": "KEYPRESS", "data": .string(String(entry.dropFirst(typed.count)))]) }
        apps[key]?.modal?.keyboardText = entry
    }

    /// The user submits the keyboard: OnKeyboardInput ENTRY_SUBMITTED, then the
    /// PerformInteraction answers SUCCESS with `manualTextEntry` (what was typed, unless
    /// `text` replaces it).
    public func submitKeyboard(_ text: String? = nil, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let typed = apps[key]?.modal?.keyboardText else { throw .noKeyboard }
        let entry = text ?? typed
        notify(key, "OnKeyboardInput", ["event": "ENTRY_SUBMITTED", "data": .string(entry)])
        // core adds the trigger source KEYBOARD to a typed answer (perform_interaction_request.cc; seen on 8.2).
        finishModal(key, token: nil, resultCode: "SUCCESS", ["manualTextEntry": .string(entry), "triggerSource": "KEYBOARD"])
    }

    /// The user closes the keyboard without input: ENTRY_ABORTED, PerformInteraction ABORTED.
    public func abortKeyboard(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard apps[key]?.modal?.keyboardText != nil else { throw .noKeyboard }
        notify(key, "OnKeyboardInput", ["event": "ENTRY_ABORTED"])
        finishModal(key, token: nil, resultCode: "ABORTED")
    }

    // MARK: - The app menu

    /// The user opens the app's menu: system context MENU.
    public func openMenu(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard apps[key]?.hmiLevel == .full else { throw .invalidAction("the menu of an app opens only in HMI level FULL; activate it first") }
        showMenu(key, menuID: 0)
    }

    /// The user leaves the menu: system context MAIN.
    public func closeMenu(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard apps[key]?.openMenuID != nil else { throw .invalidAction("the app's menu is not open") }
        hideMenu(key)
    }

    func showMenu(_ key: SessionKey, menuID: Int) {
        apps[key]?.openMenuID = menuID
        apps[key]?.systemContext = .menu
        refreshStatus(key)
    }

    func hideMenu(_ key: SessionKey) {
        guard apps[key]?.openMenuID != nil else { return }
        apps[key]?.openMenuID = nil
        apps[key]?.systemContext = .main
        refreshStatus(key)
    }

    /// ShowAppMenu: REJECTED unless the app is in FULL (core), INVALID_ID for an unknown
    /// submenu; else the menu (or submenu) opens.
    func showAppMenu(_ request: IncomingRequest, menuID: Int?) {
        guard let app = apps[request.key] else { return }
        guard app.hmiLevel == .full else {
            respond(request, "REJECTED", info: "ShowAppMenu needs HMI level FULL, the app is in \(app.hmiLevel)")
            return
        }
        if let menuID, app.submenus[menuID] == nil {
            respond(request, "INVALID_ID")
            return
        }
        if let shown = app.modal {
            respond(request, "REJECTED", info: "a \(shown.request.name) is shown")
            return
        }
        respond(request, "SUCCESS")
        showMenu(request.key, menuID: menuID ?? 0)
    }

    // MARK: - Cancelling

    /// CancelInteraction: the shown Alert, PerformInteraction, ScrollableMessage or
    /// Slider of that function (and cancelID, when given) ends with ABORTED and this
    /// answers SUCCESS; with nothing such shown, IGNORED in sdl_hmi's words (the HMI's
    /// answer, which core passes on).
    func cancelInteraction(_ request: IncomingRequest, _ cancel: CancelInteraction) {
        let kinds: [Int: PendingUI.Kind] = [
            Int(Alert.functionID): .alert, Int(PerformInteraction.functionID): .interaction,
            Int(ScrollableMessage.functionID): .scrollable, Int(Slider.functionID): .slider, Int(SubtleAlert.functionID): .subtleAlert,
        ]
        guard let kind = kinds[cancel.functionID] else {
            respond(request, "INVALID_ID")  // cancel_interaction_request.cc says no more
            return
        }
        guard let modal = apps[request.key]?.modal, modal.kind == kind,
              cancel.cancelID == nil || modal.cancelID == cancel.cancelID else {
            respond(request, "IGNORED", info: HMIAnswers.cancelIgnored)
            return
        }
        if modal.keyboardText != nil { notify(request.key, "OnKeyboardInput", ["event": "ENTRY_ABORTED"]) }
        // sdl_hmi closes a subtle alert as if it had run its time: SUCCESS.
        finishModal(request.key, token: nil, resultCode: kind == .subtleAlert ? "SUCCESS" : "ABORTED")
        respond(request, "SUCCESS")
    }

    // MARK: - Phone and navigation

    /// DialNumber: core keeps only digits, `*`, `#`, `,`, `;` and `+`; nothing left is
    /// INVALID_DATA. (core asks the HMI whatever hmiCapabilities.phoneCall says.) Then the
    /// call starts, as with sdl_hmi when the driver agrees (see PhoneCall.swift).
    func dialNumber(_ request: IncomingRequest, number dialed: String) {
        let allowed = Set("0123456789*#,;+")
        let number = String(dialed.filter(allowed.contains))
        guard number.contains(where: \.isNumber) else {
            respond(request, "INVALID_DATA")
            return
        }
        apps[request.key]?.dialedNumbers.append(number)
        respond(request, "SUCCESS")
        startPhoneCall(from: request.key)
    }

    /// SendLocation, checked in core's order (send_location_request.cc): a text field the
    /// display lacks is UNSUPPORTED_RESOURCE; latitude without longitude (or the reverse), or
    /// neither coordinates nor an address, INVALID_DATA. (core asks the HMI whatever
    /// hmiCapabilities.navigation says.)
    func sendLocation(_ request: IncomingRequest, _ location: SendLocation) {
        let p = request.parameters
        let textFields = ["locationName", "locationDescription", "addressLines", "phoneNumber"].filter { p[$0] != nil }
        guard textFields.allSatisfy(displayTextFields.contains) else {
            respond(request, "UNSUPPORTED_RESOURCE")
            return
        }
        let latitude = location.latitudeDegrees != nil, longitude = location.longitudeDegrees != nil
        guard latitude == longitude, latitude || location.address != nil else {
            respond(request, "INVALID_DATA")
            return
        }
        apps[request.key]?.sentLocations.append(location)
        wayPoints.append(Self.wayPoint(of: request.parameters))
        respond(request, "SUCCESS")
    }
}
