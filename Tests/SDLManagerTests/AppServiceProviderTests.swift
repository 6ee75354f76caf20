import SDLEmulator
import SmartDeviceLink
import Testing

/// An app-service provider written with the library: it publishes, and answers what a consumer
/// asks through the head unit with `requests(_:)`.
@Suite("An app-service provider with the library")
struct AppServiceProviderTests {
    @Test("the provider's typed answer reaches the consumer; a refusal too; a consumer's subscription brings the provider's data")
    func provider() async throws {
        let emulator = HeadUnitEmulator()
        let provider = SDLManager(configuration: configuration(emulator, name: "Weather", appID: "weather-app"))
        let consumer = SDLManager(configuration: configuration(emulator, name: "Dashboard", appID: "dashboard-app"))
        let asked = await provider.requests(GetAppServiceData.self)
        let interactions = await provider.requests(PerformAppServiceInteraction.self)
        let updates = await consumer.notifications(OnAppServiceData.self)
        try await provider.start()
        try await consumer.start()
        try await emulator.activateApp("weather-app")
        _ = await provider.firstNonNoneHMILevel()

        let manifest = AppServiceManifest(serviceType: "WEATHER", serviceName: "Sunny", allowAppConsumers: true)
        let published = try await provider.send(PublishAppService(appServiceManifest: manifest), timeout: nil)
        let serviceID = try #require(published.appServiceRecord?.serviceID)
        let weather = AppServiceData(serviceType: "WEATHER", serviceID: serviceID,
                                     weatherServiceData: WeatherServiceData(location: LocationDetails(locationName: "Home")))
        let answering = Task {
            var requests = asked.makeAsyncIterator()
            guard let request = await requests.next() else { return "" }
            try await request.respond(GetAppServiceDataResponse(success: true, resultCode: .success, serviceData: weather))
            return request.request.serviceType
        }
        let response = try await consumer.send(GetAppServiceData(serviceType: "WEATHER", subscribe: true), timeout: nil)
        #expect(try await answering.value == "WEATHER")
        #expect(response.resultCode == .success && response.serviceData?.weatherServiceData?.location.locationName == "Home")

        try await provider.notify(functionID: OnAppServiceData.functionID, parameters: ["serviceData": weather.json])
        var received = updates.makeAsyncIterator()
        #expect(await received.next()?.serviceData.serviceID == serviceID, "the subscribed consumer gets the provider's data")

        let refusing = Task {
            var requests = interactions.makeAsyncIterator()
            try await requests.next()?.refuse(.rejected, info: "not now")
        }
        let interaction = try await consumer.send(PerformAppServiceInteraction(serviceUri: "weather://refresh", serviceID: serviceID,
                                                                               originApp: "dashboard-app"), timeout: nil)
        try await refusing.value
        #expect(interaction.resultCode == .rejected && interaction.info == "not now")
        await consumer.stop()
        await provider.stop()
    }
}
