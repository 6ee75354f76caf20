@testable import SDLEmulator
import Foundation
import SmartDeviceLink
import Testing

@Suite("Alerts and dialogs")
struct AlertTests {
    @Test("Alert: systemContext ALERT while shown, SUCCESS after duration, back to MAIN (core AlertRequest, timeScale 0.01)")
    func alertLifecycle() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        async let answer = app.request("Alert", ["alertText1": "Hello", "duration": 3000])
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "ALERT")
        #expect(try await answer.resultCode == "SUCCESS")
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "MAIN")
        await headUnit.stop()
    }

    @Test("A second Alert while one is shown is REJECTED (core/HMI)")
    func secondAlertRejected() async throws {
        // Real time and a soft button: the first alert stays up until the driver answers it,
        // however loaded the machine is.
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.timeScale = 1 })
        let app = try await activeApp(headUnit)
        async let first = app.request("Alert", ["alertText1": "One", "duration": 10000, "softButtons": [
            ["type": "TEXT", "text": "OK", "softButtonID": 1, "systemAction": "DEFAULT_ACTION"],
        ]])
        _ = try await app.next("OnHMIStatus")
        #expect(try await app.request("Alert", ["alertText1": "Two"]).resultCode == "REJECTED")
        try await headUnit.pressSoftButton(1)
        #expect(try await first.resultCode == "SUCCESS")
        await headUnit.stop()
    }

    @Test("A soft-button press ends the Alert with SUCCESS after OnButtonEvent and OnButtonPress (CUSTOM_BUTTON)")
    func softButtonEndsAlert() async throws {
        // The press ends it; real time keeps the alert up however loaded the machine is.
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.timeScale = 1 })
        let app = try await activeApp(headUnit)
        async let answer = app.request("Alert", ["alertText1": "Ok?", "duration": 10000, "softButtons": [
            ["type": "TEXT", "text": "OK", "softButtonID": 7, "systemAction": "DEFAULT_ACTION"],
        ]])
        _ = try await app.next("OnHMIStatus")
        try await headUnit.pressSoftButton(7)
        let down = try await app.next("OnButtonEvent")
        #expect(down["buttonName"] == "CUSTOM_BUTTON")
        #expect(down["customButtonID"] == 7)
        #expect(down["buttonEventMode"] == "BUTTONDOWN")
        #expect(try await app.next("OnButtonEvent")["buttonEventMode"] == "BUTTONUP")
        #expect(try await app.next("OnButtonPress")["buttonPressMode"] == "SHORT")
        #expect(try await answer.resultCode == "SUCCESS")
        await #expect(throws: EmulatorError.noAlertOrSoftButton(7)) { try await headUnit.pressSoftButton(7) }
        await headUnit.stop()
    }

    @Test("A spoken Alert: ALERT+ATTENUATED while speaking, ALERT+AUDIBLE once the speech ends, MAIN+AUDIBLE after (core with its HMI; ATF Alert scripts)")
    func spokenAlertAttenuates() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit, media: true)
        async let answer = app.request("Alert", ["alertText1": "Hi", "ttsChunks": [["text": "Hi", "type": "TEXT"]], "duration": 5000])
        var states: [String] = []
        for _ in 0..<3 {
            let status = try await app.next("OnHMIStatus")
            states.append("\(status["systemContext"]?.stringValue ?? "-")+\(status["audioStreamingState"]?.stringValue ?? "-")")
        }
        #expect(states == ["ALERT+ATTENUATED", "ALERT+AUDIBLE", "MAIN+AUDIBLE"])
        #expect(try await answer.resultCode == "SUCCESS")
        await headUnit.stop()
    }

    @Test("Alert with nothing to show or say is INVALID_DATA; duration out of 3000…10000 is INVALID_DATA")
    func alertInvalid() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("Alert", ["playTone": true]).resultCode == "INVALID_DATA")
        #expect(try await app.request("Alert", ["alertText1": "x", "duration": 100]).resultCode == "INVALID_DATA")
        await headUnit.stop()
    }

    @Test("Show: SUCCESS and stored; SetMediaClockTimer REJECTED for non-media apps; Slider TIMED_OUT")
    func showAndFriends() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("Show", ["mainField1": "Now"]).resultCode == "SUCCESS")
        #expect(await headUnit.snapshot().apps[0].show["mainField1"] == "Now")
        #expect(try await app.request("SetMediaClockTimer", ["updateMode": "CLEAR"]).resultCode == "REJECTED")
        let slider = try await app.request("Slider", ["numTicks": 5, "position": 2, "sliderHeader": "Vol", "timeout": 1000])
        #expect(slider.resultCode == "TIMED_OUT")
        #expect(slider["sliderPosition"] == 2)
        #expect(try await app.request("SetGlobalProperties", ["menuTitle": "Menu"]).resultCode == "SUCCESS")
        _ = try await app.next("OnHashChange")
        await headUnit.stop()
    }

    @Test("Show with a field the display lacks answers WARNINGS (capability-based, as core)")
    func showWarnings() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { c in
            var display = c.capabilities["displayCapabilities"]!.objectValue!
            display["textFields"] = [["name": "mainField1", "characterSet": "UTF_8", "width": 40, "rows": 1]]
            c.capabilities["displayCapabilities"] = .object(display)
        })
        let app = try await activeApp(headUnit)
        let response = try await app.request("Show", ["mainField1": "a", "mainField3": "c"])
        #expect(response.resultCode == "WARNINGS")
        #expect(response.success == true)
        await headUnit.stop()
    }
}

