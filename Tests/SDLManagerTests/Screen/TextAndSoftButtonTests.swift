import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Text, graphics and soft buttons against the emulator", .serialized)
struct TextAndSoftButtonTests {
    @Test("only changed fields are sent; a cleared field is sent empty; begin/end batches into one Show")
    func changedFieldsOnly() async throws {
        let rig = try await ScreenRig.start("text-fields")
        let text = rig.screen.textAndGraphics
        try await text.update {
            $0.textField1 = "Artist"
            $0.textField2 = "Song"
            $0.textField1Type = .mediaArtist
        }
        try await text.update { $0.textField2 = "Other song" }
        try await text.update { $0.textField1 = nil }
        let shows = await rig.channel.requests("Show")
        #expect(shows.count == 3)
        #expect(shows[0]["mainField1"] == "Artist" && shows[0]["mainField2"] == "Song")
        #expect(shows[0]["metadataTags"]?["mainField1"] == ["mediaArtist"])
        #expect(Set(shows[1].keys) == ["mainField2"], "only the changed field")
        #expect(shows[2]["mainField1"] == "")
        #expect(await rig.app().show["mainField2"] == "Other song")

        await text.beginUpdates()
        let held = try await text.update { $0.textField3 = "three" }
        try await text.update { $0.textField4 = "four" }
        #expect(held.info?.contains("batched") == true)
        #expect(await rig.channel.requests("Show").count == 3, "nothing sent inside the batch")
        try await text.endUpdates()
        let last = try #require(await rig.channel.requests("Show").last)
        #expect(last["mainField3"] == "three" && last["mainField4"] == "four")
        await rig.stop()
    }

    @Test("a new graphic: text first, then the upload, then a Show with the graphic")
    func graphicUploadedFirst() async throws {
        let rig = try await ScreenRig.start("text-graphic")
        try await rig.screen.textAndGraphics.update {
            $0.textField1 = "Now playing"
            $0.primaryGraphic = testArtwork
        }
        let shows = await rig.channel.requests("Show")
        #expect(shows.count == 2)
        #expect(shows[0]["mainField1"] == "Now playing" && shows[0]["graphic"] == nil)
        #expect(shows[1]["graphic"]?["value"]?.stringValue == testArtwork.name)
        #expect(await rig.app().files.contains(testArtwork.name))
        #expect(await rig.app().show["graphic"]?["value"]?.stringValue == testArtwork.name)
        await rig.stop()
    }

    @Test("capability limits: no graphics, two text lines")
    func limits() async throws {
        let rig = try await ScreenRig.start("text-limits") {
            $0.setDisplay("graphicSupported", false)
            $0.setDisplay("textFields", [
                ["name": "mainField1", "characterSet": "UTF_8", "width": 500, "rows": 1],
                ["name": "mainField2", "characterSet": "UTF_8", "width": 500, "rows": 1],
            ])
        }
        let result = try await rig.screen.textAndGraphics.update {
            $0.textField1 = "one"
            $0.textField2 = "two"
            $0.textField3 = "three"
            $0.mediaTrack = "track"
            $0.primaryGraphic = testArtwork
        }
        #expect(result.skipped.contains { $0.contains("graphics") })
        #expect(result.skipped.contains { $0.contains("mediaTrack") })
        let show = try #require(await rig.channel.requests("Show").last)
        #expect(show["mainField1"] == "one" && show["mainField2"] == "two - three")
        #expect(show["graphic"] == nil && show["mainField3"] == nil && show["mediaTrack"] == nil)
        #expect(await rig.app().files.isEmpty)
        await rig.stop()
    }

    @Test("sdl_hmi's single soft button capability is for every button: three are shown, not one")
    func singleCapabilityEntry() async throws {
        let rig = try await ScreenRig.start("soft-buttons-one-entry") { _ in }
        #expect(await rig.manager.systemCapabilityManager.softButtonCapabilities?.count == 1, "the emulator presents sdl_hmi's one entry")
        let result = try await rig.screen.softButtons.setSoftButtons(["a", "b", "c"].map { SoftButtonObject(name: $0, text: $0.uppercased()) })
        #expect(result.skipped.isEmpty, "\(result.skipped)")
        #expect(await rig.app().show["softButtons"]?.arrayValue?.count == 3)
        await rig.stop()
    }

    @Test("soft buttons: fewer shown than asked, states, transitions and presses")
    func softButtons() async throws {
        let rig = try await ScreenRig.start("soft-buttons") {
            let one: JSONValue = ["shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true,
                                  "imageSupported": false, "textSupported": true]
            $0.capabilities["softButtonCapabilities"] = [one, one]
        }
        let presses = Collected<SoftButtonPress>()
        let playPause = SoftButtonObject(name: "playPause", states: [
            SoftButtonState(name: "play", text: "Play", artwork: testArtwork),
            SoftButtonState(name: "pause", text: "Pause"),
        ]) { press in Task { await presses.add(press) } }
        let result = try await rig.screen.softButtons.setSoftButtons([
            playPause, SoftButtonObject(name: "next", text: "Next"), SoftButtonObject(name: "shuffle", text: "Shuffle"),
        ])
        #expect(result.skipped.contains { $0.contains("shuffle") && $0.contains("at most 2") })
        #expect(result.skipped.contains { $0.contains("playPause") && $0.contains("artwork") })
        let shown = try #require(await rig.app().show["softButtons"]?.arrayValue)
        #expect(shown.count == 2)
        #expect(shown[0]["type"] == "TEXT" && shown[0]["text"] == "Play")
        #expect(await rig.app().files.isEmpty, "no upload when soft buttons show no images")

        let id = Int(try #require(shown[0]["softButtonID"]?.intValue))
        try await rig.emulator.pressSoftButton(id, longPress: true)
        #expect(await presses.wait(for: 1) == [SoftButtonPress(buttonName: "playPause", stateName: "play", mode: .long)])

        try await rig.screen.softButtons.transition("playPause", to: "pause")
        #expect(await rig.app().show["softButtons"]?.arrayValue?.first?["text"] == "Pause")
        await #expect(throws: ManagerError.invalid("the soft button \"playPause\" has no state \"stop\"")) {
            try await rig.screen.softButtons.transition("playPause", to: "stop")
        }
        await rig.stop()
    }

    @Test("a template change sends SetDisplayLayout, then the current text again: a new template starts empty")
    func templateChange() async throws {
        let rig = try await ScreenRig.start("text-template")
        try await rig.screen.textAndGraphics.update { $0.textField1 = "Kept" }
        let mark = await rig.channel.sent.count
        try await rig.screen.textAndGraphics.changeTemplate("DEFAULT")
        #expect(await rig.channel.names(since: mark) == ["SetDisplayLayout", "Show"])
        #expect(await rig.channel.requests("Show").last?["mainField1"] == "Kept")
        await #expect {
            try await rig.screen.textAndGraphics.changeTemplate("NO_SUCH_TEMPLATE")
        } throws: { error in
            guard case ManagerError.refused("SetDisplayLayout", .rejected, _) = error else { return false }
            return true
        }
        await rig.stop()
    }
}
