@testable import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Registration")
struct RegistrationTests {
    @Test("RegisterAppInterface answers with every capability, then OnHMIStatus(NONE) and OnPermissionsChange (core RegisterAppInterfaceRequest)")
    func fullResponse() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        let response = try await app.request("RegisterAppInterface", TestApp.registration(name: "Full", appID: "full-1"))
        #expect(response.success == true)
        #expect(response.resultCode == "SUCCESS")
        for key in ["syncMsgVersion", "language", "hmiDisplayLanguage", "displayCapabilities", "buttonCapabilities",
                    "softButtonCapabilities", "presetBankCapabilities", "hmiZoneCapabilities", "speechCapabilities",
                    "prerecordedSpeech", "vrCapabilities", "audioPassThruCapabilities", "pcmStreamCapabilities", "vehicleType",
                    "supportedDiagModes", "hmiCapabilities", "sdlVersion", "systemSoftwareVersion", "iconResumed"] {
            #expect(response[key] != nil, "missing \(key)")
        }
        let display = try #require(response["displayCapabilities"])
        for key in ["textFields", "imageFields", "templatesAvailable", "mediaClockFormats", "graphicSupported", "displayType"] {
            #expect(display[key] != nil, "displayCapabilities lacks \(key)")
        }
        let status = try await app.next("OnHMIStatus")
        #expect(status["hmiLevel"] == "NONE")
        #expect(status["audioStreamingState"] == "NOT_AUDIBLE")
        #expect(status["systemContext"] == "MAIN")
        #expect(status["videoStreamingState"] == "NOT_STREAMABLE")
        let permissions = try await app.next("OnPermissionsChange")
        let items = try #require(permissions["permissionItem"]?.arrayValue)
        let alert = try #require(items.first { $0["rpcName"] == "Alert" })
        #expect(alert["hmiPermissions"]?["allowed"] == ["FULL", "LIMITED"])
        await headUnit.stop()
    }

    @Test("A second RegisterAppInterface in the same session is APPLICATION_REGISTERED_ALREADY (core)")
    func registeredAlready() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        let again = try await app.request("RegisterAppInterface", TestApp.registration(name: "Other", appID: "other"))
        #expect(again.resultCode == "APPLICATION_REGISTERED_ALREADY")
        #expect(again.success == false)
        await headUnit.stop()
    }

    @Test("Same appName (case-insensitive) or a vrSynonym equal to another app's name is DUPLICATE_NAME (core CheckCoincidence)")
    func duplicateName() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await TestApp.connect(headUnit)
        try await first.register(name: "Radio", appID: "radio")
        let second = try await TestApp.connect(headUnit)
        let sameName = try await second.request("RegisterAppInterface", TestApp.registration(name: "RADIO", appID: "radio-2"))
        #expect(sameName.resultCode == "DUPLICATE_NAME")
        var synonym = TestApp.registration(name: "Tuner", appID: "tuner")
        synonym["vrSynonyms"] = ["radio"]
        let bySynonym = try await second.request("RegisterAppInterface", synonym)
        #expect(bySynonym.resultCode == "DUPLICATE_NAME")
        #expect(try await second.register(name: "Tuner", appID: "tuner").resultCode == "SUCCESS")
        await headUnit.stop()
    }

    @Test("languageDesired other than the head unit's is WRONG_LANGUAGE with success true (core)")
    func wrongLanguage() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        let response = try await app.register(extra: ["languageDesired": "DE-DE"])
        #expect(response.resultCode == "WRONG_LANGUAGE")
        #expect(response.success == true)
        #expect(response["language"] == "EN-US")
        await headUnit.stop()
    }

    @Test("Out-of-spec RegisterAppInterface parameters are INVALID_DATA (core schema validation)", arguments: [
        ("appID", JSONValue.null), ("appName", ""), ("isMediaApplication", "yes"), ("languageDesired", "XX-XX"),
        ("syncMsgVersion", ["majorVersion": 0, "minorVersion": 0]),
    ] as [(String, JSONValue)])
    func invalidData(key: String, value: JSONValue) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        var parameters = TestApp.registration(name: "X", appID: "x")
        parameters[key] = value.isNull ? nil : value
        let response = try await app.request("RegisterAppInterface", parameters)
        #expect(response.resultCode == "INVALID_DATA")
        await headUnit.stop()
    }

    @Test("Any RPC before registration is APPLICATION_NOT_REGISTERED (core)")
    func notRegistered() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        #expect(try await app.request("Show", ["mainField1": "Hi"]).resultCode == "APPLICATION_NOT_REGISTERED")
        #expect(try await app.request("UnregisterAppInterface").resultCode == "APPLICATION_NOT_REGISTERED")
        await headUnit.stop()
    }

    @Test("syncMsgVersion in the response: the lower of the app's and 8.0.0; an app before 5.0 gets core's base 4.5.1 (RegisterAppInterfaceRequest, core-checked)",
          arguments: [(4, 5, "4.5.1"), (3, 0, "4.5.1"), (5, 0, "5.0.0"), (8, 0, "8.0.0"), (9, 1, "8.0.0")])
    func rpcVersionNegotiation(major: Int, minor: Int, expected: String) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        let response = try await app.register(extra: ["syncMsgVersion": ["majorVersion": .int(Int64(major)), "minorVersion": .int(Int64(minor))]])
        let version = try #require(response["syncMsgVersion"])
        #expect("\(version["majorVersion"]!.intValue!).\(version["minorVersion"]!.intValue!).\(version["patchVersion"]!.intValue!)" == expected)
        await headUnit.stop()
    }

    @Test("An unknown function id gets GenericResponse INVALID_DATA (core)")
    func neverSilence() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        // SDLConnection matches responses by correlation id, so the GenericResponse answers the request.
        let unknown = try await app.connection.request(functionID: 0x7FF0, functionName: "Unknown", parameters: [:])
        #expect(unknown.functionID == 31)
        #expect(unknown.resultCode == "INVALID_DATA")
        #expect(unknown.success == false)
        await headUnit.stop()
    }

    @Test("Registration over real TCP on an ephemeral loopback port")
    func overTCP() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let port = try await headUnit.listen(port: 0)
        let app = try await TestApp.connectTCP(port: port)
        #expect(try await app.register().resultCode == "SUCCESS")
        try await headUnit.activateApp()
        #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "FULL")
        #expect(try await app.request("AddCommand", ["cmdID": 1, "menuParams": ["menuName": "One"]]).resultCode == "SUCCESS")
        #expect(await headUnit.snapshot().app("app-1")?.commands.keys.sorted() == [1])
        await app.connection.stop()
        await headUnit.stop()
    }

    @Test("UnregisterAppInterface answers SUCCESS and the app may register again in the same session")
    func unregisterAndRegisterAgain() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        #expect(try await app.request("UnregisterAppInterface").resultCode == "SUCCESS")
        #expect(await headUnit.snapshot().apps.isEmpty)
        #expect(try await app.register().resultCode == "SUCCESS")
        await headUnit.stop()
    }
}

