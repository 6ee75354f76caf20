import Foundation
import SDLScenario
@testable import SDLCoreHMI
import SmartDeviceLink
import Testing

/// sdl-run as the HMI of sdl_core, against Tests/Peers/fake_core_hmi.py (the HMI side of
/// core, over a real WebSocket from Debian's python3-websockets).
@Suite("sdl-run as sdl_core's HMI")
struct CoreHMITests {
    static let peer = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/fake_core_hmi.py").path

    /// The next message the HMI sent the fake core.
    static func message(from core: BackgroundProcess) async throws -> JSONObject {
        let line = await core.nextLine()
        guard case .object(let message) = try JSONValue.parse(Array(line.utf8)) else { throw CoreHMI.Failure(description: line) }
        return message
    }

    /// The fake core, and sdl-run's HMI on it past what it says at start and to the alerts the
    /// core shows then (`drivesCore` checks those).
    static func startedPastStartUp() async throws -> (BackgroundProcess, CoreHMI) {
        let core = try await BackgroundProcess("/usr/bin/python3", [peer])
        do {
            let hmi = try CoreHMI(url: "ws://127.0.0.1:\(core.firstLine)")
            try await hmi.start()
            // In any order: the HMI may answer core's first requests before it says the time is
            // ready (a fixed count after OnSystemTimeReady then waited for a message that only
            // the test's next step brings, and hung the run).
            var awaited: Set<String> = ["BasicCommunication.OnSystemTimeReady", "result 7", "BasicCommunication.OnSystemCapabilityUpdated",
                                        "UI.OnSystemContext", "result 9"]
            while !awaited.isEmpty {
                let next = try await message(from: core)
                awaited.remove(next["method"]?.stringValue ?? "result \(next["id"]?.serialized() ?? "")")
            }
            return (core, hmi)
        } catch {
            core.stop()
            throw error
        }
    }

    @Test("it registers the components, subscribes, says OnReady, answers core's requests; driver steps become SDL.ActivateApp, UI.OnCommand and VehicleInfo.OnVehicleData with core's app id")
    func drivesCore() async throws {
        let core = try await BackgroundProcess("/usr/bin/python3", [Self.peer])
        defer { core.stop() }
        let port = core.firstLine
        let hmi = try CoreHMI(url: "ws://127.0.0.1:\(port)")
        try await hmi.start()
        var seen: [JSONObject] = []
        func next() async throws -> JSONObject {
            let message = try await Self.message(from: core)
            seen.append(message)
            return message
        }
        for _ in 0..<(9 + 4) { _ = try await next() }
        #expect(seen.prefix(9).compactMap { $0["params"]?["componentName"]?.stringValue }
                == ["BasicCommunication", "UI", "VR", "TTS", "VehicleInfo", "Navigation", "Buttons", "RC", "AppService"])
        #expect(try await next()["method"] == "BasicCommunication.OnReady")
        // Then, in whatever order the HMI's tasks get to them: the time ready (as generic_hmi:
        // core's security manager asks for the time only after OnReady), the answer to core's
        // first request, the display pushed for the app, and the two alerts.
        var after: [JSONObject] = []
        for _ in 0..<5 { after.append(try await next()) }
        #expect(after.contains { $0["method"] == "BasicCommunication.OnSystemTimeReady" })
        let answer = try #require(after.first { $0["id"] == 7 })
        #expect(answer["result"]?["language"] == "EN-US" && answer["result"]?["code"] == 0)
        // As sdl_hmi: a registered app's display, of the template its kind gets.
        let display = try #require(after.first { $0["method"] == "BasicCommunication.OnSystemCapabilityUpdated" })
        #expect(display["params"]?["appID"] == 654)
        #expect(display["params"]?["systemCapability"]?["displayCapabilities"] == [.object(try #require(SDLHMIStartup.displays["NON-MEDIA"]))])
        // The first alert is shown (ALERT), the second REJECTED (HMI_API Common.Result 4).
        #expect(after.contains { $0["method"] == "UI.OnSystemContext" && $0["params"] == ["systemContext": "ALERT", "appID": 654] })
        #expect(after.contains { $0["id"] == 9 && $0["error"]?["code"] == 4 })

