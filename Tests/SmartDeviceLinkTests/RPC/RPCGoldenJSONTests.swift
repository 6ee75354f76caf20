import SmartDeviceLink
import Testing

/// Golden JSON written by hand from MOBILE_API.xml (parameter names, nesting and enum
/// spellings as the spec defines them), compared as parsed JSON both ways: the typed value
/// encodes to the golden text, and the golden text decodes to the typed value.
@Suite("Golden RPC JSON")
struct RPCGoldenJSONTests {
    func check<M: RPCMessage>(_ message: M, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try JSONValue.parse(golden)
        #expect(message.json == expected, sourceLocation: sourceLocation)
        let decoded = try M(json: expected, path: M.functionName)
        #expect(decoded == message, sourceLocation: sourceLocation)
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try RPCSpec.validate(message) }
    }

    @Test func registerAppInterfaceRequest() throws {
        let request = RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
            appName: "Linux Radio",
            isMediaApplication: true,
            languageDesired: .enUs,
            hmiDisplayLanguageDesired: .enUs,
            appID: "8675309",
            ttsName: [TTSChunk(text: "Linux Radio", type: .text)],
            vrSynonyms: ["Radio"],
            appHMIType: [.media],
            deviceInfo: DeviceInfo(hardware: "x86_64", os: "Linux"),
            fullAppID: "8675309-abcd",
            appInfo: AppInfo(appDisplayName: "Linux Radio", appBundleID: "org.example.radio", appVersion: "1.0"))
        try check(request, """
            {
              "syncMsgVersion": {"majorVersion": 8, "minorVersion": 0, "patchVersion": 0},
              "appName": "Linux Radio",
              "ttsName": [{"text": "Linux Radio", "type": "TEXT"}],
              "vrSynonyms": ["Radio"],
              "isMediaApplication": true,
              "languageDesired": "EN-US",
              "hmiDisplayLanguageDesired": "EN-US",
              "appHMIType": ["MEDIA"],
              "deviceInfo": {"hardware": "x86_64", "os": "Linux"},
              "appID": "8675309",
              "fullAppID": "8675309-abcd",
              "appInfo": {"appDisplayName": "Linux Radio", "appBundleID": "org.example.radio", "appVersion": "1.0"}
            }
            """)
        #expect(RegisterAppInterface.functionID == 1 && RegisterAppInterface.messageType == .request)
    }

    @Test func registerAppInterfaceFullResponse() throws {
        let response = RegisterAppInterfaceResponse(
            success: true,
            resultCode: .success,
            info: "registered",
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0),
            language: .enUs,
            hmiDisplayLanguage: .enUs,
            displayCapabilities: DisplayCapabilities(
                displayType: .sdlGeneric,
                textFields: [
                    TextField(name: .mainField1, characterSet: .utf8, width: 500, rows: 1),
                    TextField(name: .alertText1, characterSet: .utf8, width: 500, rows: 1),
                ],
                mediaClockFormats: [.clock1, .clocktext4],
                graphicSupported: true,
                displayName: "SDL_GENERIC",
                imageFields: [
                    ImageField(name: .graphic, imageTypeSupported: [.graphicPng, .graphicJpeg],
                               imageResolution: ImageResolution(resolutionWidth: 800, resolutionHeight: 480)),
                ],
                templatesAvailable: ["DEFAULT", "MEDIA", "NON-MEDIA"],
                screenParams: ScreenParams(
                    resolution: ImageResolution(resolutionWidth: 800, resolutionHeight: 480),
                    touchEventAvailable: TouchEventCapabilities(
                        pressAvailable: true, multiTouchAvailable: false, doublePressAvailable: false)),
                numCustomPresetsAvailable: 8),
            buttonCapabilities: [
                ButtonCapabilities(name: .ok, shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true),
            ],
            softButtonCapabilities: [
                SoftButtonCapabilities(shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true,
                                       imageSupported: true, textSupported: true),
            ],
            presetBankCapabilities: PresetBankCapabilities(onScreenPresetsAvailable: true),
            hmiZoneCapabilities: [.front],
            speechCapabilities: [.text, .silence],
            vrCapabilities: [.text],
            audioPassThruCapabilities: [
                AudioPassThruCapabilities(samplingRate: ._16khz, bitsPerSample: ._16Bit, audioType: .pcm),
            ],
            pcmStreamCapabilities: AudioPassThruCapabilities(samplingRate: ._16khz, bitsPerSample: ._16Bit, audioType: .pcm),
            vehicleType: VehicleType(make: "SDL", model: "Generic", modelYear: "2021", trim: "SE"),
            supportedDiagModes: [1, 34],
            hmiCapabilities: HMICapabilities(navigation: false, phoneCall: true, displays: true),
            sdlVersion: "8.0.0",
            systemSoftwareVersion: "1.2.3",
            iconResumed: false)
        try check(response, """
            {
              "success": true,
              "resultCode": "SUCCESS",
              "info": "registered",
              "syncMsgVersion": {"majorVersion": 8, "minorVersion": 0},
              "language": "EN-US",
              "hmiDisplayLanguage": "EN-US",
              "displayCapabilities": {
                "displayType": "SDL_GENERIC",
                "displayName": "SDL_GENERIC",
                "textFields": [
                  {"name": "mainField1", "characterSet": "UTF_8", "width": 500, "rows": 1},
                  {"name": "alertText1", "characterSet": "UTF_8", "width": 500, "rows": 1}
                ],
                "imageFields": [
                  {"name": "graphic", "imageTypeSupported": ["GRAPHIC_PNG", "GRAPHIC_JPEG"],
                   "imageResolution": {"resolutionWidth": 800, "resolutionHeight": 480}}
                ],
                "mediaClockFormats": ["CLOCK1", "CLOCKTEXT4"],
                "graphicSupported": true,
                "templatesAvailable": ["DEFAULT", "MEDIA", "NON-MEDIA"],
                "screenParams": {
                  "resolution": {"resolutionWidth": 800, "resolutionHeight": 480},
                  "touchEventAvailable": {"pressAvailable": true, "multiTouchAvailable": false, "doublePressAvailable": false}
                },
                "numCustomPresetsAvailable": 8
              },
              "buttonCapabilities": [
                {"name": "OK", "shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true}
              ],
              "softButtonCapabilities": [
                {"shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true,
                 "imageSupported": true, "textSupported": true}
              ],
              "presetBankCapabilities": {"onScreenPresetsAvailable": true},
              "hmiZoneCapabilities": ["FRONT"],
              "speechCapabilities": ["TEXT", "SILENCE"],
              "vrCapabilities": ["TEXT"],
              "audioPassThruCapabilities": [{"samplingRate": "16KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM"}],
              "pcmStreamCapabilities": {"samplingRate": "16KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM"},
              "vehicleType": {"make": "SDL", "model": "Generic", "modelYear": "2021", "trim": "SE"},
              "supportedDiagModes": [1, 34],
              "hmiCapabilities": {"navigation": false, "phoneCall": true, "displays": true},
              "sdlVersion": "8.0.0",
              "systemSoftwareVersion": "1.2.3",
              "iconResumed": false
            }
            """)
    }

    @Test func show() throws {
        let show = Show(
            mainField1: "Now playing", mainField2: "Artist", alignment: .centered,
            graphic: Image(value: "cover.png", imageType: .dynamic),
            softButtons: [SoftButton(type: .text, softButtonID: 1, text: "Play")],
            metadataTags: MetadataTags(mainField1: [.mediaTitle], mainField2: [.mediaArtist]),
            templateTitle: "Radio", windowID: 0)
        try check(show, """
            {
              "mainField1": "Now playing",
              "mainField2": "Artist",
              "alignment": "CENTERED",
              "graphic": {"value": "cover.png", "imageType": "DYNAMIC"},
              "softButtons": [{"type": "TEXT", "text": "Play", "softButtonID": 1}],
              "metadataTags": {"mainField1": ["mediaTitle"], "mainField2": ["mediaArtist"]},
              "templateTitle": "Radio",
              "windowID": 0
            }
            """)
    }

    @Test func addCommand() throws {
        let command = AddCommand(
            cmdID: 100,
            menuParams: MenuParams(menuName: "Favourites", parentID: 0, position: 1),
            vrCommands: ["Favourites", "Favorites"],
            cmdIcon: Image(value: "0x11", imageType: .`static`, isTemplate: true))
        try check(command, """
            {
              "cmdID": 100,
              "menuParams": {"parentID": 0, "position": 1, "menuName": "Favourites"},
              "vrCommands": ["Favourites", "Favorites"],
              "cmdIcon": {"value": "0x11", "imageType": "STATIC", "isTemplate": true}
            }
            """)
    }

    @Test func alertWithSoftButtons() throws {
        let alert = Alert(
            alertText1: "Low fuel", alertText2: "Find a station?",
            ttsChunks: [TTSChunk(text: "Low fuel", type: .text)],
            duration: 5000, playTone: true,
            softButtons: [
                SoftButton(type: .text, softButtonID: 10, text: "Yes", systemAction: .defaultAction),
                SoftButton(type: .both, softButtonID: 11, text: "No", image: Image(value: "no.png", imageType: .dynamic),
                           isHighlighted: true, systemAction: .keepContext),
            ],
            cancelID: 7)
        try check(alert, """
            {
              "alertText1": "Low fuel",
              "alertText2": "Find a station?",
              "ttsChunks": [{"text": "Low fuel", "type": "TEXT"}],
              "duration": 5000,
              "playTone": true,
              "softButtons": [
                {"type": "TEXT", "text": "Yes", "softButtonID": 10, "systemAction": "DEFAULT_ACTION"},
                {"type": "BOTH", "text": "No", "image": {"value": "no.png", "imageType": "DYNAMIC"},
                 "isHighlighted": true, "softButtonID": 11, "systemAction": "KEEP_CONTEXT"}
              ],
              "cancelID": 7
            }
            """)
    }

    @Test func subscribeVehicleDataResponse() throws {
        let response = SubscribeVehicleDataResponse(
            success: true, resultCode: .success,
            gps: VehicleDataResult(dataType: .vehicledataGps, resultCode: .success),
            speed: VehicleDataResult(dataType: .vehicledataSpeed, resultCode: .success),
            rpm: VehicleDataResult(dataType: .vehicledataRpm, resultCode: .disallowed),
            tirePressure: VehicleDataResult(dataType: .vehicledataTirepressure, resultCode: .vehicleDataNotAvailable))
        try check(response, """
            {
              "success": true,
              "resultCode": "SUCCESS",
              "gps": {"dataType": "VEHICLEDATA_GPS", "resultCode": "SUCCESS"},
              "speed": {"dataType": "VEHICLEDATA_SPEED", "resultCode": "SUCCESS"},
              "rpm": {"dataType": "VEHICLEDATA_RPM", "resultCode": "DISALLOWED"},
              "tirePressure": {"dataType": "VEHICLEDATA_TIREPRESSURE", "resultCode": "VEHICLE_DATA_NOT_AVAILABLE"}
            }
            """)
    }

    @Test func onVehicleData() throws {
        let notification = OnVehicleData(
            gps: GPSData(longitudeDegrees: 11.5, latitudeDegrees: 48.25, utcYear: 2024, compassDirection: .north,
                         actual: true, satellites: 9, dimension: ._3d, altitude: 519.5, heading: 90.0, speed: 12.5),
            speed: 45.5, rpm: 2100, prndl: .drive,
            tirePressure: TireStatus(pressureTelltale: .off, leftFront: SingleTireStatus(status: .normal, pressure: 230.0)),
            odometer: 12345)
        try check(notification, """
            {
              "gps": {"longitudeDegrees": 11.5, "latitudeDegrees": 48.25, "utcYear": 2024, "compassDirection": "NORTH",
                      "actual": true, "satellites": 9, "dimension": "3D", "altitude": 519.5, "heading": 90.0, "speed": 12.5},
              "speed": 45.5,
              "rpm": 2100,
              "prndl": "DRIVE",
              "tirePressure": {"pressureTelltale": "OFF", "leftFront": {"status": "NORMAL", "pressure": 230.0}},
              "odometer": 12345
            }
            """)
        #expect(OnVehicleData.functionID == 32772)
    }

    @Test func putFileWithBulkData() throws {
        let putFile = PutFile(syncFileName: "icon.png", fileType: .graphicPng, persistentFile: true, systemFile: false,
                              offset: 0, length: 4, crc: 3_000_000_000, bulkData: [0x89, 0x50, 0x4E, 0x47])
        let golden = try JSONValue.parse("""
            {"syncFileName": "icon.png", "fileType": "GRAPHIC_PNG", "persistentFile": true, "systemFile": false,
             "offset": 0, "length": 4, "crc": 3000000000}
            """)
        #expect(putFile.json == golden)  // bulk data is not part of the JSON
        var decoded = try PutFile(json: golden, path: "PutFile")
        #expect(decoded.bulkData == nil)
        decoded.bulkData = [0x89, 0x50, 0x4E, 0x47]
        #expect(decoded == putFile)
        #expect(throws: Never.self) { try RPCSpec.validate(putFile) }
    }

    @Test func onHMIStatus() throws {
        let status = OnHMIStatus(hmiLevel: .full, audioStreamingState: .audible, systemContext: .main,
                                 videoStreamingState: .notStreamable, windowID: 0)
        try check(status, """
            {"hmiLevel": "FULL", "audioStreamingState": "AUDIBLE", "systemContext": "MAIN",
             "videoStreamingState": "NOT_STREAMABLE", "windowID": 0}
            """)
        let minimal = try decodeRPCMessage(
            functionID: 32768, messageType: .notification,
            json: ["hmiLevel": "NONE", "audioStreamingState": "NOT_AUDIBLE", "systemContext": "MAIN"], bulk: nil)
        let typed = try #require(minimal as? OnHMIStatus)
        #expect(typed.hmiLevel == .none && typed.videoStreamingState == nil)
    }

    @Test func onPermissionsChange() throws {
        let change = OnPermissionsChange(
            permissionItem: [
                PermissionItem(
                    rpcName: "Show",
                    hmiPermissions: HMIPermissions(allowed: [.full, .limited, .background], userDisallowed: []),
                    parameterPermissions: ParameterPermissions(allowed: [], userDisallowed: [])),
                PermissionItem(
                    rpcName: "GetVehicleData",
                    hmiPermissions: HMIPermissions(allowed: [.full], userDisallowed: [.background]),
                    parameterPermissions: ParameterPermissions(allowed: ["gps", "speed"], userDisallowed: ["rpm"]),
                    requireEncryption: true),
            ],
            requireEncryption: false)
        try check(change, """
            {
              "permissionItem": [
                {"rpcName": "Show",
                 "hmiPermissions": {"allowed": ["FULL", "LIMITED", "BACKGROUND"], "userDisallowed": []},
                 "parameterPermissions": {"allowed": [], "userDisallowed": []}},
                {"rpcName": "GetVehicleData",
                 "hmiPermissions": {"allowed": ["FULL"], "userDisallowed": ["BACKGROUND"]},
                 "parameterPermissions": {"allowed": ["gps", "speed"], "userDisallowed": ["rpm"]},
                 "requireEncryption": true}
              ],
              "requireEncryption": false
            }
            """)
    }
}