@Suite("Vehicle data")
struct VehicleDataTests {
    @Test("Subscribe: per-item dataType/resultCode; again: DATA_ALREADY_SUBSCRIBED and IGNORED overall (core SubscribeVehicleDataRequest)")
    func subscribeTwice() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let first = try await app.request("SubscribeVehicleData", ["speed": true, "rpm": true])
        #expect(first.resultCode == "SUCCESS")
        #expect(first["speed"] == ["dataType": "VEHICLEDATA_SPEED", "resultCode": "SUCCESS"])
        _ = try await app.next("OnHashChange")
        let second = try await app.request("SubscribeVehicleData", ["speed": true])
        #expect(second.resultCode == "IGNORED")
        #expect(second.success == false)
        #expect(second["speed"]?["resultCode"] == "DATA_ALREADY_SUBSCRIBED")
        let unsubscribe = try await app.request("UnsubscribeVehicleData", ["gps": true])
        #expect(unsubscribe.resultCode == "IGNORED")
        #expect(unsubscribe["gps"]?["resultCode"] == "DATA_NOT_SUBSCRIBED")
        await headUnit.stop()
    }

    @Test("Unsubscribe with items not subscribed: IGNORED, \"Some provided VehicleData was not subscribed.\", success only when some item was (UnsubscribeVehicleDataRequest, core-checked)")
    func unsubscribeNotSubscribed() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("SubscribeVehicleData", ["speed": true]).resultCode == "SUCCESS")
        let none = try await app.request("UnsubscribeVehicleData", ["rpm": true])
        #expect(none.resultCode == "IGNORED" && none.success == false)
        #expect(none["info"] == "Some provided VehicleData was not subscribed.")
        let some = try await app.request("UnsubscribeVehicleData", ["speed": true, "rpm": true])
        #expect(some.resultCode == "IGNORED" && some.success == true, "speed was unsubscribed")
        #expect(some["info"] == "Some provided VehicleData was not subscribed.")
        #expect(some["speed"]?["resultCode"] == "SUCCESS" && some["rpm"]?["resultCode"] == "DATA_NOT_SUBSCRIBED")
        #expect(await headUnit.snapshot().apps[0].vehicleSubscriptions.isEmpty)
        await headUnit.stop()
    }

    @Test("setVehicleData sends OnVehicleData to subscribers only, with subscribed items")
    func onVehicleData() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("SubscribeVehicleData", ["speed": true])
        try await headUnit.setVehicleData("rpm", 3000)
        try await headUnit.setVehicleData("speed", 88.5)
        let data = try await app.next("OnVehicleData")
        #expect(data.parameters == ["speed": 88.5])
        #expect(try await app.request("GetVehicleData", ["rpm": true])["rpm"] == 3000)
        await #expect(throws: EmulatorError.unknownVehicleData("sped")) { try await headUnit.setVehicleData("sped", 1) }
        await headUnit.stop()
    }

    @Test("The configured timeline sends OnVehicleData at its pace")
    func timeline() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { c in
            // The timeline starts at the first registration; 300 s emulated is 3 s, time enough to
            // subscribe first even while the whole suite runs on two loaded cores (1 s was not).
            c.vehicleTimeline = [VehicleDataPoint(atMs: 300_000, values: ["speed": 10]), VehicleDataPoint(atMs: 301_000, values: ["speed": 20])]
        })
        let app = try await activeApp(headUnit)
        _ = try await app.request("SubscribeVehicleData", ["speed": true])
        #expect(try await app.next("OnVehicleData", timeout: .seconds(10))["speed"] == 10)
        #expect(try await app.next("OnVehicleData", timeout: .seconds(10))["speed"] == 20)
        await headUnit.stop()
    }

    @Test("Unavailable items: GetVehicleData and SubscribeVehicleData answer VEHICLE_DATA_NOT_AVAILABLE")
    func unavailable() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        try await headUnit.setVehicleDataUnavailable("rpm")
        #expect(try await app.request("GetVehicleData", ["rpm": true]).resultCode == "VEHICLE_DATA_NOT_AVAILABLE")
        let subscribe = try await app.request("SubscribeVehicleData", ["rpm": true])
        #expect(subscribe["rpm"]?["resultCode"] == "VEHICLE_DATA_NOT_AVAILABLE")
        #expect(subscribe.success == false)
        await headUnit.stop()
    }
}