@Suite("HMI levels and policies")
struct HMIPolicyTests {
    @Test("Alert in NONE is DISALLOWED by the default policy, with no side effect (core policy check)")
    func alertInNoneDisallowed() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        let response = try await app.request("Alert", ["alertText1": "Hi"])
        #expect(response.resultCode == "DISALLOWED")
        #expect(response.success == false)
        try await app.sync()
        #expect(await app.inbox.take("OnHMIStatus").isEmpty)
        #expect(await headUnit.snapshot().apps[0].systemContext == "MAIN")
        await headUnit.stop()
    }

    @Test("A policy table entry for the app id replaces the default group")
    func perAppPolicy() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.policy.apps["app-1"] = ["Show": ["NONE"]] })
        let app = try await TestApp.connect(headUnit)
        try await app.register()
        #expect(try await app.request("Show", ["mainField1": "x"]).resultCode == "SUCCESS")
        #expect(try await app.request("ListFiles").resultCode == "DISALLOWED")
        await headUnit.stop()
    }

    @Test("Activation: FULL + AUDIBLE for media apps, FULL + NOT_AUDIBLE for others (core)", arguments: [true, false])
    func activation(media: Bool) async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        try await app.register(media: media)
        try await headUnit.activateApp()
        let status = try await app.next("OnHMIStatus")
        #expect(status["hmiLevel"] == "FULL")
        #expect(status["audioStreamingState"] == (media ? "AUDIBLE" : "NOT_AUDIBLE"))
        await headUnit.stop()
    }

    @Test("OnHMIStatus only on a real change: activating a FULL app again sends nothing (core)")
    func noRedundantStatus() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        try await headUnit.activateApp()
        try await app.sync()
        #expect(await app.inbox.take("OnHMIStatus").isEmpty)
        await headUnit.stop()
    }

    @Test("Only one app is FULL: a media app goes LIMITED when a non-media app activates, a non-media one BACKGROUND")
    func oneFullApp() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let media = try await activeApp(headUnit, name: "Media", appID: "media", media: true)
        let plain = try await activeApp(headUnit, name: "Plain", appID: "plain")
        let mediaStatus = try await media.next("OnHMIStatus")
        #expect(mediaStatus["hmiLevel"] == "LIMITED")
        #expect(mediaStatus["audioStreamingState"] == "AUDIBLE")
        let other = try await activeApp(headUnit, name: "Other", appID: "other")
        #expect(try await plain.next("OnHMIStatus")["hmiLevel"] == "BACKGROUND")
        _ = other
        let levels = await headUnit.snapshot().apps.map(\.hmiLevel)
        #expect(levels == ["LIMITED", "BACKGROUND", "FULL"])
        await headUnit.stop()
    }

    @Test("exitApp (OnExitApplication USER_EXIT) moves the app to NONE (core)")
    func exitToNone() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(headUnit)
        try await headUnit.exitApp()
        #expect(try await app.next("OnHMIStatus")["hmiLevel"] == "NONE")
        await headUnit.stop()
    }

    @Test("Driver calls without a registered app fail with a clear error")
    func noApp() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        await #expect(throws: EmulatorError.noAppRegistered) { try await headUnit.activateApp() }
        await #expect(throws: EmulatorError.unknownApp("nope")) { try await headUnit.activateApp("nope") }
        #expect(EmulatorError.noPendingInteraction.description == "no pending PerformInteraction")
        await headUnit.stop()
    }
}
