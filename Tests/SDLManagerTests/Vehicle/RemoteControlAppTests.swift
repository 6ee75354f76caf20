import SDLEmulator
import SmartDeviceLink
import Testing

/// A climate app as an app developer writes it with the library: typed RPCs, the system
/// capability manager and the notification stream, against the emulator's remote control.
@Suite("A remote-control app written with the library")
struct RemoteControlAppTests {
    @Test("reads the climate, sets the temperature, holds the module, and sees the driver's change arrive")
    func climateApp() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, name: "Climate", appID: "climate-app") { $0.appTypes = [.remoteControl] })
        let statuses = await manager.notifications(OnRCStatus.self)
        let changes = await manager.notifications(OnInteriorVehicleData.self)
        try await manager.start()
        try await emulator.activateApp("climate-app")
        _ = await manager.firstNonNoneHMILevel()

        let capabilities = manager.systemCapabilityManager
        _ = try await capabilities.capability(.remoteControl, subscribe: true)
        let climate = try #require(await capabilities.remoteControlCapability?.climateControlCapabilities?.first)
        #expect(climate.desiredTemperatureAvailable == true)

        let read = try await manager.send(GetInteriorVehicleData(moduleType: .climate, subscribe: true), timeout: nil)
        #expect(read.resultCode == .success && read.isSubscribed == true)
        #expect(read.moduleData?.moduleId == climate.moduleInfo?.moduleId, "the default module is the first of the capabilities")
        let current = try #require(read.moduleData?.climateControlData?.currentTemperature)
        #expect(current.unit == .celsius)

        let wanted = ModuleData(moduleType: .climate, climateControlData: ClimateControlData(desiredTemperature: Temperature(unit: .celsius, value: 21.5)))
        let set = try await manager.send(SetInteriorVehicleData(moduleData: wanted), timeout: nil)
        #expect(set.resultCode == .success)
        #expect(set.moduleData?.climateControlData?.desiredTemperature?.value == 21.5)

        var received = changes.makeAsyncIterator()
        #expect(await received.next()?.moduleData.climateControlData?.desiredTemperature?.value == 21.5, "its own change, as the HMI reports it")
        var status = statuses.makeAsyncIterator()
        #expect(await status.next()?.allocatedModules == [], "at registration")
        #expect(await status.next()?.allocatedModules.map(\.moduleType) == [.climate], "the set made the module the app's")

        try await emulator.setInteriorVehicleData(["moduleType": "CLIMATE", "climateControlData": ["desiredTemperature": ["unit": "CELSIUS", "value": 19]]])
        #expect(await received.next()?.moduleData.climateControlData?.desiredTemperature?.value == 19, "the driver turned the knob")
        await manager.stop()
    }
}