@Suite("Audio pass-thru")
struct AudioPassThruTests {
    static let request: JSONObject = ["samplingRate": "16KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM", "maxDuration": 2000]
    /// A recording that runs until something ends it.
    static let endless: JSONObject = request.merging(["maxDuration": 1_000_000]) { $1 }

    @Test("PerformAudioPassThru streams a PCM chunk (16 kHz, 16-bit mono) each full second before maxDuration, then SUCCESS, as core does",
          arguments: [(2000, 1), (2500, 2), (500, 0)])
    func streamsUntilMaxDuration(maxDuration: Int, chunkCount: Int) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request("PerformAudioPassThru", Self.request.merging(["maxDuration": .int(Int64(maxDuration))]) { $1 })
        #expect(response.resultCode == "SUCCESS")
        let chunks = await app.inbox.take("OnAudioPassThru")
        #expect(chunks.map(\.bulkData.count) == Array(repeating: 32000, count: chunkCount))  // 1000 ms × 16000 × 2 bytes
        await headUnit.stop()
    }

    @Test("A second PerformAudioPassThru while one runs is REJECTED; EndAudioPassThru ends both with SUCCESS, and with none running is REJECTED (sdl_hmi)")
    func secondRejectedAndEnd() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        async let running = app.request("PerformAudioPassThru", Self.endless)
        _ = try await app.next("OnAudioPassThru")
        #expect(try await app.request("PerformAudioPassThru", Self.request).resultCode == "REJECTED")
        #expect(try await app.request("EndAudioPassThru").resultCode == "SUCCESS")
        #expect(try await running.resultCode == "SUCCESS")
        #expect(try await app.request("EndAudioPassThru").resultCode == "REJECTED")
        await headUnit.stop()
    }

    @Test("The driver cancelling the pass-thru answers ABORTED")
    func cancelled() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        async let running = app.request("PerformAudioPassThru", Self.endless)
        _ = try await app.next("OnAudioPassThru")
        try await headUnit.cancelAudioPassThru()
        #expect(try await running.resultCode == "ABORTED")
        await headUnit.stop()
    }

    @Test("While recording the app is HMI_OBSCURED, MAIN after; the HMI's RETRY is reachable from the driver and is a success (ATF PerformAudioPassThru scripts)")
    func obscuredAndRetry() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        async let running = app.request("PerformAudioPassThru", Self.endless)
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "HMI_OBSCURED")
        try await headUnit.retryAudioPassThru()
        let answer = try await running
        #expect(answer.resultCode == "RETRY" && answer.success == true)
        #expect(try await app.next("OnHMIStatus")["systemContext"] == "MAIN")
        await #expect(throws: EmulatorError.noAudioPassThru) { try await headUnit.retryAudioPassThru() }
        await headUnit.stop()
    }

    @Test("A WAV file is the microphone: 8-bit requests get unsigned 8-bit samples of it")
    func wavSource() async throws {
        let path = NSTemporaryDirectory() + "emu-test-\(UUID().uuidString).wav"
        var wav: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
        wav += [0x80, 0x3E, 0, 0, 0, 0x7D, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [8, 0, 0, 0]
        wav += [0, 0x40, 0, 0x40, 0, 0x40, 0, 0x40]  // 16000 Hz, 16-bit, four samples of +0.5
        #expect(FileManager.default.createFile(atPath: path, contents: Data(wav)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pcm = try Microphone.pcm(source: .wavFile(path: path), sampleRate: 8000, bits: 8, milliseconds: 1)
        #expect(pcm == Array(repeating: 192, count: 8))
    }
}

