import Testing
import SmartDeviceLink
@testable import SDLEmulator

/// App services as sdl_core 8.2 runs them (texts and order measured on it).
@Suite("App services: publishing, activation, consumers' requests passed to the provider")
struct AppServicesTests {
    static func manifest(_ type: String = "WEATHER", name: String? = "Sunny", consumers: Bool = true) -> JSONObject {
        var manifest: JSONObject = ["serviceType": .string(type), "allowAppConsumers": .bool(consumers)]
        if let name { manifest["serviceName"] = .string(name) }
        return ["appServiceManifest": .object(manifest)]
    }

    /// The updates of one OnSystemCapabilityUpdated APP_SERVICES: (reason, active) of each.
    func updates(_ app: TestApp) async throws -> [String] {
        let update = try await app.next("OnSystemCapabilityUpdated")
        return update["systemCapability"]?["appServicesCapabilities"]?["appServices"]?.arrayValue?.map {
            "\($0["updateReason"]?.stringValue ?? "") \($0["updatedAppServiceRecord"]?["serviceActive"] == true ? "active" : "inactive")"
        } ?? []
    }

    @Test("publishing: the policy's types, a name once, an update for the same type, the first active, pushed to subscribers")
    func publishing() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.policy.appServices["other-1"] = ["MEDIA"] })
        let consumer = try await activeApp(headUnit, name: "Consumer", appID: "consumer-1")
        _ = try await consumer.request("GetSystemCapability", ["systemCapabilityType": "APP_SERVICES", "subscribe": true])
        let provider = try await activeApp(headUnit, name: "Weather", appID: "weather-1")
        let refused = try await provider.request("PublishAppService", ["appServiceManifest": ["serviceType": "MEDIA", "handledRPCs": [41]]])
        #expect(refused.resultCode == "DISALLOWED" && refused["info"] == "Service disallowed by policies")

        let published = try await provider.request("PublishAppService", Self.manifest())
        #expect(published.resultCode == "SUCCESS" && published["appServiceRecord"]?["serviceActive"] == true)
        let id = try #require(published["appServiceRecord"]?["serviceID"]?.stringValue)
        #expect(id.count == 64, "as core's: 64 hex digits")
        #expect(try await updates(consumer) == ["PUBLISHED inactive"])
        #expect(try await updates(consumer) == ["ACTIVATED active"])
        #expect(try await updates(provider) == ["PUBLISHED inactive"], "the provider is subscribed by publishing")

        let again = try await provider.request("PublishAppService", Self.manifest(name: "Sunny"))
        #expect(again["appServiceRecord"]?["serviceID"]?.stringValue == id, "the same type again updates the manifest")
        #expect(try await updates(consumer) == ["MANIFEST_UPDATE active"])

        let other = try await activeApp(headUnit, name: "Other", appID: "other-1")
        let taken = try await other.request("PublishAppService", Self.manifest("MEDIA", name: "Sunny"))
        #expect(taken.resultCode == "REJECTED" && taken["info"] == "Failed to publish service", "the name is the weather app's")
        let capability = try await consumer.request("GetSystemCapability", ["systemCapabilityType": "APP_SERVICES"])
        #expect(capability["systemCapability"]?["appServicesCapabilities"]?["appServices"]?.arrayValue?.count == 1)

        let unknown = try await other.request("UnpublishAppService", ["serviceID": .string(id)])
        #expect(unknown.resultCode == "INVALID_ID" && unknown["info"] == "No app service with the requested service ID was published by this application")
        _ = try await provider.request("UnregisterAppInterface")
        let removed = try await consumer.next("OnSystemCapabilityUpdated")
        #expect(removed["systemCapability"]?["appServicesCapabilities"]?["appServices"]?.arrayValue?.first?["updateReason"] == "REMOVED", "leaving unpublishes")
        await headUnit.stop()
    }

    @Test("a second provider of a type becomes active when the driver brings it to FULL")
    func activation() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await activeApp(headUnit, name: "First", appID: "first-1")
        _ = try await first.request("PublishAppService", Self.manifest(name: "One"))
        #expect(try await updates(first) == ["PUBLISHED inactive"])
        #expect(try await updates(first) == ["ACTIVATED active"])
        let second = try await TestApp.connect(headUnit)
        try await second.register(name: "Second", appID: "second-1")
        try await headUnit.activateApp("second-1")
        _ = try await second.next("OnHMIStatus")
        try await headUnit.activateApp("first-1")  // the first is FULL again while the second publishes
        let published = try await second.request("PublishAppService", Self.manifest(name: "Two"))
        #expect(published["appServiceRecord"]?["serviceActive"] == false, "a type has one active service")
        try await headUnit.activateApp("second-1")
        _ = try await first.next("OnSystemCapabilityUpdated")  // PUBLISHED
        #expect(try await updates(first) == ["DEACTIVATED inactive", "ACTIVATED active"])
        await headUnit.stop()
    }

    @Test("a consumer's requests go to the provider and its answers come back; data reaches subscribers only from the active own service")
    func consumerAndProvider() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let provider = try await activeApp(headUnit, name: "Weather", appID: "weather-1")
        let id = try #require(try await provider.request("PublishAppService", Self.manifest())["appServiceRecord"]?["serviceID"]?.stringValue)
        let consumer = try await activeApp(headUnit, name: "Consumer", appID: "consumer-1")
        let own = try await provider.request("GetAppServiceData", ["serviceType": "WEATHER"])
        #expect(own.resultCode == "IGNORED" && own["info"] == "Consumer app is same as producer app")

        async let answer = consumer.request("GetAppServiceData", ["serviceType": "WEATHER", "subscribe": true])
        let asked = try await provider.next("GetAppServiceData")
        #expect(asked.messageType == .request && asked["subscribe"] == true && asked.correlationID == 1, "core numbers its requests to a provider from 1")
        let data: JSONObject = ["serviceType": "WEATHER", "serviceID": .string(id), "weatherServiceData": ["location": ["locationName": "Home"]]]
        try await provider.connection.respond(functionID: asked.functionID, correlationID: asked.correlationID,
                                              parameters: ["success": true, "resultCode": "SUCCESS", "serviceData": .object(data)])
        let answered = try await answer
        #expect(answered.resultCode == "SUCCESS" && answered["serviceData"]?["weatherServiceData"]?["location"]?["locationName"] == "Home")
        _ = try await consumer.next("OnHashChange")

        try await provider.connection.notify(functionID: OnAppServiceData.functionID, parameters: ["serviceData": .object(data)])
        #expect(try await consumer.next("OnAppServiceData")["serviceData"]?["serviceID"]?.stringValue == id)
        var foreign = data
        foreign["serviceID"] = "not-its-own"
        try await provider.connection.notify(functionID: OnAppServiceData.functionID, parameters: ["serviceData": .object(foreign)])
        try await consumer.sync()
        #expect(await consumer.inbox.take("OnAppServiceData").isEmpty, "core drops data for a service that is not the provider's")

        async let interaction = consumer.request("PerformAppServiceInteraction", ["serviceID": .string(id), "serviceUri": "weather://x", "originApp": "consumer-1"])
        let perform = try await provider.next("PerformAppServiceInteraction")
        try await provider.connection.respond(functionID: perform.functionID, correlationID: perform.correlationID,
                                              parameters: ["success": false, "resultCode": "REJECTED", "info": "not now"])
        let refused = try await interaction
        #expect(refused.resultCode == "REJECTED" && refused["info"] == "not now")
        let none = try await consumer.request("GetAppServiceData", ["serviceType": "MEDIA"])
        #expect(none.resultCode == "DATA_NOT_AVAILABLE" && none["info"] == "No app service provider with serviceType: MEDIA is available")
        await headUnit.stop()
    }
}
