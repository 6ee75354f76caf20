import SDLEmulator
@testable import SmartDeviceLink
import Testing

/// Records keyboard callbacks and offers completions for what was typed.
actor KeyboardLog: KeyboardDelegate {
    private(set) var events: [String] = []

    func keyboard(didUpdate text: String) async -> [String]? {
        events.append("typed \(text)")
        return text.hasPrefix("Ber") ? ["Berlin", "Bern"] : nil
    }

    func keyboard(didSubmit text: String, event: KeyboardEvent) async { events.append("submitted \(text)") }
    func keyboardDidAbort(event: KeyboardEvent) async { events.append("aborted \(event)") }

    /// Waits (a few seconds at most) until `count` callbacks arrived.
    func wait(for count: Int) async -> [String] {
        for _ in 0..<500 where events.count < count {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return events
    }
}

@Suite("Keyboard, menu opening, cancelling, phone and navigation against the emulator", .serialized)
struct InteractionTests {
    @Test("keyboard: typing reaches the delegate, autocompletion goes to the head unit, the submitted text comes back")
    func keyboardSubmit() async throws {
        let rig = try await ScreenRig.start("keyboard-1")
        let log = KeyboardLog()
        var properties = ChoiceSetManager.defaultKeyboardProperties
        properties.keyboardLayout = .azerty
        let entry = Task {
            try await rig.screen.choiceSets.presentKeyboard(initialText: "City?", properties: properties, delegate: log)
        }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        #expect(await rig.app().globalProperties["keyboardProperties"]?["keyboardLayout"] == "AZERTY")
        try await rig.emulator.typeOnKeyboard("Ber")
        #expect(await log.wait(for: 3) == ["typed B", "typed Be", "typed Ber"])
        #expect(await rig.waitUntil { $0.globalProperties["keyboardProperties"]?["autoCompleteList"] == ["Berlin", "Bern"] })
        try await rig.emulator.submitKeyboard("Berlin")
        #expect(try await entry.value == .entered("Berlin"))
        #expect(await log.wait(for: 4).last == "submitted Berlin")
        await rig.stop()
    }

    @Test("keyboard: the user aborts (ABORTED, delegate told); the app dismisses by cancel id; a stale cancel id is IGNORED")
    func keyboardAbortAndDismiss() async throws {
        let rig = try await ScreenRig.start("keyboard-2")
        let log = KeyboardLog()
        let first = Task { try await rig.screen.choiceSets.presentKeyboard(initialText: "Name?", delegate: log) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        try await rig.emulator.abortKeyboard()
        #expect(try await first.value == .aborted)
        #expect(await log.wait(for: 1) == ["aborted ENTRY_ABORTED"])

        let second = Task { try await rig.screen.choiceSets.presentKeyboard(initialText: "Again?", cancelID: 77, delegate: log) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        try await rig.screen.choiceSets.dismiss(cancelID: 77)
        #expect(try await second.value == .aborted)
        await #expect {
            try await rig.screen.choiceSets.dismiss(cancelID: 77)
        } throws: { error in
            guard case ManagerError.refused("CancelInteraction", .ignored, _) = error else { return false }
            return true
        }
        await rig.stop()
    }

    @Test("a searchable choice set: typed text reaches the delegate and a submitted search comes back as text")
    func searchableChoiceSet() async throws {
        let rig = try await ScreenRig.start("search-1")
        let log = KeyboardLog()
        let set = ChoiceSet(title: "Station?", cells: [ChoiceCell(text: "Radio One"), ChoiceCell(text: "Radio Two")])
        let answer = Task { try await rig.screen.choiceSets.present(set, keyboard: log) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        try await rig.emulator.typeOnKeyboard("Tw")
        try await rig.emulator.submitKeyboard()
        #expect(try await answer.value == .entered("Tw"))
        #expect(await log.wait(for: 3) == ["typed T", "typed Tw", "submitted Tw"])
        #expect(await rig.channel.requests("PerformInteraction").last?["interactionLayout"] == "LIST_WITH_SEARCH")
        await rig.stop()
    }

    @Test("the app dismisses its alert; the alert ends ABORTED")
    func dismissAlert() async throws {
        let rig = try await ScreenRig.start("dismiss-alert")
        let alert = Task { try await rig.screen.alerts.present(AlertView(text: "Long", duration: .seconds(10))) }
        #expect(await rig.waitUntil { $0.systemContext == "ALERT" })
        try await rig.screen.alerts.dismissCurrent()
        #expect(try await alert.value.resultCode == .aborted)
        await rig.stop()
    }

    @Test("the menu opens (and a submenu by its title); an update waits while the user is in the menu")
    func openMenuAndDeferral() async throws {
        let rig = try await ScreenRig.start("menu-open")
        let menu = rig.screen.menu
        try await menu.setMenu([MenuCell(title: "Home"), MenuCell(title: "Tools", subCells: [MenuCell(title: "Hammer")])])
        try await menu.open(submenu: ["Tools"])
        let toolsID = try #require(await menu.cellIDs[["Tools"]])
        #expect(await rig.app().openMenuID == toolsID)
        await #expect(throws: ManagerError.invalid("the menu has no submenu \"Nowhere\"")) {
            try await menu.open(submenu: ["Nowhere"])
        }

        // The manager learns of the open menu from OnHMIStatus; wait until it has.
        for _ in 0..<500 where !(await menu.isMenuOpen) { try await Task.sleep(for: .milliseconds(10)) }
        let mark = await rig.channel.sent.count
        let update = Task { try await menu.setMenu([MenuCell(title: "Home"), MenuCell(title: "Away")]) }
        let superseding = Task {
            for _ in 0..<500 where await menu.waitingUpdates < 1 { try await Task.sleep(for: .milliseconds(10)) }
            return try await menu.setMenu([MenuCell(title: "Home"), MenuCell(title: "Elsewhere")])
        }
        for _ in 0..<500 where await menu.waitingUpdates < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await menu.waitingUpdates == 2)
        #expect(await rig.channel.names(since: mark).isEmpty, "nothing is sent while the menu is open")
        try await rig.emulator.closeMenu()
        #expect(try await update.value.superseded, "a newer menu replaced it while both waited")
        let applied = try await superseding.value
        #expect(!applied.superseded && applied.added == 1 && applied.deleted == 1)
        #expect(await rig.channel.names(since: mark) == ["DeleteSubMenu", "AddCommand"])
        await rig.stop()
    }

    @Test("DialNumber and SendLocation check the capability first and reach the head unit")
    func phoneAndNavigation() async throws {
        let rig = try await ScreenRig.start("phone-1")
        try await rig.manager.dialNumber("+49 (30) 1234-567")
        #expect(await rig.app().dialedNumbers == ["+49301234567"])
        await #expect(throws: ManagerError.invalid("\"call me\" has no digits to dial")) {
            try await rig.manager.dialNumber("call me")
        }
        // A location by coordinates alone.
        try await rig.manager.sendLocation(SendLocation(longitudeDegrees: 13.4, latitudeDegrees: 52.5))
        #expect(await rig.app().sentLocations.first?.latitudeDegrees == 52.5)
        await #expect(throws: ManagerError.invalid("a location needs latitude and longitude, or an address")) {
            try await rig.manager.sendLocation(SendLocation(locationName: "Nowhere"))
        }
        await rig.stop()

        let carWithoutPhone = try await ScreenRig.start("phone-2") {
            $0.phoneCapability = nil
            $0.navigationCapability = nil
            var flags = $0.capabilities["hmiCapabilities"]?.objectValue ?? [:]
            (flags["phoneCall"], flags["navigation"]) = (false, false)
            $0.capabilities["hmiCapabilities"] = .object(flags)
        }
        await #expect {
            try await carWithoutPhone.manager.dialNumber("123")
        } throws: { error in
            guard case ManagerError.unsupported = error else { return false }
            return true
        }
        await #expect {
            try await carWithoutPhone.manager.sendLocation(SendLocation(longitudeDegrees: 1, latitudeDegrees: 2))
        } throws: { error in
            guard case ManagerError.unsupported = error else { return false }
            return true
        }
        #expect(await carWithoutPhone.app().dialedNumbers.isEmpty)
        await carWithoutPhone.stop()
    }
}