@Suite("Files")
struct FileTests {
    @Test("PutFile: SUCCESS with spaceAvailable, chunks by offset, wrong crc CORRUPTED_DATA, over quota OUT_OF_MEMORY")
    func putFile() async throws {
        let directory = NSTemporaryDirectory() + "emu-files-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.storageQuota = 100; $0.storageDirectory = directory })
        let app = try await activeApp(headUnit)
        let chunk: [UInt8] = Array(repeating: 0xAB, count: 40)
        let first = try await app.request("PutFile", ["syncFileName": "a.bin", "fileType": "BINARY", "offset": 0, "length": 80,
                                                       "crc": .int(Int64(CRC32.checksum(chunk)))], bulkData: chunk)
        #expect(first.resultCode == "SUCCESS")
        #expect(first["spaceAvailable"] == 60)
        let second = try await app.request("PutFile", ["syncFileName": "a.bin", "fileType": "BINARY", "offset": 40, "length": 80], bulkData: chunk)
        #expect(second["spaceAvailable"] == 20)
        #expect(FileManager.default.contents(atPath: directory + "/app-1/a.bin")?.count == 80)
        let corrupt = try await app.request("PutFile", ["syncFileName": "b.bin", "fileType": "BINARY", "crc": 1], bulkData: [1, 2])
        #expect(corrupt.resultCode == "CORRUPTED_DATA")
        let big = try await app.request("PutFile", ["syncFileName": "c.bin", "fileType": "BINARY"], bulkData: chunk)
        #expect(big.resultCode == "OUT_OF_MEMORY")
        let list = try await app.request("ListFiles")
        #expect(list["filenames"] == ["a.bin"])
        #expect(list["spaceAvailable"] == 20)
        await headUnit.stop()
    }

    @Test("A chunk must continue the file where it ends: a gap, a repeat, or the chunk after a CRC failure is INVALID_DATA (core-checked; ApplicationManagerImpl::SaveBinary)")
    func putFileOffsets() async throws {
        let directory = NSTemporaryDirectory() + "emu-files-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.storageDirectory = directory })
        let app = try await activeApp(headUnit)
        func put(_ offset: Int, _ bytes: [UInt8], crc: UInt32? = nil) async throws -> RPCEnvelope {
            try await app.request("PutFile", ["syncFileName": "f.bin", "fileType": "BINARY", "offset": .int(Int64(offset)), "length": 30,
                                              "crc": .int(Int64(crc ?? CRC32.checksum(bytes)))], bulkData: bytes)
        }
        let ten = [UInt8](repeating: 1, count: 10)
        #expect(try await put(0, ten).resultCode == "SUCCESS")
        let gap = try await put(20, ten)
        #expect(gap.resultCode == "INVALID_DATA")
        #expect(gap.success == false)
        #expect(try await put(0 + 5, ten).resultCode == "INVALID_DATA", "a repeat of bytes already received")
        #expect(try await put(10, ten, crc: 1).resultCode == "CORRUPTED_DATA")
        #expect(try await put(20, ten).resultCode == "INVALID_DATA", "the chunk after the corrupted one leaves a gap")
        #expect(try await put(10, ten).resultCode == "SUCCESS")
        #expect(try await put(20, ten).resultCode == "SUCCESS")
        #expect(FileManager.default.contents(atPath: directory + "/app-1/f.bin") == Data(repeating: 1, count: 30))
        try FileManager.default.removeItem(atPath: directory + "/app-1/f.bin")
        let lost = try await put(30, ten)
        #expect(lost.resultCode == "GENERIC_ERROR")
        #expect(lost["info"]?.stringValue == "storage failed: cannot open \(directory)/app-1/f.bin: No such file or directory")
        await headUnit.stop()
    }

