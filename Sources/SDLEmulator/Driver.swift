public import SmartDeviceLink

/// What a person in the car, or the car itself, does. `appID` nil means the most recently
/// registered app.
extension HeadUnitEmulator {
    /// The user picks the app on the HMI: FULL (AUDIBLE for media apps); the previous FULL
    /// app goes to LIMITED or BACKGROUND.
    public func activateApp(_ appID: String? = nil) async throws(EmulatorError) {
        activate(try resolve(appID))
    }

    /// The user exits the app (core's OnExitApplication USER_EXIT): HMI level NONE; shown
    /// dialogs and a running audio pass-thru end with ABORTED.
    public func exitApp(_ appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        finishModal(key, token: nil, resultCode: "ABORTED")
        finishAudioPassThru(key, token: nil, resultCode: "ABORTED")
        apps[key]?.hmiLevel = .none
        refreshStatus(key)
        releaseModules(of: key)
    }

    /// The user picks a menu command (or says its VR command): OnCommand.
    public func selectCommand(_ cmdID: Int, appID: String? = nil, triggerSource: String = "MENU") async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let app = apps[key], app.commands[cmdID] != nil else { throw .unknownCommand(cmdID) }
        guard mayReceive(key, "OnCommand") else {
            throw .invalidAction("the app is in HMI level \(app.hmiLevel), where the policy does not allow OnCommand; activate it first")
        }
        notify(key, "OnCommand", ["cmdID": .int(Int64(cmdID)), "triggerSource": .string(triggerSource)])
        // Picking a command closes the menu.
        if triggerSource == "MENU" { hideMenu(key) }
    }

    /// The user presses a soft button of the shown Alert, ScrollableMessage or Show:
    /// OnButtonEvent (down, up) and OnButtonPress with CUSTOM_BUTTON; an Alert or
    /// ScrollableMessage then ends with SUCCESS.
    public func pressSoftButton(_ softButtonID: Int, longPress: Bool = false, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let app = apps[key] else { throw .noAppRegistered }
        let onModal = app.modal?.softButtonIDs.contains(softButtonID) ?? false
        let onShow = app.show["softButtons"]?.arrayValue?.contains { $0["softButtonID"]?.intValue == Int64(softButtonID) } ?? false
        guard onModal || onShow else { throw .noAlertOrSoftButton(softButtonID) }
        // The button is on screen; core passes the press on only while it is subscribed.
        if isSubscribed(softButton: softButtonID, key) {
            sendButton("CUSTOM_BUTTON", customID: softButtonID, longPress: longPress, to: key)
        }
        if onModal { finishModal(key, token: nil, resultCode: "SUCCESS") }
    }

    /// The user presses a hardware button the app subscribed to: OnButtonEvent and OnButtonPress.
    public func pressButton(_ name: String, longPress: Bool = false, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard apps[key]?.buttonSubscriptions.contains(name) == true else { throw .notSubscribed(button: name) }
        sendButton(name, customID: nil, longPress: longPress, to: key)
    }

    private func sendButton(_ name: String, customID: Int?, longPress: Bool, to key: SessionKey) {
        var base: JSONObject = ["buttonName": .string(name)]
        if let customID { base["customButtonID"] = .int(Int64(customID)) }
        for mode in ["BUTTONDOWN", "BUTTONUP"] {
            var event = base
            event["buttonEventMode"] = .string(mode)
            notify(key, "OnButtonEvent", event)
        }
        var press = base
        press["buttonPressMode"] = .string(longPress ? "LONG" : "SHORT")
        notify(key, "OnButtonPress", press)
    }

    /// The user picks a choice of the pending PerformInteraction: SUCCESS with choiceID.
    public func selectChoice(_ choiceID: Int, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let modal = apps[key]?.modal, modal.kind == .interaction else { throw .noPendingInteraction }
        guard modal.choiceIDs.contains(choiceID) else { throw .unknownChoice(choiceID) }
        finishModal(key, token: nil, resultCode: "SUCCESS",
                    ["choiceID": .int(Int64(choiceID)), "triggerSource": .string(modal.triggerSource)])
    }

    /// The user presses "done" on the audio pass-thru dialog: PerformAudioPassThru SUCCESS.
    public func finishAudioPassThru(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard finishAudioPassThru(key, token: nil, resultCode: "SUCCESS") else { throw .noAudioPassThru }
    }

    /// The user cancels the audio pass-thru: PerformAudioPassThru ABORTED.
    public func cancelAudioPassThru(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard finishAudioPassThru(key, token: nil, resultCode: "ABORTED") else { throw .noAudioPassThru }
    }

    /// The user asks to record again: the HMI answers RETRY (a success), and the app may
    /// send a new PerformAudioPassThru.
    public func retryAudioPassThru(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard finishAudioPassThru(key, token: nil, resultCode: "RETRY") else { throw .noAudioPassThru }
    }

    /// The car reports a new value: OnVehicleData to subscribed apps.
    public func setVehicleData(_ name: String, _ value: JSONValue) async throws(EmulatorError) {
        guard VehicleDataNames.dataTypes[name] != nil else { throw .unknownVehicleData(name) }
        updateVehicleData([name: value])
    }

    /// The car loses an item: new subscriptions answer VEHICLE_DATA_NOT_AVAILABLE, and
    /// GetVehicleData of only such items what the HMI says: `resultCode`, an HMI API result
    /// code (default DATA_NOT_AVAILABLE), mapped as core maps it (DATA_NOT_AVAILABLE reaches the
    /// app as VEHICLE_DATA_NOT_AVAILABLE), and `info`, which core passes on.
    public func setVehicleDataUnavailable(_ name: String, resultCode: String? = nil, info: String? = nil) async throws(EmulatorError) {
        guard VehicleDataNames.dataTypes[name] != nil else { throw .unknownVehicleData(name) }
        let hmiResult = resultCode ?? "DATA_NOT_AVAILABLE"
        guard let appResult = CoreResults.appResult(forHMIResult: hmiResult) else { throw CoreResults.notAnHMIResult(hmiResult) }
        unavailableVehicleData.insert(name)
        unavailableAnswer = (appResult, info)
    }

    /// The link of the app drops (cable pulled): no UnregisterAppInterface, so the app's
    /// data is kept for resumption by its hash id.
    public func dropTransport(appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        await closeConnectionAsUnplugged(key.connection, reason: "transport dropped by the driver")
    }

    /// Closes a link as a pulled cable would. A USB device gets a port reset first: closing
    /// our end alone is something a USB device never sees.
    func closeConnectionAsUnplugged(_ id: Int, reason: String) async {
        if let usb = connections[id]?.driver.io.transport as? USBTransport {
            await usb.closeResettingDevice()
        }
        closeConnection(id, reason: reason)
    }
}
