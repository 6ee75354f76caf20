import SmartDeviceLink
import Testing

@Suite("Generated RPC types")
struct RPCGeneratedTypesTests {
    let spec = RPCSpec.shared

    // The interface as MOBILE_API.xml 8.0.0 defines it at top level. A raw count of
    // `<function`, `<struct`, `<enum` in the file gives 160/122/113, because it also
    // counts earlier shapes kept inside <history> (5 functions, 1 struct, 2 enums) and
    // three commented-out functions (SyncPData request/response, OnSyncPData).
    @Test("A decoding error names the path to the value, through structs and arrays")
    func decodingErrorPath() throws {
        let wrongKind = try JSONValue.parse(#"{"softButtons":[{"type":"TEXT","softButtonID":1},{"type":"TEXT","softButtonID":"two"}]}"#)
        #expect(throws: RPCDecodingError(path: "Show.softButtons[1].softButtonID", reason: "expected an integer, found a string")) {
            try Show(json: wrongKind, path: "Show")
        }
        let missing = try JSONValue.parse(#"{"softButtons":[{"softButtonID":1}]}"#)
        #expect(throws: RPCDecodingError(path: "Show.softButtons[0].type", reason: "mandatory parameter is missing")) {
            try Show(json: missing, path: "Show")
        }
        let unknownKept = try Show(json: JSONValue.parse(#"{"mainField1":"a","newerField":1}"#), path: "Show")
        #expect(unknownKept.additionalParameters == ["newerField": 1])
        #expect(try Show(json: JSONValue.parse(#"{"mainField1":"a"}"#), path: "Show").additionalParameters.isEmpty)
    }

    @Test func specCounts() {
        #expect(spec.interfaceVersion == "8.0.0")
        #expect(spec.functions.count == 152)
        #expect(spec.structs.count == 121)
        #expect(spec.enums.count == 111)
        #expect(spec.functionNames(.request).count == 63)
        #expect(spec.functionNames(.response).count == 64)
        #expect(spec.functionNames(.notification).count == 25)
        #expect(RPCRegistry.messageTypes.count == 152)
        #expect(RPCRegistry.structTypes.count == 121)
        #expect(RPCRegistry.enumTypes.count == 111)
        #expect(RPCRegistry.interfaceVersion == spec.interfaceVersion)
    }

    @Test func everyFunctionHasATypeWithItsIDAndName() throws {
        for function in spec.functions {
            let type = try #require(
                RPCRegistry.messageType(functionName: function.name, messageType: function.messageType),
                "no type for \(function.name) \(function.messageType)")
            #expect(type.functionName == function.name)
            #expect(type.functionID == function.functionID)
            #expect(type.messageType == function.messageType)
            let byID = RPCRegistry.messageType(functionID: function.functionID, messageType: function.messageType)
            #expect(byID.map { ObjectIdentifier($0) } == ObjectIdentifier(type))
            #expect(RPCRegistry.functionID(forName: function.name) == function.functionID)
            #expect(RPCRegistry.functionName(forID: function.functionID) == function.name)
        }
    }

    @Test func functionIDsComeFromTheSpecNotFromCounting() {
        #expect(Show.functionID == 13)
        #expect(ButtonPress.functionID == 41)
        #expect(GetInteriorVehicleData.functionID == 43)  // 42 is unused
        #expect(RPCRegistry.functionName(forID: 42) == nil)
        #expect(OnHMIStatus.functionID == 32768)
        #expect(OnEncodedSyncPData.functionID == 98304)
        #expect(GenericResponse.functionID == 31 && GenericResponse.messageType == .response)
        #expect(RegisterAppInterfaceResponse.functionName == "RegisterAppInterface")
        #expect(RPCRegistry.functionName(forID: 65537) == "SyncPData")  // id without a function in 8.0.0
        #expect(FunctionID.showID.value == 13)
        #expect(FunctionID(value: 32768) == .onHMIStatusID)
        #expect(FunctionID(value: 42) == nil)
    }

    @Test func everyMessageRoundTripsWithEveryParameterSet() throws {
        for function in spec.functions {
            let sample = RPCSampleValues.object(function.params)
            let decoded = try decodeRPCMessage(
                functionID: function.functionID, messageType: function.messageType,
                json: .object(sample), bulk: [1, 2, 3])
            #expect(decoded.bulkData == [1, 2, 3])
            #expect(decoded.additionalParameters.isEmpty, "\(function.name)")
            #expect(decoded.json.numericallyEquals(.object(sample)), "\(function.name) \(function.messageType)")
            #expect(throws: Never.self, "\(function.name) sample must be valid") {
                try spec.validate(function: function.name, messageType: function.messageType, parameters: sample)
            }
            #expect(Set(sample.keys) == Set(function.params.map(\.name)))
        }
    }