    @Test("Two files uploaded chunk by chunk in turns, one deleted and put again halfway: each ends as its chunks say")
    func interleavedUploads() async throws {
        let directory = NSTemporaryDirectory() + "emu-files-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.storageDirectory = directory })
        let app = try await activeApp(headUnit)
        func put(_ name: String, _ offset: Int, _ byte: UInt8) async throws -> String? {
            try await app.request("PutFile", ["syncFileName": .string(name), "fileType": "BINARY", "offset": .int(Int64(offset)),
                                              "length": 30], bulkData: [UInt8](repeating: byte, count: 10)).resultCode
        }
        #expect(try await put("a.bin", 0, 1) == "SUCCESS")
        #expect(try await put("b.bin", 0, 2) == "SUCCESS")
        #expect(try await put("a.bin", 10, 3) == "SUCCESS")
        #expect(try await put("b.bin", 10, 4) == "SUCCESS")
        #expect(try await app.request("DeleteFile", ["syncFileName": "a.bin"]).resultCode == "SUCCESS")
        #expect(try await put("a.bin", 20, 5) == "INVALID_DATA", "the rest of a deleted file has nothing to continue")
        #expect(try await put("a.bin", 0, 6) == "SUCCESS")
        #expect(try await put("b.bin", 20, 7) == "SUCCESS")
        #expect(try await put("a.bin", 10, 8) == "SUCCESS")
        #expect(FileManager.default.contents(atPath: directory + "/app-1/a.bin") == Data([UInt8](repeating: 6, count: 10) + [UInt8](repeating: 8, count: 10)))
        #expect(FileManager.default.contents(atPath: directory + "/app-1/b.bin")
                == Data([UInt8](repeating: 2, count: 10) + [UInt8](repeating: 4, count: 10) + [UInt8](repeating: 7, count: 10)))
        await headUnit.stop()
    }

    @Test("Whatever the app id, its files stay inside its own folder under the storage root",
          arguments: ["..", ".", "../../tmp", "a/b", "a_2Fb", "\u{0}x"])
    func appIDStaysInside(appID: String) async throws {
        let root = NSTemporaryDirectory() + "emu-root-\(UUID().uuidString)"
        let directory = root + "/storage"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.storageDirectory = directory })
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register(appID: appID)
        let put = try await app.request("PutFile", ["syncFileName": "x.bin", "fileType": "BINARY"], bulkData: [9])
        #expect(put.resultCode == "SUCCESS")
        let folder = await headUnit.folder(of: appID)
        #expect(URL(fileURLWithPath: folder).deletingLastPathComponent().standardizedFileURL.path
                == URL(fileURLWithPath: directory).standardizedFileURL.path, "\(folder)")
        #expect(FileManager.default.contents(atPath: folder + "/x.bin") == Data([9]))
        // Nothing was written beside the storage folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["storage"])
        _ = try await app.request("DeleteFile", ["syncFileName": "x.bin"])
        #expect(FileManager.default.fileExists(atPath: folder + "/x.bin") == false)
        await headUnit.stop()
    }

    @Test("File names that would leave the storage folder are INVALID_DATA", arguments: ["../x", "/etc/passwd", "a/b", "a\\b", "nul\0x", "..", ".", String(repeating: "x", count: 256)])
    func traversal(name: String) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let response = try await app.request("PutFile", ["syncFileName": .string(name), "fileType": "BINARY"], bulkData: [1])
        #expect(response.resultCode == "INVALID_DATA")
        await headUnit.stop()
    }

    @Test("DeleteFile of a missing file is REJECTED, SetAppIcon of one INVALID_DATA (core); session files go on unregister, persistent ones stay")
    func deleteAndPersistence() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        #expect(try await app.request("DeleteFile", ["syncFileName": "none"]).resultCode == "REJECTED")
        #expect(try await app.request("SetAppIcon", ["syncFileName": "none"]).resultCode == "INVALID_DATA")
        _ = try await app.request("PutFile", ["syncFileName": "keep.png", "fileType": "GRAPHIC_PNG", "persistentFile": true], bulkData: [1])
        _ = try await app.request("PutFile", ["syncFileName": "temp.png", "fileType": "GRAPHIC_PNG"], bulkData: [2])
        #expect(try await app.request("SetAppIcon", ["syncFileName": "keep.png"]).resultCode == "SUCCESS")
        _ = try await app.request("UnregisterAppInterface")
        let again = try await app.register()
        #expect(again["iconResumed"] == true)
        #expect(try await app.request("ListFiles")["filenames"] == ["keep.png"])
        await headUnit.stop()
    }
}

