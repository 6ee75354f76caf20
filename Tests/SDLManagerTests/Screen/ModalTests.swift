import SDLEmulator
@testable import SmartDeviceLink
import Testing

@Suite("Alerts, choice sets and buttons against the emulator", .serialized)
struct ModalTests {
    @Test("two alerts at once are queued: both succeed, the head unit never REJECTs")
    func queuedAlerts() async throws {
        let rig = try await ScreenRig.start("alerts-queue")
        async let first = rig.screen.alerts.present(AlertView(text: "First", duration: .seconds(3)))
        async let second = rig.screen.alerts.present(AlertView(text: "Second", speech: ["second alert"], duration: .seconds(3)))
        let results = try await [first, second]
        #expect(results.map(\.resultCode) == [.success, .success])
        #expect(await rig.channel.requests("Alert").count == 2)
        await rig.stop()
    }

    @Test("an alert's soft button: the press reaches its handler and closes the alert; more than four are left out")
    func alertSoftButtons() async throws {
        let rig = try await ScreenRig.start("alerts-buttons") {
            let one: JSONValue = ["shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true,
                                  "imageSupported": true, "textSupported": true]
            $0.capabilities["softButtonCapabilities"] = .array(Array(repeating: one, count: 8))
        }
        let presses = Collected<String>()
        let buttons = (1...5).map { n in SoftButtonObject(name: "b\(n)", text: "B\(n)") { press in Task { await presses.add(press.buttonName) } } }
        let alert = Task { try await rig.screen.alerts.present(AlertView(text: "Choose", softButtons: buttons, icon: testArtwork)) }
        #expect(await rig.waitUntil { $0.systemContext == "ALERT" })
        let sent = try #require(await rig.channel.requests("Alert").first)
        let ids = try #require(sent["softButtons"]?.arrayValue?.compactMap { $0["softButtonID"]?.intValue })
        #expect(ids.count == 4, "Alert takes at most four soft buttons")
        #expect(sent["alertIcon"]?["value"]?.stringValue == testArtwork.name)
        try await rig.emulator.pressSoftButton(Int(ids[1]))
        let result = try await alert.value
        #expect(result.resultCode == .success)
        #expect(result.skipped.contains { $0.contains("b5") })
        #expect(await presses.wait(for: 1) == ["b2"])
        await rig.stop()
    }