        try await hmi.perform(DriverAction(name: "activateApp", arguments: ["appID": "app-x"]))
        let activate = try await next()
        #expect(activate["method"] == "SDL.ActivateApp" && activate["params"]?["appID"] == 654)
        try await hmi.perform(DriverAction(name: "selectCommand", arguments: ["cmdID": 3]))
        let command = try await next()
        #expect(command["method"] == "UI.OnCommand" && command["params"] == ["cmdID": 3, "appID": 654])
        // A press on the alert's soft button: the button notifications, then the alert ends.
        try await hmi.perform(DriverAction(name: "pressSoftButton", arguments: ["id": 1]))
        var pressed: [String] = []
        for _ in 0..<5 {
            let message = try await next()
            pressed.append(message["method"]?.stringValue ?? "result \(message["id"]?.intValue ?? -1)")
        }
        #expect(pressed == ["Buttons.OnButtonEvent", "Buttons.OnButtonEvent", "Buttons.OnButtonPress", "result 8", "UI.OnSystemContext"])
        try await hmi.perform(DriverAction(name: "setVehicleData", arguments: ["values": ["speed": 50.5]]))
        let data = try await next()
        #expect(data["method"] == "VehicleInfo.OnVehicleData" && data["params"] == ["speed": 50.5])
        // The car starts: the HMI says the state, core adds the policy's dismissal for the apps.
        try await hmi.perform(DriverAction(name: "driverDistraction", arguments: ["state": "on"]))
        let distraction = try await next()
        #expect(distraction["method"] == "UI.OnDriverDistraction" && distraction["params"] == ["state": "DD_ON"])
        await #expect(throws: CoreHMI.Failure.self) { try await hmi.perform(DriverAction(name: "driverDistraction", arguments: ["state": "parked"])) }
        await #expect(throws: CoreHMI.Failure.self) { try await hmi.perform(DriverAction(name: "typeOnKeyboard", arguments: ["text": "x"])) }
        await hmi.stop()
    }

    @Test("a policy table update as sdl_hmi plays it: SDL.UpdateSDL, the snapshot's file named to core with sdl_hmi's parameters, the app's answer handed to core's policy manager")
    func policyUpdate() async throws {
        let (core, hmi) = try await Self.startedPastStartUp()
        defer { core.stop() }
        var methods: [String] = []
        try await hmi.perform(DriverAction(name: "updatePolicy"))
        var messages: [JSONObject] = []
        while messages.last?["method"] != "SDL.OnReceivedPolicyUpdate" {
            let message = try await Self.message(from: core)
            messages.append(message)
            methods.append(message["method"]?.stringValue ?? "result \(message["id"]?.intValue ?? -1)")
        }
        #expect(methods == ["SDL.UpdateSDL", "result 20", "BasicCommunication.OnSystemRequest", "result 21", "SDL.OnReceivedPolicyUpdate"])
        #expect(messages[2]["params"] == ["requestType": "PROPRIETARY", "fileType": "JSON", "timeout": 1000,
                                          "fileName": "/tmp/fs/mp/images/ivsu_cache/sdl_snapshot.json"])
        #expect(messages[4]["params"] == ["policyfile": "/tmp/fs/mp/images/ivsu_cache/0SYNC"])
        await hmi.stop()
    }

    @Test("the driver's route as sdl_hmi keeps it: setWayPoints tells core, a location an app sends joins it, GetWayPoints answers both")
    func wayPoints() async throws {
        let (core, hmi) = try await Self.startedPastStartUp()
        defer { core.stop() }
        func next() async throws -> JSONObject { try await Self.message(from: core) }
        let home: JSONValue = ["locationName": "Home", "coordinate": ["latitudeDegrees": 1, "longitudeDegrees": 2]]
        try await hmi.perform(DriverAction(name: "setWayPoints", arguments: ["wayPoints": [home]]))
        #expect(try await next() == ["jsonrpc": "2.0", "method": "Navigation.OnWayPointChange", "params": ["wayPoints": [home]]])
        #expect(try await next()["id"] == 30)
        let answer = try await next()
        #expect(answer["id"] == 31 && answer["result"]?["wayPoints"] == [home, ["locationName": "Detroit",
                "coordinate": ["latitudeDegrees": 42.33, "longitudeDegrees": -83.05]]], "\(answer)")
        await hmi.stop()
    }

    @Test("widgets as sdl_hmi shows them: two activations of the window; a new window's and a new template's capabilities told to core")
    func widgets() async throws {
        let (core, hmi) = try await Self.startedPastStartUp()
        defer { core.stop() }
        func next() async throws -> JSONObject { try await Self.message(from: core) }
        try await hmi.perform(DriverAction(name: "showWidget", arguments: ["appID": "app-x", "windowID": 1]))
        for _ in 0..<2 { #expect(try await next() == ["jsonrpc": "2.0", "method": "BasicCommunication.OnAppActivated", "params": ["appID": 654, "windowID": 1]]) }
        var messages: [JSONObject] = []
        for _ in 0..<5 { messages.append(try await next()) }
        #expect(messages.map { $0["method"]?.stringValue ?? "result \($0["id"]?.intValue ?? -1)" }
                == ["result 40", "BasicCommunication.OnSystemCapabilityUpdated", "result 41", "BasicCommunication.OnSystemCapabilityUpdated", "result 42"],
                "the same template twice is told once")
        let windows = messages[1]["params"]?["systemCapability"]?["displayCapabilities"]?.arrayValue?.first?["windowCapabilities"]
        #expect(windows?.arrayValue?.map { $0["windowID"] } == [2])
        try await hmi.perform(DriverAction(name: "showWidget", arguments: ["appID": "app-x", "windowID": 1, "visible": false]))
        #expect(try await next() == ["jsonrpc": "2.0", "method": "BasicCommunication.OnAppDeactivated", "params": ["appID": 654, "windowID": 1]])
        await hmi.stop()
    }

    @Test("configured answers (--hmi-config) go over the generic HMI's: UI.GetLanguage answered with DE-DE")
    func configuredAnswers() async throws {
        let core = try await BackgroundProcess("/usr/bin/python3", [Self.peer])
        defer { core.stop() }
        let hmi = try CoreHMI(url: "ws://127.0.0.1:\(core.firstLine)", answers: ["UI.GetLanguage": ["language": "DE-DE"]])
        try await hmi.start()
        var answer: JSONValue?
        while answer == nil {
            let line = await core.nextLine()
            guard !line.isEmpty else { break }
            let message = try JSONValue.parse(Array(line.utf8))
            if message["id"] == 7, message["result"] != nil { answer = message["result"] }
        }
        #expect(answer?["language"] == "DE-DE" && answer?["code"] == 0 && answer?["method"] == "UI.GetLanguage")
        await hmi.stop()
    }

    @Test("a URL that is not ws://HOST:PORT, and a port nobody listens on, fail saying what to give")
    func badEndpoints() async throws {
        #expect(throws: CoreHMI.Failure.self) { try CoreHMI(url: "http://127.0.0.1:8087") }
        let nobody = try CoreHMI(url: "ws://127.0.0.1:1")
        await #expect { try await nobody.start() } throws: { "\($0)".contains("cannot reach core's HMI WebSocket at 127.0.0.1:1") }
    }
}
