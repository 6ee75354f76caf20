import Foundation
import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The phone role on a stock BlueZ 5: the SDL service registered through D-Bus
/// (ProfileManager1.RegisterProfile) with a fake bluetoothd on a private bus
/// (Tests/Peers/fake_bluez.py), which hands over one end of a socketpair in NewConnection
/// and relays the other to the emulator, as bluetoothd hands over an RFCOMM socket.
@Suite("Bluetooth through BlueZ's D-Bus API (fake bluetoothd on a private bus)", .serialized)
struct BlueZDBusTests {
    static let fake = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/fake_bluez.py").path

    /// Starts the fake bluetoothd; returns it and its private bus address.
    func fakeBlueZ(_ arguments: [String] = []) async throws -> (BackgroundProcess, String) {
        let process = try await BackgroundProcess("/usr/bin/python3", [Self.fake] + arguments)
        let ready = try #require(try? JSONValue.parse(process.firstLine).objectValue,
                                 "fake_bluez.py did not start (\(process.firstLine)): run scripts/setup (python3-dbus, dbus-daemon)")
        return (process, try #require(ready["bus"]?.stringValue))
    }

    @Test("RegisterProfile carries the SDL UUID and server role; a full session and a TCP secondary run over the handed-over socket")
    func sessionOverProfile() async throws {
        var configuration = EmulatorConfiguration.standard
        configuration.multipleTransports.enabled = true
        configuration.multipleTransports.forBluetooth = ["WiFi"]
        configuration.multipleTransports.videoServiceTransports = ["TCP_WIFI", "SPP_BLUETOOTH"]
        let recordings = try TestFolder("bt-recordings")
        configuration.recordingDirectory = recordings.path
        let headUnit = HeadUnitEmulator(configuration: configuration)
        _ = try await headUnit.listen(host: "127.0.0.1", port: 0)  // the secondary's endpoint
        let rfcomm = try await headUnit.listen(host: "127.0.0.1", port: 0, as: .bluetooth)
        let (bluez, bus) = try await fakeBlueZ(["--bridge", "127.0.0.1:\(rfcomm)"])
        defer { bluez.stop() }

        let link = BluetoothTransport(mode: .waitForHeadUnit(channel: 5), timeout: .seconds(20), connector: BlueZConnector(busAddress: bus))
        let connection = SDLConnection(transport: link)
        let events = await connection.transportEvents()
        let registered = Task { () -> Bool in
            for await event in events where event.name == "secondaryRegistered" { return true }
            return false
        }
        try await connection.start()
        let response = try await connection.send(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "BT Nav",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "bt-nav", appHMIType: [.navigation]))
        #expect(response.success)
        #expect(await registered.value, "the TCP secondary registered beside the Bluetooth primary")
        try await headUnit.activateApp("bt-nav")
        _ = try await connection.startService(.video)
        #expect(await connection.link(of: .video) == .secondary)
        await connection.stop()