    @Test("an alert without text or speech is refused before sending; a refusal by the head unit is thrown")
    func alertErrors() async throws {
        let rig = try await ScreenRig.start("alerts-errors")
        await #expect(throws: ManagerError.invalid("an alert needs text or speech")) {
            try await rig.screen.alerts.present(AlertView(playTone: true))
        }
        #expect(await rig.channel.requests("Alert").isEmpty)
        try await rig.emulator.exitApp("alerts-errors")
        await #expect {
            try await rig.screen.alerts.present(AlertView(text: "in NONE"))
        } throws: { error in
            guard case ManagerError.refused(function: "Alert", resultCode: .disallowed, _) = error else { return false }
            return true
        }
        await rig.stop()
    }

    @Test("choice sets: preloaded with artwork, the driver's choice comes back as the cell; timeout; voice needs VR; delete")
    func choiceSets() async throws {
        let rig = try await ScreenRig.start("choices")
        let red = ChoiceCell(text: "Red", voiceCommands: ["red"], artwork: testArtwork)
        let green = ChoiceCell(text: "Green", voiceCommands: ["green"])
        let blue = ChoiceCell(text: "Blue")
        #expect(await rig.screen.choiceSets.preload([red, green, blue]).isEmpty)
        #expect(await rig.app().choiceSets.count == 3)
        #expect(await rig.app().files.contains(testArtwork.name))
        #expect(await rig.screen.choiceSets.preload([red]).isEmpty)
        #expect(await rig.channel.requests("CreateInteractionChoiceSet").count == 3, "preloaded cells are not sent again")

        let set = ChoiceSet(title: "Colour?", cells: [red, green, blue])
        let answer = Task { try await rig.screen.choiceSets.present(set) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        let greenID = try #require(await rig.app().choiceSets.values.first { $0.choiceSet.first?.menuName == "Green" }?.choiceSet.first?.choiceID)
        try await rig.emulator.selectChoice(Int(greenID))
        #expect(try await answer.value == .selected(green, .menu))

        #expect(try await rig.screen.choiceSets.present(ChoiceSet(title: "Again?", cells: [red], timeout: .seconds(5))) == .timedOut)

        await #expect(throws: ManagerError.invalid("\"Blue\" has no voice commands, which presenting by voice needs")) {
            try await rig.screen.choiceSets.present(set, style: .both)
        }
        try await rig.screen.choiceSets.delete([red, blue])
        #expect(await rig.app().choiceSets.count == 1)
        #expect(await rig.screen.choiceSets.preloadedCells == [green])
        await rig.stop()
    }

    @Test("a choice set by voice: the answer says VR; tiles with a search field ask for ICON_WITH_SEARCH")
    func choiceByVoice() async throws {
        let rig = try await ScreenRig.start("choices-voice")
        let yes = ChoiceCell(text: "Yes", voiceCommands: ["yes", "sure"])
        let no = ChoiceCell(text: "No", voiceCommands: ["no"])
        let answer = Task { try await rig.screen.choiceSets.present(ChoiceSet(title: "Sure?", cells: [yes, no]), style: .voice) }
        #expect(await rig.waitUntil { $0.systemContext == "VRSESSION" })
        #expect(await rig.channel.requests("PerformInteraction").last?["interactionMode"] == "VR_ONLY")
        let id = try #require(await rig.app().choiceSets.values.first { $0.choiceSet.first?.menuName == "Yes" }?.choiceSet.first?.choiceID)
        try await rig.emulator.selectChoice(Int(id))
        #expect(try await answer.value == .selected(yes, .vr))

        let tiles = Task { try await rig.screen.choiceSets.present(ChoiceSet(title: "Pick", cells: [yes, no], layout: .tiles), keyboard: KeyboardLog()) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        #expect(await rig.channel.requests("PerformInteraction").last?["interactionLayout"] == "ICON_WITH_SEARCH")
        try await rig.screen.choiceSets.dismissCurrent()
        #expect(try await tiles.value == .aborted)
        await rig.stop()
    }

    @Test("a choice set beyond the spec's 100 choices is refused as invalid, before the PerformInteraction goes out")
    func tooManyChoices() async throws {
        let rig = try await ScreenRig.start("choices-many")
        let cells = (0...100).map { ChoiceCell(text: "Choice \($0)") }
        await #expect {
            _ = try await rig.screen.choiceSets.present(ChoiceSet(title: "Many", cells: cells))
        } throws: { error in
            guard case ManagerError.invalid(let why) = error else { return false }
            return why.contains("interactionChoiceSetIDList")
        }
        let context = await rig.app().systemContext
        #expect(context == "MAIN", "nothing was shown")
        await rig.stop()
    }

    @Test("a choice set and an alert from the app at once: the alert waits for the choice")
    func choiceThenAlert() async throws {
        let rig = try await ScreenRig.start("choice-alert")
        let cell = ChoiceCell(text: "Only")
        let answer = Task { try await rig.screen.choiceSets.present(ChoiceSet(title: "Pick", cells: [cell], timeout: .seconds(10))) }
        #expect(await rig.waitUntil { $0.systemContext == "HMI_OBSCURED" })
        let alert = Task { try await rig.screen.alerts.present(AlertView(text: "Later", duration: .seconds(3))) }
        for _ in 0..<500 where await rig.screen.waitingModals < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await rig.screen.waitingModals == 1, "the alert is queued behind the choice set")
        #expect(await rig.channel.requests("Alert").isEmpty, "the alert waits while the choice set is shown")
        let id = try #require(await rig.app().choiceSets.values.first?.choiceSet.first?.choiceID)
        try await rig.emulator.selectChoice(Int(id))
        #expect(try await answer.value == .selected(cell, .menu))
        #expect(try await alert.value.resultCode == .success)
        await rig.stop()
    }

    @Test("buttons: one SubscribeButton for several handlers, presses and events reach all, the last unsubscribe unsubscribes")
    func hardwareButtons() async throws {
        let rig = try await ScreenRig.start("buttons", media: true)
        let buttons = ButtonManager(channel: rig.channel)
        let seen = Collected<String>()
        let a = try await buttons.subscribe(.playPause) { action in Task { await seen.add("a \(action)") } }
        let b = try await buttons.subscribe(.playPause) { action in Task { await seen.add("b \(action)") } }
        #expect(await rig.channel.requests("SubscribeButton").count == 1)
        try await rig.emulator.pressButton("PLAY_PAUSE")
        let actions = await seen.wait(for: 6)
        #expect(actions.filter { $0.hasPrefix("a") }.count == 3 && actions.filter { $0.hasPrefix("b") }.count == 3)
        #expect(actions.contains("a press(SHORT)") && actions.contains("b event(BUTTONDOWN)"))

        try await buttons.unsubscribe(a)
        #expect(await rig.channel.requests("UnsubscribeButton").isEmpty)
        try await buttons.unsubscribe(b)
        #expect(await rig.app().buttonSubscriptions.isEmpty)

        await #expect {
            _ = try await buttons.subscribe(.navCenterLocation) { _ in }
        } throws: { error in
            // core: navigation buttons are for navigation apps only.
            guard case ManagerError.refused(_, .rejected, _) = error else { return false }
            return true
        }
        try await buttons.setMediaClock(.countUp(from: .seconds(90)), audioIndicator: .pause)
        let timer = await rig.app().show["mediaClockTimer"]
        #expect(timer?["startTime"]?["minutes"] == 1 && timer?["startTime"]?["seconds"] == 30)
        #expect(timer?["updateMode"] == "COUNTUP" && timer?["audioStreamingIndicator"] == "PAUSE")
        try await buttons.setMediaClock(.countDown(from: .seconds(3723)))
        let down = await rig.app().show["mediaClockTimer"]
        #expect(down?["updateMode"] == "COUNTDOWN" && down?["startTime"] == ["hours": 1, "minutes": 2, "seconds": 3])
        #expect(down?["endTime"] == ["hours": 0, "minutes": 0, "seconds": 0])
        for (clock, mode) in [(MediaClock.pause, "PAUSE"), (.resume, "RESUME"), (.clear, "CLEAR")] {
            try await buttons.setMediaClock(clock)
            #expect(await rig.app().show["mediaClockTimer"]?["updateMode"] == .string(mode))
        }
        await rig.stop()
    }

    @Test("media buttons of a non-media app are REJECTED by the head unit, surfaced as such")
    func mediaButtonForNonMediaApp() async throws {
        let rig = try await ScreenRig.start("buttons-non-media")
        await #expect {
            _ = try await ButtonManager(channel: rig.channel).subscribe(.seekleft) { _ in }
        } throws: { error in
            guard case ManagerError.refused("SubscribeButton", .rejected, _) = error else { return false }
            return true
        }
        await rig.stop()
    }
}
