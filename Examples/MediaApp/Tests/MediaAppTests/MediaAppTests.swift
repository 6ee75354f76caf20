import Foundation
import Synchronization
import MediaApp
import SDLEmulator
import SmartDeviceLink
import Testing

/// The media app against the emulator in the same process: the test is the driver (it opens
/// the app, presses its buttons, picks from its menu and choice set, drives faster) and
/// checks what the head unit shows and what the app says on its terminal.
@Suite("The media app, driven on the emulator")
struct MediaAppTests {
    @Test("registers, shows the track, plays, picks tracks, follows the speed, records a note, switches template",
          .timeLimit(.minutes(2)))
    func wholeApp() async throws {
        let headUnit = HeadUnitEmulator()
        let port = try await headUnit.listen(port: 0)
        let terminal = Terminal()
        let app = MediaApp(link: .tcp(host: "127.0.0.1", port: port)) { line in terminal.add(line) }
        try await app.start()
        try await headUnit.activateApp()
        try await terminal.expect("showing \"Open Road\" by The Lanes")
        try await terminal.expect("menu: 7 cells")
        let appID = "sdl-music-0001"
        var shown = try #require(await headUnit.snapshot().app(appID))
        #expect(shown.show["mainField1"] == "Open Road" && shown.show["mainField2"] == "The Lanes" && shown.show["mediaTrack"] == "1 of 3")
        #expect(shown.files.contains("cover.png") && shown.show["graphic"]?["value"] == "cover.png", "the artwork, uploaded and shown")
        #expect(shown.submenus.values.map(\.menuName) == ["Tracks"])
        #expect(Set(shown.commands.values.map(\.menuParams?.menuName)) == ["Open Road", "Night Drive", "Rest Stop", "Record a voice note", "Speed", "Switch template"])
        #expect(shown.vehicleSubscriptions.contains("speed"))

        // Play: the button turns to Pause and the media clock counts up.
        try await headUnit.pressSoftButton(try await Self.softButton("Play", in: headUnit, appID))
        try await terminal.expect("playing \"Open Road\"")
        shown = try #require(await headUnit.snapshot().app(appID))
        #expect(shown.show["mediaClockTimer"]?["updateMode"] == "COUNTUP")
        #expect(shown.show["mediaClockTimer"]?["endTime"] == ["hours": 0, "minutes": 3, "seconds": 34])
        #expect(try await Self.softButton("Pause", in: headUnit, appID) > 0)

        // The Tracks button presents the playlist as a choice set; the driver picks the second.
        try await headUnit.pressSoftButton(try await Self.softButton("Tracks", in: headUnit, appID))
        let nightDrive = try await Self.choice("Night Drive", in: headUnit, appID)
        try await Self.retrying { try await headUnit.selectChoice(nightDrive) }
        try await terminal.expect("\"Night Drive\" picked from the choice set (MENU)")
        try await terminal.expect("playing \"Night Drive\"")
        #expect(await headUnit.snapshot().app(appID)?.show["mainField1"] == "Night Drive")

        // The third track by voice, from the submenu's voice command.
        try await headUnit.selectCommand(try await Self.command("Rest Stop", in: headUnit, appID), triggerSource: "VR")
        try await terminal.expect("\"Rest Stop\" picked from the menu (VR)")

        // The car drives: the speed reaches the screen; driver distraction locks the phone's screen.
        try await headUnit.setVehicleData("speed", 80)
        try await terminal.expect("speed: 80 km/h")
        #expect(await headUnit.waitUntil { $0.app(appID)?.show["mainField3"] == "80 km/h" })
        await headUnit.setDriverDistraction(true)
        try await terminal.expect("lock screen: REQUIRED, shown")

        // The Speed menu item alerts it; the driver presses OK.
        try await headUnit.selectCommand(try await Self.command("Speed", in: headUnit, appID))
        let ok = try await Self.alertButton(in: headUnit)
        try await headUnit.pressSoftButton(ok)
        try await terminal.expect("alert \"Speed 80 km/h\": SUCCESS")

        // A voice note from the car's microphone, ended by the driver.
        try await headUnit.selectCommand(try await Self.command("Record a voice note", in: headUnit, appID))
        try await Self.retrying { try await headUnit.finishAudioPassThru() }
        let note = try await terminal.expect { $0.hasPrefix("voice note: ") }
        #expect(note.hasSuffix("(SUCCESS)"), "\(note)")

        try await headUnit.selectCommand(try await Self.command("Switch template", in: headUnit, appID))
        try await terminal.expect("template: NON-MEDIA")
        #expect(await headUnit.waitUntil { $0.app(appID)?.show["mainField1"] == "Rest Stop" }, "a new template shows the track again")

        await app.stop()
        await headUnit.stop()
        #expect(terminal.lines.filter { $0.contains("failed") }.isEmpty, "\(terminal.lines)")
    }

