import Foundation
import SDLEmulator
import SmartDeviceLink
import Testing

// The Swift examples of README.md, docs/*.md and the DocC articles, line for line, so that
// the compiler checks them against the API: DocsTests fails when a guide's `swift` block is
// not found here, and this file fails to build when an example no longer compiles. The
// examples that need a car are never called (what they do is tested where each manager is);
// the testing article's example is a test, and runs.

@Test func showsHello() async throws {
    let headUnit = HeadUnitEmulator()
    let port = try await headUnit.listen(port: 0)
    let manager = SDLManager(configuration: SDLConfiguration(
        appName: "Hello", appID: "hello-0001", transports: [.tcp(host: "127.0.0.1", port: port)]))
    try await manager.start()
    try await headUnit.activateApp()
    _ = await manager.firstNonNoneHMILevel()
    try await manager.screenManager.textAndGraphics.update { $0.textField1 = "Hello" }
    #expect(await headUnit.snapshot().app("hello-0001")?.show["mainField1"] == "Hello")
    await manager.stop()
    await headUnit.stop()
}

/// What an app's own lock screen could be, for the managers guide's example.
private protocol LockScreenView {
    func show(warning: String?)
    func hide()
}

private func zoom(by scale: Double, around center: TouchPoint) {}

private enum DocumentedSnippets {
    static func readme() async throws {
        let manager = SDLManager(configuration: SDLConfiguration(
            appName: "Hello", appID: "hello-0001",
            transports: [.usb(), .tcp(host: "192.168.1.20")]))      // tried in order
        try await manager.start()                                    // connects, registers, or throws why not
        _ = await manager.firstNonNoneHMILevel()
        try await manager.screenManager.textAndGraphics.update { $0.textField1 = "Hello" }
        try await manager.screenManager.menu.setMenu([
            MenuCell(title: "Play", voiceCommands: ["play"]) { source in print("picked by", source) },
        ])
        try await manager.fileManager.upload(SDLFile(name: "cover.png", source: .path("cover.png"), fileType: .graphicPng))
        let response = try await manager.send(GetVehicleData(speed: true), timeout: nil)
        for await speed in await manager.vehicleDataManager.values(of: \.speed) { print(speed) }
        _ = response
    }

    static func library(coverBytes: [UInt8]) async throws {
        let manager = SDLManager(configuration: SDLConfiguration(
            appName: "Hello", appID: "hello-0001",
            transports: [.usb(), .tcp(host: "192.168.1.20")]))      // tried in order
        try await manager.start()                                    // connects, registers, or throws why not
        _ = await manager.firstNonNoneHMILevel()
        let response = try await manager.send(Show(mainField1: "Hello"), timeout: nil)
        try await manager.fileManager.upload(SDLFile(name: "cover.png", source: .path("cover.png"), fileType: .graphicPng))
        if await manager.permissionManager.isRPCAllowed("Alert") { /* ... */ }

        let screen = manager.screenManager
        try await screen.textAndGraphics.update { $0.textField1 = "Now playing"; $0.primaryGraphic = .artwork(coverBytes) }
        try await screen.menu.setMenu([
            MenuCell(title: "Play", voiceCommands: ["play"]) { source in print("picked by", source) },   // MENU or VR
            MenuCell(title: "Settings", subCells: [MenuCell(title: "Volume") { _ in }]),
        ])
        let answer = try await screen.choiceSets.present(ChoiceSet(title: "Colour?", cells: [ChoiceCell(text: "Red")]))
        try await screen.alerts.present(AlertView(text: "Low fuel", softButtons: [SoftButtonObject(name: "ok", text: "OK")]))
        for await speed in await manager.vehicleDataManager.values(of: \.speed) { print(speed) }
        for await lock in await manager.lockScreenManager.states() { print(lock.status, lock.isShown) }  // OFF, OPTIONAL, REQUIRED
        _ = (response, answer)
    }