@Suite("Resumption")
struct ResumptionTests {
    @Test("After an unexpected disconnect, the hashID of OnHashChange restores commands and subscriptions: SUCCESS, FULL again (core resumption)")
    func resumes() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("AddCommand", ["cmdID": 5, "menuParams": ["menuName": "Five"]])
        _ = try await app.next("OnHashChange")
        _ = try await app.request("SubscribeVehicleData", ["speed": true])
        let hash = try #require(try await app.next("OnHashChange")["hashID"])
        try await headUnit.dropTransport()
        let back = try await TestApp.connect(headUnit)
        let response = try await back.request("RegisterAppInterface", TestApp.registration(name: "Test App", appID: "app-1")
                                                  .merging(["hashID": hash]) { _, new in new })
        #expect(response.resultCode == "SUCCESS")
        let snapshot = try #require(await headUnit.snapshot().app("app-1"))
        #expect(snapshot.commands.keys.sorted() == [5])
        #expect(snapshot.vehicleSubscriptions == ["speed"])
        #expect(snapshot.hmiLevel == "FULL")
        await headUnit.stop()
    }

    @Test("A wrong hashID is RESUME_FAILED with success true, and nothing is restored (core)")
    func wrongHash() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("AddCommand", ["cmdID": 5, "menuParams": ["menuName": "Five"]])
        _ = try await app.next("OnHashChange")
        try await headUnit.dropTransport()
        let back = try await TestApp.connect(headUnit)
        let response = try await back.register(extra: ["hashID": "nope"])
        #expect(response.resultCode == "RESUME_FAILED")
        #expect(response.success == true)
        #expect(await headUnit.snapshot().app("app-1")?.commands.isEmpty == true)
        await headUnit.stop()
    }

    @Test("A clean UnregisterAppInterface keeps nothing to resume")
    func cleanUnregister() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        _ = try await app.request("AddCommand", ["cmdID": 5, "menuParams": ["menuName": "Five"]])
        let hash = try #require(try await app.next("OnHashChange")["hashID"])
        _ = try await app.request("UnregisterAppInterface")
        #expect(try await app.register(extra: ["hashID": hash]).resultCode == "RESUME_FAILED")
        await headUnit.stop()
    }
}

@Suite("Configuration and control channel")
struct ConfigurationAndControlTests {
    @Test("Unknown configuration keys are errors with the path and a did-you-mean")
    func unknownKey() throws {
        #expect(throws: EmulatorConfigurationError(path: "$.timeScal", reason: "unknown key \"timeScal\"; did you mean \"timeScale\"?")) {
            try EmulatorConfiguration(json: ["timeScal": 0.1])
        }
        #expect(throws: EmulatorConfigurationError.self) {
            try EmulatorConfiguration(json: ["vehicleData": ["timeline": [["atMs": 10, "values": ["sped": 1]]]]])
        }
        let c = try EmulatorConfiguration(json: ["timeScale": 0.5, "policy": ["apps": ["x": ["Show": ["FULL"]]]],
                                                 "vehicleData": ["timeline": [["atMs": 10, "values": ["speed": 1]]]]])
        #expect(c.timeScale == 0.5)
        #expect(c.policy.allows("Show", appID: "x", hmiLevel: "FULL"))
        #expect(c.vehicleTimeline.count == 1)
    }

    @Test("Control commands drive the emulator and answer one JSON object each, over TCP JSON lines")
    func controlOverTCP() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register(appID: "ctl")
        let port = try await headUnit.listenControl(port: 0)
        let control = TCPTransport(host: "127.0.0.1", port: port)
        try await control.open()
        try await control.send(Array(#"{"action":"activateApp","appID":"ctl","id":1}"#.utf8) + [10] + Array(#"{"action":"snapshot"}"#.utf8) + [10]
                               + Array(#"{"action":"activatApp"}"#.utf8) + [10])
        var text = ""
        for try await chunk in control.incoming {
            text += String(decoding: chunk, as: UTF8.self)
            if text.filter({ $0 == "\n" }).count >= 3 { break }
        }
        let lines = text.split(separator: "\n").map { try? JSONValue.parse(String($0)) }
        #expect(lines[0] == ["ok": true, "id": 1])
        #expect(lines[1]?["snapshot"]?["apps"]?.arrayValue?.first?["hmiLevel"] == "FULL")
        #expect(lines[2]?["error"]?.stringValue?.contains("did you mean \"activateApp\"") == true)
        #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "FULL")
        await control.close()
        await headUnit.stop()
    }
}
