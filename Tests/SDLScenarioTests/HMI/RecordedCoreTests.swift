import Foundation
import SDLCoreHMI
import SDLScenario
import SmartDeviceLink
import Testing

/// sdl-run's HMI against core's side of a recorded exchange with a real sdl_core 8.2
/// (Tests/SDLScenarioTests/Fixtures/core-hmi, made with Tests/Peers/hmi_recorder.py while
/// examples/alert.json and keyboard.json ran). The peer replays what core sent and checks that
/// the HMI answers, notifies and acts as it did then; the test does the driver steps when the
/// recording says a person acted.
@Suite("sdl-run's HMI against a recorded sdl_core 8.2")
struct RecordedCoreTests {
    static let peer = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/recorded_core_hmi.py").path
    static func recording(_ name: String) -> String {
        CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/core-hmi/\(name).jsonl").path
    }

    /// The driver step that makes an HMI send the first of `messages` (a recorded run of HMI
    /// messages), if a person's, and how many of them it makes.
    static func driverStep(for messages: [JSONValue]) -> (action: DriverAction, makes: Int)? {
        guard let first = messages.first, let method = first["method"]?.stringValue else { return nil }
        let params = first["params"]?.objectValue ?? [:]
        switch (method, params["event"]?.stringValue) {
        case ("SDL.ActivateApp", _):
            return (DriverAction(name: "activateApp"), 1)
        case ("Buttons.OnButtonEvent", _):
            // Down, up, then the press.
            return (DriverAction(name: "pressSoftButton", arguments: ["softButtonID": params["customButtonID"] ?? .null]), 3)
        case ("UI.OnKeyboardInput", "KEYPRESS"?):
            let keys = messages.prefix { $0["params"]?["event"] == "KEYPRESS" }
            return (DriverAction(name: "typeOnKeyboard", arguments: ["text": keys.last?["params"]?["data"] ?? ""]), keys.count)
        case ("UI.OnKeyboardInput", "ENTRY_SUBMITTED"?):
            return (DriverAction(name: "submitKeyboard", arguments: ["text": params["data"] ?? ""]), 1)
        case ("UI.OnCommand", _):
            return (DriverAction(name: "selectCommand", arguments: ["cmdID": params["cmdID"] ?? .null]), 1)
        case ("BasicCommunication.OnExitApplication", _):
            return (DriverAction(name: "exitApp"), 1)
        default:
            return nil
        }
    }

    @Test("the HMI says and does what it did with the real core", arguments: ["alert", "keyboard"])
    func replays(_ name: String) async throws {
        let core = try await BackgroundProcess("/usr/bin/python3", [Self.peer, Self.recording(name)])
        defer { core.stop() }
        let hmi = try CoreHMI(url: "ws://127.0.0.1:\(core.firstLine)")
        try await hmi.start()
        var performed: [String] = []
        var handledUntil = 0
        while true {
            let line = await core.nextLine()
            guard !line.isEmpty, case .object(let report) = try JSONValue.parse(Array(line.utf8)) else {
                Issue.record("the peer ended without a summary")
                break
            }
            if let summary = report["replayed"] {
                #expect(report["mismatches"]?.arrayValue?.isEmpty == true, "\(line)")
                #expect(summary == report["replayed"] && (report["checked"]?.intValue ?? 0) > 20, "\(line)")
                break
            }
            guard let index = report["waiting"]?.intValue, Int(index) >= handledUntil,
                  let messages = report["messages"]?.arrayValue, let step = Self.driverStep(for: messages) else { continue }
            handledUntil = Int(index) + step.makes
            try await hmi.perform(step.action)
            performed.append(step.action.name)
        }
        await hmi.stop()
        let expected = name == "alert" ? ["activateApp", "pressSoftButton"]
            : ["activateApp", "typeOnKeyboard", "submitKeyboard", "selectCommand", "exitApp"]
        #expect(performed == expected)
    }
}