    static func remoteControl(manager: SDLManager) async throws {
        _ = try await manager.systemCapabilityManager.capability(.remoteControl, subscribe: true)
        let climate = await manager.systemCapabilityManager.remoteControlCapability?.climateControlCapabilities?.first
        let read = try await manager.send(GetInteriorVehicleData(moduleType: .climate, subscribe: true), timeout: nil)
        let warmer = ModuleData(moduleType: .climate, climateControlData: ClimateControlData(desiredTemperature: Temperature(unit: .celsius, value: 21.5)))
        _ = try await manager.send(SetInteriorVehicleData(moduleData: warmer), timeout: nil)   // the app now holds the module (OnRCStatus)
        for await change in await manager.notifications(OnInteriorVehicleData.self) { print(change.moduleData) }  // the driver's too
        _ = (climate, read)
    }

    static func provider(manager: SDLManager) async throws {
        let manifest = AppServiceManifest(serviceType: "WEATHER", serviceName: "Sunny", allowAppConsumers: true)
        let published = try await manager.send(PublishAppService(appServiceManifest: manifest), timeout: nil)
        for await asked in await manager.requests(GetAppServiceData.self) {
            let data = AppServiceData(serviceType: "WEATHER", serviceID: published.appServiceRecord?.serviceID ?? "",
                                      weatherServiceData: WeatherServiceData(location: LocationDetails(locationName: "Home")))
            try await asked.respond(GetAppServiceDataResponse(success: true, resultCode: .success, serviceData: data))
        }
    }

    static func policyUpdates() async {
        struct Vault: PolicyUpdateEncryption {
            func decrypt(_ snapshot: [UInt8]) async throws -> [UInt8] { snapshot }   // the OEM's own
            func encrypt(_ update: [UInt8]) async throws -> [UInt8] { update }
        }
        var configuration = SDLConfiguration(appName: "Fleet", appID: "fleet-0001", transports: [.usb()])
        configuration.systemRequests.encryption = Vault()
        let manager = SDLManager(configuration: configuration)
        for await event in await manager.systemRequestManager.events() { print(event) }   // "policy table update via http://…: the head unit answered SUCCESS"
    }

    static func lockScreen(manager: SDLManager, lockScreen: some LockScreenView) async {
        for await state in await manager.lockScreenManager.states() {
            state.isShown ? lockScreen.show(warning: state.dismissalWarning) : lockScreen.hide()
        }
    }

    static func navigation(manager: SDLManager) async throws {
        let media = manager.streamingMediaManager
        await media.startVideo(VideoStreamingSettings(formats: [VideoStreamingFormat(protocol: .rtp, codec: .h264)]))
        let report = try await media.streamVideo(file: "map.h264", fps: 30)          // a FIFO is read live; or streamVideo(from: handle),
                                                                                      // or sendVideo(accessUnit, at: time) per frame
        try await media.setHapticRects([HapticRect(id: 1, rect: Rectangle(x: 0, y: 0, width: 120, height: 60))])
        await media.startAudio()
        _ = try await media.streamAudio(file: "turn-left.wav")                       // the head unit's PCM format
        for await gesture in await manager.touchManager.gestures() {
            if case .pinchMoved(let center, let scale) = gesture { zoom(by: scale, around: center) }
        }
        try await manager.navigationManager.show(Maneuver(text: "Turn left", secondaryText: "Main St", distance: "300 m"))
        _ = report
    }

    static func protection() async throws {
        var configuration = SDLConfiguration(appName: "Navigator", appID: "nav-0001", appTypes: [.navigation],
                                             transports: [.usb()])
        configuration.security = SecurityConfiguration(identity: try TLSIdentity(certificateFile: "app.pem", privateKeyFile: "app.key"))
        let manager = SDLManager(configuration: configuration)
        try await manager.start()
        _ = try await manager.startService(.video, protected: true)
        print(await manager.isProtected(.video))
    }

    static func gettingStarted() async throws {
        let manager = SDLManager(configuration: SDLConfiguration(
            appName: "Hello", appID: "hello-0001",
            transports: [.usb(), .tcp(host: "192.168.1.20")]))
        try await manager.start()
        _ = await manager.firstNonNoneHMILevel()
        try await manager.screenManager.textAndGraphics.update { $0.textField1 = "Hello" }
        let response = try await manager.send(GetVehicleData(speed: true), timeout: nil)
        print(response.speed ?? 0)
        try await manager.fileManager.upload(SDLFile(name: "cover.png", source: .path("cover.png"), fileType: .graphicPng))
    }
}