    @Test func everyStructRoundTripsWithEveryParameterSet() throws {
        for structure in spec.structs {
            let type = try #require(RPCRegistry.structTypes[structure.name], "no type for \(structure.name)")
            let sample = JSONValue.object(RPCSampleValues.object(structure.params))
            let decoded = try type.init(json: sample, path: structure.name)
            #expect(decoded.json.numericallyEquals(sample), "\(structure.name)")
            #expect(decoded.additionalParameters.isEmpty)
        }
    }

    @Test func missingMandatoryParameterFailsDecoding() {
        #expect(throws: RPCDecodingError(path: "OnHMIStatus.systemContext", reason: "mandatory parameter is missing")) {
            _ = try OnHMIStatus(json: ["hmiLevel": "FULL", "audioStreamingState": "AUDIBLE"], path: "OnHMIStatus")
        }
        #expect(throws: RPCDecodingError(path: "Show.softButtons[0].softButtonID", reason: "expected an integer, found a string")) {
            _ = try Show(json: ["softButtons": [["type": "TEXT", "softButtonID": "1"]]], path: "Show")
        }
    }

    @Test func everyEnumValueRoundTrips() throws {
        for specEnum in spec.enums {
            let type = try #require(RPCRegistry.enumTypes[specEnum.name], "no type for \(specEnum.name)")
            try Self.checkEnum(type, values: specEnum.values)
        }
    }

    static func checkEnum<E: RPCEnum>(_ type: E.Type, values: [String]) throws {
        #expect(E.knownValues.map(\.rawValue) == values)
        for raw in values {
            let value = try E(json: .string(raw), path: "x")
            #expect(value.isKnown)
            #expect(value.json == .string(raw))
        }
        let unknown = try E(json: "VALUE_FROM_A_NEWER_HEAD_UNIT", path: "x")
        #expect(!unknown.isKnown)
        #expect(unknown.json == "VALUE_FROM_A_NEWER_HEAD_UNIT")
        #expect(unknown.rawValue == "VALUE_FROM_A_NEWER_HEAD_UNIT")
    }

    @Test func unknownEnumValueInsideAMessageRoundTrips() throws {
        let json: JSONValue = ["hmiLevel": "HOVER", "audioStreamingState": "AUDIBLE", "systemContext": "MAIN"]
        let status = try OnHMIStatus(json: json, path: "OnHMIStatus")
        #expect(status.hmiLevel == HMILevel(rawValue: "HOVER"))
        #expect(!status.hmiLevel.isKnown)
        #expect(status.json == json)
    }

    @Test func unknownKeysSurviveARoundTrip() throws {
        let json: JSONValue = [
            "mainField1": "Hello",
            "futureParameter": ["nested": [1, 2.5, "x"]],
            "softButtons": [["type": "TEXT", "text": "OK", "softButtonID": 1, "futureButtonKey": true]],
        ]
        let show = try Show(json: json, path: "Show")
        #expect(show.additionalParameters == ["futureParameter": ["nested": [1, 2.5, "x"]]])
        #expect(show.softButtons?.first?.additionalParameters == ["futureButtonKey": true])
        #expect(show.json == json)
    }

    @Test func namingRulesAndRenames() {
        #expect(ResultCode.success.rawValue == "SUCCESS")
        #expect(SDLCharacterSet.utf8.rawValue == "UTF_8")
        #expect(SDLDimension._2d.rawValue == "2D")
        #expect(MessageType.request.rawValue == "request")
        #expect(BitsPerSample._16Bit.rawValue == "16_BIT")
        #expect(SamplingRate._8khz.rawValue == "8KHZ")
        #expect(DisplayType.gen3_8Inch.rawValue == "GEN3_8-INCH")
        #expect(Language.enUs.rawValue == "EN-US")
        #expect(PredefinedLayout.nonMedia.rawValue == "NON-MEDIA")
        #expect(AppHMIType.`default`.rawValue == "DEFAULT")
        #expect(ImageFieldName.alertIcon.rawValue == "alertIcon")
        #expect(FileType.json.rawValue == "JSON")
        #expect(FunctionID.registerAppInterfaceID.rawValue == "RegisterAppInterfaceID")
        // A parameter that is a Swift keyword keeps its wire name.
        let capability = VideoStreamingFormat(protocol: .raw, codec: .h264)
        #expect(capability.json == ["protocol": "RAW", "codec": "H264"])
    }

    @Test("a mandatory array the head unit left out reads as empty (sdl_core 8.2's stock image fields); other mandatory parameters still fail")
    func missingMandatoryArray() throws {
        // What core 8.2 sends with its stock hmi_capabilities.json, seen on a real core.
        let field = try ImageField(json: ["name": "graphic", "imageResolution": ["resolutionWidth": 35, "resolutionHeight": 35]], path: "ImageField")
        #expect(field.imageTypeSupported == [] && field.name == .graphic)
        #expect(throws: RPCDecodingError.self) { try ImageField(json: ["imageTypeSupported": ["GRAPHIC_PNG"]], path: "ImageField") }
        #expect(throws: RPCDecodingError.self) { try ImageField(json: ["name": "graphic", "imageTypeSupported": "GRAPHIC_PNG"], path: "ImageField") }
    }
}
