import Testing
import SmartDeviceLink
@testable import SDLEmulator

/// Remote control as sdl_core 8.2 with sdl_hmi 5.8.0 does it (the texts and order measured on them).
@Suite("Remote control: modules, access modes, consent, subscriptions")
struct RemoteControlTests {
    static let rc: JSONObject = ["appHMIType": ["REMOTE_CONTROL"]]

    /// A REMOTE_CONTROL app in FULL, its registration's OnRCStatus taken.
    func rcApp(_ headUnit: HeadUnitEmulator, _ appID: String = "climate-1") async throws -> TestApp {
        let app = try await TestApp.connect(headUnit)
        try await app.register(name: appID, appID: appID, extra: Self.rc)
        let status = try await app.next("OnRCStatus")
        #expect(status["allowed"] == true && status["allocatedModules"] == [])
        try await headUnit.activateApp(appID)
        _ = try await app.next("OnHMIStatus")
        return app
    }

    func climate(_ values: JSONObject, id: String? = nil) -> JSONObject {
        var data: JSONObject = ["moduleType": "CLIMATE", "climateControlData": .object(values)]
        if let id { data["moduleId"] = .string(id) }
        return ["moduleData": .object(data)]
    }

    @Test("core's checks in core's order and words: no RC in the HMI, not an RC app, RC off, a type the policy leaves out, no such module")
    func refusals() async throws {
        let none = HeadUnitEmulator(configuration: fastConfiguration { $0.remoteControl.capability = nil })
        let withoutRC = try await rcApp(none)
        let unsupported = try await withoutRC.request("GetInteriorVehicleData", ["moduleType": "CLIMATE"])
        #expect(unsupported.resultCode == "UNSUPPORTED_RESOURCE" && unsupported["info"] == "RC is not supported by system")
        await none.stop()

        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.policy.moduleTypes["climate-1"] = ["RADIO"] })
        let app = try await rcApp(headUnit)
        let media = try await activeApp(headUnit, name: "Plain", appID: "plain-1")
        let notRC = try await media.request("GetInteriorVehicleData", ["moduleType": "RADIO"])
        #expect(notRC.resultCode == "DISALLOWED" && notRC["info"] == nil, "core answers an app without REMOTE_CONTROL with no info")
        try await headUnit.activateApp("climate-1")
        let byPolicy = try await app.request("GetInteriorVehicleData", ["moduleType": "CLIMATE"])
        #expect(byPolicy.resultCode == "DISALLOWED" && byPolicy["info"] == "The RPC is disallowed by vehicle settings")
        let noModule = try await app.request("GetInteriorVehicleData", ["moduleType": "RADIO", "moduleId": "no-such-radio"])
        #expect(noModule.resultCode == "UNSUPPORTED_RESOURCE" && noModule["info"] == "Accessing not supported module data")
        try await headUnit.setRemoteControlSettings(allowed: false, accessMode: nil)
        let off = try await app.request("GetInteriorVehicleData", ["moduleType": "RADIO"])
        #expect(off.resultCode == "USER_DISALLOWED" && off["info"] == "Remote control is disabled by user")
        #expect(try await app.next("OnRCStatus")["allowed"] == false)
        await headUnit.stop()
    }

    @Test("reading subscribes once (WARNINGS the second time), a set reaches the subscriber and makes the module the app's; read-only parameters are cut off")
    func readSetAndSubscribe() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await rcApp(headUnit)
        let read = try await app.request("GetInteriorVehicleData", ["moduleType": "CLIMATE", "subscribe": true])
        #expect(read.resultCode == "SUCCESS" && read["isSubscribed"] == true)
        #expect(read["moduleData"]?["climateControlData"]?["desiredTemperature"]?["value"] == 25, "sdl_hmi's climate")
        _ = try await app.next("OnHashChange")
        let again = try await app.request("GetInteriorVehicleData", ["moduleType": "CLIMATE", "subscribe": true])
        #expect(again.resultCode == "WARNINGS" && again["info"] == "App is already subscribed to the provided module")

        let readOnly = try await app.request("SetInteriorVehicleData", climate(["currentTemperature": ["unit": "CELSIUS", "value": 30]]))
        #expect(readOnly.resultCode == "READ_ONLY" && readOnly["info"] == "All request params in module type are READ ONLY!")
        let set = try await app.request("SetInteriorVehicleData", climate(["fanSpeed": 40, "currentTemperature": ["unit": "CELSIUS", "value": 30]]))
        #expect(set.resultCode == "SUCCESS" && set["moduleData"]?["climateControlData"] == ["fanSpeed": 40], "the read-only part is dropped")
        #expect(try await app.next("OnInteriorVehicleData")["moduleData"]?["climateControlData"] == ["fanSpeed": 40])
        let status = try await app.next("OnRCStatus")
        #expect(status["allocatedModules"]?.arrayValue?.first?["moduleType"] == "CLIMATE")
        #expect(status["freeModules"]?.arrayValue?.count == 10, "sdl_hmi has 11 modules")
        let mismatch = try await app.request("SetInteriorVehicleData", ["moduleData": ["moduleType": "CLIMATE", "radioControlData": ["frequencyInteger": 101]]])
        #expect(mismatch.resultCode == "INVALID_DATA" && mismatch["info"] == "Request module type & data mismatch!")

        try await headUnit.setInteriorVehicleData(["moduleType": "CLIMATE", "climateControlData": ["fanSpeed": 10]])
        #expect(try await app.next("OnInteriorVehicleData")["moduleData"]?["climateControlData"] == ["fanSpeed": 10], "the driver turned the knob")
        #expect(try await app.request("GetInteriorVehicleData", ["moduleType": "CLIMATE"])["moduleData"]?["climateControlData"]?["fanSpeed"] == 10)
        await #expect(throws: EmulatorError.self) { try await headUnit.setInteriorVehicleData(["moduleType": "CLIMATE", "moduleId": "nope", "climateControlData": ["fanSpeed": 1]]) }

        let off = try await app.request("SetInteriorVehicleData", ["moduleData": ["moduleType": "RADIO", "radioControlData": ["radioEnable": false]]])
        #expect(off.resultCode == "SUCCESS")
        #expect(try await app.request("GetInteriorVehicleData", ["moduleType": "RADIO"])["moduleData"]?["radioControlData"] == ["radioEnable": false],
                "a radio switched off shows only that")
        await headUnit.stop()
    }

    @Test("buttons do what sdl_hmi's do; a button of another module type is INVALID_DATA")
    func buttons() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await rcApp(headUnit)
        _ = try await app.request("GetInteriorVehicleData", ["moduleType": "CLIMATE", "subscribe": true])
        _ = try await app.request("GetInteriorVehicleData", ["moduleType": "AUDIO", "subscribe": true])
        for (button, type, change) in [("FAN_UP", "CLIMATE", ["fanSpeed": 1]), ("DEFROST_MAX", "CLIMATE", ["defrostZone": "ALL"]),
                                       ("DEFROST", "CLIMATE", ["defrostZone": "REAR"]), ("AC", "CLIMATE", ["acEnable": false]),
                                       ("VOLUME_UP", "RADIO", ["volume": 51])] as [(String, String, JSONObject)] {
            let press = try await app.request("ButtonPress", ["moduleType": .string(type), "buttonName": .string(button), "buttonPressMode": "SHORT"])
            #expect(press.resultCode == "SUCCESS", "\(button)")
            let data = try await app.next("OnInteriorVehicleData")["moduleData"]
            #expect(data?["climateControlData"] ?? data?["audioControlData"] == .object(change), "\(button)")
        }
        let mismatch = try await app.request("ButtonPress", ["moduleType": "RADIO", "buttonName": "AC", "buttonPressMode": "SHORT"])
        #expect(mismatch.resultCode == "INVALID_DATA" && mismatch["info"] == "Request module type and button name mismatch!")
        await headUnit.stop()
    }

    @Test("a module another app holds: taken over (AUTO_ALLOW), IN_USE (AUTO_DENY), REJECTED out of FULL or for a seat, the driver asked (ASK_DRIVER)")
    func accessModes() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await rcApp(headUnit, "first-1")
        #expect(try await first.request("SetInteriorVehicleData", climate(["fanSpeed": 10])).resultCode == "SUCCESS")
        #expect(try await first.request("SetInteriorVehicleData", ["moduleData": ["moduleType": "SEAT", "seatControlData": ["id": "DRIVER", "heatingEnabled": true]]]).resultCode == "SUCCESS")
        let second = try await rcApp(headUnit, "second-1")
        let fromBackground = try await first.request("SetInteriorVehicleData", ["moduleData": ["moduleType": "RADIO", "radioControlData": ["frequencyInteger": 99]]])
        #expect(fromBackground.resultCode == "SUCCESS", "a free module is anyone's")
        let seat = try await second.request("SetInteriorVehicleData", ["moduleData": ["moduleType": "SEAT", "seatControlData": ["id": "DRIVER", "heatingEnabled": false]]])
        #expect(seat.resultCode == "REJECTED", "sdl_hmi's seats allow no multiple access")

        try await headUnit.setRemoteControlSettings(allowed: nil, accessMode: "AUTO_DENY")
        #expect(try await second.request("SetInteriorVehicleData", climate(["fanSpeed": 20])).resultCode == "IN_USE")
        try await headUnit.setRemoteControlSettings(allowed: nil, accessMode: "AUTO_ALLOW")
        #expect(try await second.request("SetInteriorVehicleData", climate(["fanSpeed": 20])).resultCode == "SUCCESS")
        let outOfFull = try await first.request("SetInteriorVehicleData", climate(["fanSpeed": 30]))
        #expect(outOfFull.resultCode == "REJECTED" && outOfFull["info"] == nil, "first is in BACKGROUND now")

        try await headUnit.setRemoteControlSettings(allowed: nil, accessMode: "ASK_DRIVER")
        try await headUnit.activateApp("first-1")
        async let asked = first.request("SetInteriorVehicleData", climate(["fanSpeed": 30]))
        try await waitForQuestion(headUnit)
        try await headUnit.answerConsent(false)
        let refused = try await asked
        #expect(refused.resultCode == "REJECTED")
        #expect(refused["info"]?.stringValue?.hasSuffix("] is in use and the driver disallows this remote control RPC") == true)
        let remembered = try await first.request("SetInteriorVehicleData", climate(["fanSpeed": 30]))
        #expect(remembered.resultCode == "REJECTED" && remembered["info"] == nil, "core does not ask again")
        await #expect(throws: EmulatorError.self) { try await headUnit.answerConsent(true, within: .milliseconds(50)) }
        await headUnit.stop()
    }

    @Test("GetInteriorVehicleDataConsent: computed where the mode decides, the driver asked for a module in use; Release in core's words; leaving frees the modules")
    func consentAndRelease() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.remoteControl.accessMode = "ASK_DRIVER" })
        let first = try await rcApp(headUnit, "first-1")
        let free = try await first.request("GetInteriorVehicleDataConsent", ["moduleType": "CLIMATE", "moduleIds": []])
        #expect(free.resultCode == "SUCCESS" && free["allowed"] == [true], "a free module needs no question")
        #expect(try await first.request("SetInteriorVehicleData", climate(["fanSpeed": 10])).resultCode == "SUCCESS")
        let second = try await rcApp(headUnit, "second-1")
        async let consent = second.request("GetInteriorVehicleDataConsent", ["moduleType": "CLIMATE", "moduleIds": []])
        try await waitForQuestion(headUnit)
        try await headUnit.answerConsent(true)
        #expect(try await consent["allowed"] == [true])
        #expect(try await second.request("SetInteriorVehicleData", climate(["fanSpeed": 20])).resultCode == "SUCCESS", "the driver's yes is kept")

        let notMine = try await first.request("ReleaseInteriorVehicleDataModule", ["moduleType": "CLIMATE"])
        #expect(notMine.resultCode == "REJECTED" && notMine["info"]?.stringValue?.hasSuffix("] is allocated to a different application.") == true)
        let released = try await second.request("ReleaseInteriorVehicleDataModule", ["moduleType": "CLIMATE"])
        #expect(released.resultCode == "SUCCESS" && released["info"]?.stringValue?.hasSuffix("] is released successfully.") == true)
        let again = try await second.request("ReleaseInteriorVehicleDataModule", ["moduleType": "CLIMATE"])
        #expect(again.resultCode == "IGNORED" && again["info"]?.stringValue?.hasSuffix("] is not allocated to any application.") == true)

        #expect(try await second.request("SetInteriorVehicleData", climate(["fanSpeed": 20])).resultCode == "SUCCESS")
        try await first.sync()
        _ = await first.inbox.take("OnRCStatus")
        _ = try await second.request("UnregisterAppInterface")
        let status = try await first.next("OnRCStatus")
        #expect(status["freeModules"]?.arrayValue?.count == 11, "the app that left gave the climate back")
        await headUnit.stop()
    }

    private func waitForQuestion(_ headUnit: HeadUnitEmulator) async throws {
        #expect(await headUnit.waitUntil(timeout: .seconds(1)) { $0.remoteControl["askingDriver"] != nil }, "the driver is asked")
    }
}
