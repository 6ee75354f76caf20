@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// The control channel and the scenario language share one table of driver actions.
@Suite("Control channel: one table of driver actions")
struct ControlChannelTests {
    @Test("help lists every action with its parameters; the table is what the control channel runs")
    func help() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let answer = await headUnit.control(["action": "help"])
        #expect(answer["ok"] == true)
        let listed = (answer["actions"]?.arrayValue ?? []).compactMap { $0.objectValue?["action"]?.stringValue }
        #expect(listed == HeadUnitEmulator.driverActions.map(\.name))
        let select = answer["actions"]?.arrayValue?.first { $0.objectValue?["action"] == "selectCommand" }?.objectValue
        let parameters = (select?["parameters"]?.arrayValue ?? []).compactMap { $0.objectValue }
        #expect(parameters.first?["name"] == "cmdID")
        #expect(parameters.first?["required"] == true)
        await headUnit.stop()
    }

    @Test("a typo gets a did-you-mean; a missing argument names the action and the argument")
    func errors() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let typo = await headUnit.control(["action": "activatApp", "id": 7])
        #expect(typo["ok"] == false)
        #expect(typo["error"]?.stringValue?.contains("did you mean \"activateApp\"") == true)
        #expect(typo["id"] == 7)
        let missing = await headUnit.control(["action": "selectCommand"])
        #expect(missing["error"]?.stringValue?.contains("selectCommand needs an integer \"cmdID\"") == true)
        await headUnit.stop()
    }

    @Test("the table drives a real action: activateApp brings the app to FULL; setVehicleData takes values or one name")
    func runsActions() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register()
        #expect(await headUnit.control(["action": "activateApp"])["ok"] == true)
        #expect(await headUnit.snapshot().apps.first?.hmiLevel == "FULL")
        #expect(await headUnit.control(["action": "setVehicleData", "values": ["speed": 42.5]])["ok"] == true)
        #expect(await headUnit.control(["action": "setVehicleData", "name": "rpm", "value": 900])["ok"] == true)
        #expect(await headUnit.snapshot().vehicleData["speed"] == 42.5)
        #expect(await headUnit.snapshot().vehicleData["rpm"] == 900)
        let unknown = await headUnit.control(["action": "setVehicleData", "values": ["sped": 1]])
        #expect(unknown["ok"] == false)
        await headUnit.stop()
    }

    @Test("the HMI's answer to GetVehicleData of an unavailable item is set from the control channel, info passed on as core does")
    func unavailableVehicleDataAnswer() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        let set = await headUnit.control(["action": "setVehicleDataUnavailable", "name": "gps",
                                          "resultCode": "DATA_NOT_AVAILABLE", "info": "GPS is warming up"])
        #expect(set["ok"] == true)
        let answer = try await app.request("GetVehicleData", ["gps": true])
        // The HMI's DATA_NOT_AVAILABLE reaches the app as VEHICLE_DATA_NOT_AVAILABLE, as core maps it.
        #expect(answer.resultCode == "VEHICLE_DATA_NOT_AVAILABLE" && answer["info"] == "GPS is warming up" && answer.success == false)
        let wrong = await headUnit.control(["action": "setVehicleDataUnavailable", "name": "gps", "resultCode": "NOPE"])
        #expect(wrong["ok"] == false && wrong["error"]?.stringValue?.contains("NOPE is not a result code of the HMI API") == true)
        await headUnit.stop()
    }
}
