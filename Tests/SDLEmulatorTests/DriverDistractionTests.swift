@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// The car starting and stopping, as core tells apps (on_driver_distraction_notification.cc),
/// and the lock screen part of its policy table.
@Suite("Driver distraction and the lock screen policy, as core sends them")
struct DriverDistractionTests {
    /// An app registered and past the notifications core sends after the registration.
    func registered(_ headUnit: HeadUnitEmulator, appID: String) async throws -> TestApp {
        let app = try await TestApp.connect(headUnit)
        _ = try await app.request("RegisterAppInterface", TestApp.registration(name: appID, appID: appID))
        return app
    }

    @Test("driverDistraction on/off reaches every app with the policy's dismissal and warning")
    func everyAppHears() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await registered(headUnit, appID: "dd-1"), second = try await registered(headUnit, appID: "dd-2")
        for app in [first, second] { #expect(try await app.next("OnDriverDistraction")["state"] == "DD_OFF") }
        let action = try #require(HeadUnitEmulator.driverAction(named: "driverDistraction"))
        _ = try await action.run(headUnit, DriverArguments(action: "driverDistraction", values: ["state": "on"]))
        for app in [first, second] {
            let moving = try await app.next("OnDriverDistraction")
            #expect(moving["state"] == "DD_ON" && moving["lockScreenDismissalEnabled"] == true)
            #expect(moving["lockScreenDismissalWarning"] == "Swipe down to dismiss, acknowledging that you are not the driver")
        }
        await headUnit.stop()
    }

    @Test("a state that is neither on nor off is an error that says which are")
    func badState() async throws {
        #expect(throws: EmulatorError.invalidAction("driverDistraction's state is on or off (DD_ON, DD_OFF), not parked")) {
            try HeadUnitEmulator.distraction("parked")
        }
        #expect(try HeadUnitEmulator.distraction("DD_ON") == true && HeadUnitEmulator.distraction("off") == false)
    }

    @Test("the policy's lock screen: no icon URL, no OnSystemRequest; no dismissal; enabled without a warning is not enabled",
          arguments: [(#"{"lockScreen": {"iconURL": null}}"#, true, true),
                      (#"{"lockScreen": {"dismissalEnabled": false}}"#, false, false),
                      (#"{"lockScreen": {"dismissalWarning": null}}"#, false, false)])
    func policy(json: String, dismissible: Bool, warned: Bool) async throws {
        var configuration = try EmulatorConfiguration(json: try JSONValue.parse(Array(json.utf8)).objectValue ?? [:])
        configuration.timeScale = 0.01
        let headUnit = HeadUnitEmulator(configuration: configuration)
        let app = try await registered(headUnit, appID: "dd-policy")
        let distraction = try await app.next("OnDriverDistraction")
        #expect(distraction["lockScreenDismissalEnabled"] == .bool(dismissible))
        #expect((distraction["lockScreenDismissalWarning"] != nil) == warned)
        let iconSent = await app.inbox.take("OnSystemRequest").contains { $0["requestType"] == "LOCK_SCREEN_ICON_URL" }
        #expect(iconSent == !json.contains("iconURL"))
        await headUnit.stop()
    }

    @Test("an app whose policy does not allow OnDriverDistraction in NONE gets the last state when it reaches FULL")
    func postponedUntilAllowed() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { configuration in
            var mine = PolicyTable.base
            mine["OnDriverDistraction"] = ["FULL", "LIMITED", "BACKGROUND"]
            configuration.policy.apps["dd-late"] = mine
        })
        let app = try await registered(headUnit, appID: "dd-late")
        await headUnit.setDriverDistraction(true)
        await headUnit.setDriverDistraction(false)
        try await app.sync()
        #expect(await app.inbox.take("OnDriverDistraction").isEmpty, "not in NONE")
        try await headUnit.activateApp("dd-late")
        _ = try await app.next("OnHMIStatus")
        let postponed = try await app.next("OnDriverDistraction")
        #expect(postponed["state"] == "DD_OFF", "the last state, once")
        try await app.sync()
        #expect(await app.inbox.take("OnDriverDistraction").isEmpty)
        await headUnit.stop()
    }

    @Test("the configuration refuses a lockScreen key it does not know, and a dismissal that is not a boolean")
    func configurationErrors() {
        for json in [#"{"lockScreen": {"iconUrl": "x"}}"#, #"{"lockScreen": {"dismissalEnabled": "yes"}}"#] {
            #expect(throws: EmulatorConfigurationError.self) { try EmulatorConfiguration(json: try JSONValue.parse(Array(json.utf8)).objectValue ?? [:]) }
        }
    }
}