        let call = try #require(try JSONValue.parse(await bluez.nextLine()).objectValue)
        #expect(call["event"] == "RegisterProfile")
        #expect(call["uuid"] == "936da01f-9abd-4d9d-80c7-02af85c822a8")
        #expect(call["options"]?["Role"] == "server" && call["options"]?["Channel"] == 5)
        #expect(call["options"]?["Name"] == "SdlRouterService")
        #expect(try JSONValue.parse(await bluez.nextLine())["event"] == "NewConnection")
        #expect(try JSONValue.parse(await bluez.nextLine())["event"] == "UnregisterProfile", "the profile is withdrawn once connected")
        await headUnit.stop()
    }

    /// bluetoothd serves a profile for the SDL UUID on no RFCOMM channel unless one is named
    /// (found on a real bluetoothd in the lab); the fake refuses such a registration.
    @Test("with no channel asked for, the profile names a free RFCOMM channel and a head unit connects")
    func channelChosen() async throws {
        let headUnit = HeadUnitEmulator()
        let rfcomm = try await headUnit.listen(host: "127.0.0.1", port: 0, as: .bluetooth)
        let (bluez, bus) = try await fakeBlueZ(["--bridge", "127.0.0.1:\(rfcomm)"])
        defer { bluez.stop() }
        let connection = SDLConnection(transport: BluetoothTransport(
            mode: .waitForHeadUnit(channel: nil), timeout: .seconds(20), connector: BlueZConnector(busAddress: bus)))
        try await connection.start()
        await connection.stop()
        let call = try #require(try JSONValue.parse(await bluez.nextLine()).objectValue)
        let channel = try #require(call["options"]?["Channel"]?.intValue, "RegisterProfile named no channel: \(call)")
        #expect((1...30).contains(channel))
        #expect(try JSONValue.parse(await bluez.nextLine())["event"] == "NewConnection")
        await headUnit.stop()
    }

    /// bluetoothd serves a profile on every adapter; a machine with two radios names one.
    @Test("with an adapter named, a head unit that reached the other adapter is turned away and the one on it is taken")
    func adapterChosen() async throws {
        let headUnit = HeadUnitEmulator()
        let rfcomm = try await headUnit.listen(host: "127.0.0.1", port: 0, as: .bluetooth)
        let devices = "/org/bluez/hci0/dev_00_11_22_33_44_55,/org/bluez/hci1/dev_00_11_22_33_44_66"
        let (bluez, bus) = try await fakeBlueZ(["--bridge", "127.0.0.1:\(rfcomm)", "--devices", devices])
        defer { bluez.stop() }
        let connection = SDLConnection(transport: BluetoothTransport(
            mode: .waitForHeadUnit(channel: nil), timeout: .seconds(20), connector: BlueZConnector(busAddress: bus, adapter: "hci1")))
        try await connection.start()
        await connection.stop()
        #expect(try JSONValue.parse(await bluez.nextLine())["event"] == "RegisterProfile")
        let handed = [await bluez.nextLine(), await bluez.nextLine()].compactMap { try? JSONValue.parse($0).objectValue }
        #expect(handed.map { $0["event"] } == ["NewConnection", "NewConnection"])
        #expect(handed.map { $0["device"]?.stringValue } == devices.split(separator: ",").map(String.init))
        await headUnit.stop()
    }

    /// One line each, naming the cause and what to do, after the legacy SDP path failed too.
    @Test("refusals say what to do in one line", arguments: [
        (["--deny"], "D-Bus denied RegisterProfile", "BlueZ's D-Bus policy"),
        (["--adapter-off"], "the Bluetooth adapter hci0 is powered off", "bluetoothctl power on"),
    ])
    func refusals(arguments: [String], cause: String, advice: String) async throws {
        let (bluez, bus) = try await fakeBlueZ(arguments)
        defer { bluez.stop() }
        let link = BluetoothTransport(mode: .waitForHeadUnit(channel: nil), timeout: .seconds(5), connector: BlueZConnector(busAddress: bus))
        do {
            try await link.open()
            Issue.record("opened against a refusing bluetoothd")
        } catch {
            #expect(error.description.contains(cause) && error.description.contains(advice), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("no bus and no Bluetooth: one line that names both paths")
    func nothingThere() async throws {
        let link = BluetoothTransport(mode: .waitForHeadUnit(channel: nil), timeout: .seconds(2),
                                      connector: BlueZConnector(busAddress: "unix:path=/nonexistent/sdl-test-bus"))
        do {
            try await link.open()
            Issue.record("opened without a bus")
        } catch {
            #expect(error.description.hasPrefix("cannot publish the SDL service over Bluetooth: no D-Bus system bus"), "\(error)")
            #expect(error.description.contains("legacy SDP path failed too") && error.description.hasSuffix("is D-Bus running?"), "\(error)")
        }
    }
}
