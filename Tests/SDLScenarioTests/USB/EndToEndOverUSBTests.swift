import Foundation
import SDLEmulator
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The whole stack over real libusb code under umockdev (Tests/USB/fake_usb.py): a TDK
/// bridged to the emulator, a phone switched into accessory mode by the emulator, and an
/// unplug in the middle of an upload. `scripts/test-usb` runs these in a harness run of
/// their own (SDL_E2E_USB=1) and checks they passed; a plain `swift test` skips them.
@Suite("End to end over USB under umockdev", .serialized)
struct EndToEndOverUSBTests {
    static let environment = ProcessInfo.processInfo.environment
    static let active = environment["SDL_UMOCKDEV_SCENARIO"] == "devices" && environment["SDL_E2E_USB"] == "1"

    static func endpoint(_ variable: String) -> (host: String, port: UInt16)? {
        guard let value = environment[variable], let address = try? HostPort(parsing: value) else { return nil }
        return (address.host, address.port)
    }

    static func records(device: String) -> [JSONObject] {
        guard let path = environment["SDL_FAKE_USB_RECORD"], let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)).objectValue }.filter { $0["device"] == .string(device) }
    }

    /// hello.json runs over USB: TDK bridged to the emulator, driver steps on the emulator.
    @Test(.enabled(if: active))
    func scenarioOverTDK() async throws {
        let bridge = try #require(Self.endpoint("SDL_FAKE_USB_BRIDGE"))
        let headUnit = HeadUnitEmulator(configuration: .standard)
        _ = try await headUnit.listen(host: bridge.host, port: bridge.port)
        let scenario = try ScenarioParser.load(path: CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path)
        let target = ScenarioTarget(
            name: "USB TDK-BRIDGE", makeTransport: { USBTransport(.serial("TDK-BRIDGE")) },
            driver: ControlCommandDriver { await headUnit.control($0) })
        let result = await ScenarioRunner(promptPolicy: .fail).run(scenario, on: target)
        #expect(result.status == .passed, "\(result.message ?? "") \(result.steps.map { "\($0.path) \($0.status) \($0.message ?? "")" })")
        #expect(result.steps.count == scenario.steps.count)
        #expect(Self.records(device: "TDK-BRIDGE").contains { $0["event"] == "bridge_connected" })
        await headUnit.stop()
    }

    /// the emulator switches a phone into accessory mode and serves its SDL app over the bulk endpoints.
    @Test(.enabled(if: active))
    func phoneThroughAOA() async throws {
        let appSide = try #require(Self.endpoint("SDL_FAKE_USB_ACCESSORY_BRIDGE"))
        // The phone's SDL app sits at the far end of the accessory's bridge.
        let phoneApp = try TCPListener(host: appSide.host, port: appSide.port)
        let headUnit = HeadUnitEmulator(configuration: .standard)
        let usb = Task { try await headUnit.serveUSB(phones: .ids([USBVendorProduct(0x18D1, 0x4EE1)])) }
        var accepted = phoneApp.connections.makeAsyncIterator()
        let link = try #require(await accepted.next())
        let connection = SDLConnection(transport: link)
        try await connection.start()
        let response = try await connection.send(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Phone App",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "phone-app"))
        #expect(response.success && response.resultCode == .success)
        #expect(await headUnit.snapshot().apps.contains { $0.appID == "phone-app" })
        let strings = Self.records(device: "phone").filter { $0["event"] == "string" }.compactMap { $0["value"]?.stringValue }
        #expect(strings == ["SDL", "Core", "SmartDeviceLink Core Component USB", "1.0", "http://www.smartdevicelink.org", "N000000"])
        // Dropping the link resets the accessory's port: closing the handle alone is something a device never sees.
        try await headUnit.dropTransport(appID: "phone-app")
        #expect(Self.records(device: "accessory").contains { $0["event"] == "reset" })
        await connection.stop()
        usb.cancel()
        phoneApp.close()
        await headUnit.stop()
    }

    /// a USB primary (the TDK bridged to the emulator) and a TCP secondary straight to the emulator: the secondary registers and video runs on it.
    @Test(.enabled(if: active))
    func usbPrimaryWithTCPSecondary() async throws {
        let bridge = try #require(Self.endpoint("SDL_FAKE_USB_BRIDGE"))
        var configuration = EmulatorConfiguration.standard
        configuration.multipleTransports.enabled = true
        configuration.multipleTransports.forUSB = ["WiFi"]
        configuration.multipleTransports.videoServiceTransports = ["TCP_WIFI", "AOA_USB"]
        let recordings = try TestFolder("usb-recordings")
        configuration.recordingDirectory = recordings.path
        let headUnit = HeadUnitEmulator(configuration: configuration)
        // The first TCP listener is the endpoint the TransportEventUpdate announces; the
        // bridge's links stand for the USB cable they carry.
        _ = try await headUnit.listen(host: "127.0.0.1", port: 0)
        _ = try await headUnit.listen(host: bridge.host, port: bridge.port, as: .usb)
        let connection = SDLConnection(transport: USBTransport(.serial("TDK-BRIDGE")))
        let events = await connection.transportEvents()
        let registered = Task { () -> TransportEvent? in
            for await event in events where event.name == "secondaryRegistered" { return event }
            return nil
        }
        try await connection.start()
        _ = try await connection.sendExpectingSuccess(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Navigator",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "usb-nav", appHMIType: [.navigation]))
        let event = await registered.value
        try #require(event != nil, "the secondary never registered")
        #expect(event?.description.hasPrefix("secondary registered: TCP 127.0.0.1:") == true)
        try await headUnit.activateApp("usb-nav")
        _ = try await connection.startService(.video)
        #expect(await connection.link(of: .video) == .secondary)
        try await connection.sendServiceData([UInt8](repeating: 7, count: 10_000), on: .video)
        let received = await headUnit.waitUntil { $0.app("usb-nav")?.streams["video"]?.bytesOnSecondary == 10_000 }
        #expect(received, "the head unit got the video on the secondary")
        await connection.stop()
        await headUnit.stop()
    }

    /// the bench station: a TDK plugged in starts a run whose report appears; pulled out mid-run, the run ends as deviceRemoved and the next TDK is served.
    @Test(.enabled(if: active))
    func watchServesPluggedDevices() async throws {
        let bridge = try #require(Self.endpoint("SDL_FAKE_USB_LATE_BRIDGE"))
        let plugDirectory = try #require(Self.environment["SDL_FAKE_USB_PLUG_DIR"])
        let headUnit = HeadUnitEmulator(configuration: .standard)
        _ = try await headUnit.listen(host: bridge.host, port: bridge.port, as: .usb)
        let bench = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: bench + "/scenarios", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bench) }
        try #"{"name": "on the bench", "app": {"appName": "Bench", "appID": "bench-0001"}, "steps": [{"send": "ListFiles"}, {"wait": 1500}, {"send": "ListFiles"}]}"#
            .write(toFile: bench + "/scenarios/bench.json", atomically: true, encoding: .utf8)
        try #"{"devices": ["serial=TDK-LATE"], "scenarios": ["scenarios/"], "reports": "reports"}"#
            .write(toFile: bench + "/bench.json", atomically: true, encoding: .utf8)
        let watcher = try await BackgroundProcess(CommandRunner.sdlRun.path, ["watch", bench + "/bench.json"])
        defer { watcher.stop() }
        #expect(try JSONValue.parse(watcher.firstLine)["event"] == "watching")
        /// The watcher's next events, up to one named `last`.
        func events(until last: String) async throws -> [JSONObject] {
            var seen: [JSONObject] = []
            while seen.last?["event"]?.stringValue != last {
                let line = await watcher.nextLine()
                guard !line.isEmpty else { break }
                seen.append(try #require(try JSONValue.parse(line).objectValue))
            }
            return seen
        }

        // Plugged in: a run starts; pulled out while it waits between its steps.
        #expect(FileManager.default.createFile(atPath: plugDirectory + "/plug-14", contents: nil))
        let started = try await events(until: "runStarted")
        #expect(started.map { $0["event"]?.stringValue } == ["attached", "runStarted"])
        let first = try #require(started.last?["report"]?.stringValue)
        #expect(await headUnit.waitUntil { $0.app("bench-0001") != nil }, "the run registered its app")
        #expect(FileManager.default.createFile(atPath: plugDirectory + "/unplug-14", contents: nil))
        let removed = try await events(until: "runFinished")
        #expect(removed.map { $0["event"]?.stringValue } == ["detached", "runFinished"])
        #expect(removed.last?["outcome"] == "deviceRemoved", "\((try? String(contentsOfFile: first + "/console.log", encoding: .utf8)) ?? "")")
        let record = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: first + "/run.json"))))
        #expect(record["outcome"] == "deviceRemoved" && record["deviceRemovedAt"] != nil)
        #expect(FileManager.default.fileExists(atPath: first + "/result.json"), "the interrupted run still wrote its report")
        #expect(FileManager.default.fileExists(atPath: first + "/console.log"))

        // The next TDK is served, and this run passes.
        #expect(FileManager.default.createFile(atPath: plugDirectory + "/plug-15", contents: nil))
        let next = try await events(until: "runFinished")
        #expect(next.map { $0["event"]?.stringValue } == ["attached", "runStarted", "runFinished"])
        let second = try #require(next.last?["report"]?.stringValue)
        #expect(next.last?["outcome"] == "passed", "\((try? String(contentsOfFile: second + "/console.log", encoding: .utf8)) ?? "")")
        #expect(second != first)
        for file in ["junit.xml", "result.json", "trace.jsonl", "run.json", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: second + "/" + file), "\(file) in the report folder")
        }
        let index = try String(contentsOfFile: bench + "/reports/index.html", encoding: .utf8)
        for folder in [first, second] {
            #expect(index.contains((folder as NSString).lastPathComponent + "/report.html"), "the index links \(folder)")
        }
        let log = try String(contentsOfFile: bench + "/reports/watch.jsonl", encoding: .utf8)
        #expect(log.split(separator: "\n").count == 1 + started.count + removed.count + next.count)
        await headUnit.stop()
    }

    /// unplugged during an upload: the pending PutFile fails at once, nothing hangs.
    @Test(.enabled(if: active))
    func unplugDuringUpload() async throws {
        let bridge = try #require(Self.endpoint("SDL_FAKE_USB_UNPLUG_BRIDGE"))
        let headUnit = HeadUnitEmulator(configuration: .standard)
        _ = try await headUnit.listen(host: bridge.host, port: bridge.port)
        let connection = SDLConnection(transport: USBTransport(.serial("TDK-UNPLUG")))
        try await connection.start()
        _ = try await connection.send(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Uploader",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "uploader"))
        var uploaded = 0
        var failure: SDLError?
        for chunk in 0..<6 {
            // The third chunk carries the marker that makes the fake device unplug itself.
            let part = chunk == 2 ? Array(repeating: Array("UNPLUG".utf8), count: 200).flatMap { $0 }
                                  : [UInt8](repeating: UInt8(chunk), count: 1200)
            var request = PutFile(syncFileName: "big.bin", fileType: .binary, offset: uploaded, length: part.count,
                                  crc: Int(CRC32.checksum(part)))
            request.bulkData = part
            do {
                _ = try await connection.send(request, timeout: .seconds(30))
                uploaded += part.count
            } catch {
                failure = error
                break
            }
        }
        guard case .connectionLost(let reason)? = failure else {
            Issue.record("expected connectionLost, got \(String(describing: failure)) after \(uploaded) bytes")
            return
        }
        #expect(reason.contains("unplugged"), "\(reason)")
        #expect(uploaded == 2400)
        await headUnit.stop()
    }
}