    @Test("the command line: a link it cannot read exits 2, a head unit that is not there exits 3, each in one line")
    func commandLineErrors() async throws {
        let badLink = try Self.run(["--usb", "nonsense"])
        #expect(badLink.status == 2 && badLink.stderr == "media-app: --usb nonsense: cannot read USB device \"nonsense\": use VID:PID in hex (18d1:2d01), BUS:ADDR in decimal (1:5) or serial=SERIAL\n", "\(badLink)")
        let nobody = try Self.run(["--tcp", "127.0.0.1:1"])
        #expect(nobody.status == 3, "\(nobody)")
        #expect(nobody.stderr.contains("connection refused by 127.0.0.1:1") && nobody.stderr.split(separator: "\n").count == 1, "\(nobody.stderr)")
    }

    @Test("SIGTERM, as systemd stops a unit: the app unregisters and exits 0", .timeLimit(.minutes(1)))
    func stopsOnSIGTERM() async throws {
        let headUnit = HeadUnitEmulator()
        let port = try await headUnit.listen(port: 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("media-app")
        process.arguments = ["--tcp", "127.0.0.1:\(port)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        #expect(await headUnit.waitUntil { $0.app("sdl-music-0001") != nil }, "the app registered")
        process.terminate()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && said.hasSuffix("stopped\n"), "\(process.terminationStatus): \(said)")
        #expect(await headUnit.waitUntil { $0.app("sdl-music-0001") == nil }, "the app unregistered")
        await headUnit.stop()
    }

    // MARK: - The driver's view

    static func softButton(_ text: String, in headUnit: HeadUnitEmulator, _ appID: String) async throws -> Int {
        let buttons = await headUnit.snapshot().app(appID)?.show["softButtons"]?.arrayValue ?? []
        let button = try #require(buttons.first { $0["text"]?.stringValue == text }, "no soft button \(text) in \(buttons)")
        return Int(try #require(button["softButtonID"]?.intValue))
    }

    static func command(_ name: String, in headUnit: HeadUnitEmulator, _ appID: String) async throws -> Int {
        let commands = await headUnit.snapshot().app(appID)?.commands ?? [:]
        return try #require(commands.first { $0.value.menuParams?.menuName == name }?.key, "no command \(name)")
    }

    /// The id of the choice called `text`, once the app has created it.
    static func choice(_ text: String, in headUnit: HeadUnitEmulator, _ appID: String) async throws -> Int {
        for _ in 0..<100 {
            let sets = await headUnit.snapshot().app(appID)?.choiceSets.values.map { $0 } ?? []
            if let choice = sets.flatMap(\.choiceSet).first(where: { $0.menuName == text }) { return choice.choiceID }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DriverError("no choice \(text) was created")
    }

    /// The first soft button of the alert on screen, from what the HMI was sent.
    static func alertButton(in headUnit: HeadUnitEmulator) async throws -> Int {
        for _ in 0..<100 {
            let answer = await headUnit.control(["action": "hmiMessages", "since": 0])
            let alerts = answer["messages"]?.arrayValue?.filter { $0["method"] == "UI.Alert" } ?? []
            if let id = alerts.last?["params"]?["softButtons"]?.arrayValue?.first?["softButtonID"]?.intValue { return Int(id) }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DriverError("no alert with a soft button reached the HMI")
    }

    /// Tries a driver action until the app's view is there to take it (a choice set or a
    /// recording is presented a moment after the app asks for it).
    static func retrying(_ action: () async throws -> Void) async throws {
        for attempt in 1...100 {
            do { return try await action() } catch where attempt < 100 { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    /// Runs the built `media-app` beside this test bundle.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("media-app")
        process.arguments = arguments
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }
}

struct DriverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the app printed, line by line, in order.
final class Terminal: Sendable {
    private let state = Mutex<(lines: [String], read: Int)>(([], 0))

    var lines: [String] { state.withLock { $0.lines } }

    func add(_ line: String) { state.withLock { $0.lines.append(line) } }

    /// Waits (ten seconds at most) for a line after the last one matched that is `line`.
    func expect(_ line: String) async throws {
        _ = try await expect { $0 == line }
    }

    /// Waits for a line after the last one matched that `matches`; returns it.
    @discardableResult
    func expect(_ matches: @escaping @Sendable (String) -> Bool) async throws -> String {
        for _ in 0..<200 {
            let found: String? = state.withLock { state in
                guard let index = state.lines[state.read...].firstIndex(where: matches) else { return nil }
                state.read = index + 1
                return state.lines[index]
            }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DriverError("the app did not say it; it said: " + state.withLock { $0.lines[$0.read...].joined(separator: " | ") })
    }
}
