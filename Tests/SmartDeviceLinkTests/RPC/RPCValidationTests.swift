import SmartDeviceLink
import Testing

@Suite("RPC spec validation")
struct RPCValidationTests {
    func error(_ function: String, _ parameters: JSONObject, as type: RPCMessageType = .request) -> RPCValidationError? {
        do {
            try RPCSpec.validate(function: function, messageType: type, parameters: parameters)
            return nil
        } catch {
            return error
        }
    }

    @Test func missingMandatory() throws {
        let e = try #require(error("AddCommand", ["menuParams": ["menuName": "x"]]))
        #expect(e.rpc == "AddCommand" && e.path == "AddCommand.cmdID" && e.limit == .mandatory)
        #expect(e.description == "AddCommand.cmdID is missing but mandatory in the AddCommand request; add it.")
        let nested = try #require(error("Show", ["softButtons": [["type": "TEXT", "softButtonID": 1], ["type": "TEXT"]]]))
        #expect(nested.path == "Show.softButtons[1].softButtonID")
    }

    @Test func minAndMaxValue() throws {
        let low = try #require(error("Alert", ["alertText1": "x", "duration": 2999]))
        #expect(low.path == "Alert.duration" && low.limit == .minValue(3000) && low.found == "2999")
        #expect(low.description == "Alert.duration is 2999, below the minimum value 3000; use a value of at least 3000.")
        let high = try #require(error("Show", ["softButtons": [["type": "TEXT", "softButtonID": 65536]]]))
        #expect(high.limit == .maxValue(65535))
        #expect(high.description
            == "Show.softButtons[0].softButtonID is 65536, above the maximum value 65535; use a value of at most 65535.")
        let float = try #require(error("OnVehicleData", ["speed": 700.5], as: .notification))
        #expect(float.description == "OnVehicleData.speed is 700.5, above the maximum value 700; use a value of at most 700.")
    }

    @Test func minAndMaxLength() throws {
        let long = try #require(error("Show", ["softButtons": [
            ["type": "TEXT", "softButtonID": 1], ["type": "TEXT", "softButtonID": 2, "text": .string(String(repeating: "x", count: 501))],
        ]]))
        #expect(long.path == "Show.softButtons[1].text" && long.limit == .maxLength(500) && long.found == "501")
        #expect(long.description
            == "Show.softButtons[1].text is 501 characters long, longer than the maximum length 500; shorten it to at most 500 characters.")
        let short = try #require(error("SetInteriorVehicleData", [
            "moduleData": ["moduleType": "RADIO", "radioControlData": ["sisData": ["stationShortName": "AB"]]],
        ]))
        #expect(short.limit == .minLength(4) && short.found == "2")
        #expect(short.description == "SetInteriorVehicleData.moduleData.radioControlData.sisData.stationShortName "
            + "is 2 characters long, shorter than the minimum length 4; make it at least 4 characters long.")
    }

    @Test("lengths count Unicode scalars, not bytes, on both sides of each limit")
    func lengthsOfMultibyteText() throws {
        func text(_ value: String) -> JSONObject { ["mainField1": .string(value)] }
        #expect(error("Show", text(String(repeating: "é", count: 500))) == nil)  // 1,000 bytes
        let long = try #require(error("Show", text(String(repeating: "é", count: 501))))
        #expect(long.limit == .maxLength(500) && long.found == "501")
        func station(_ name: String) -> JSONObject {
            ["moduleData": ["moduleType": "RADIO", "radioControlData": ["sisData": ["stationShortName": .string(name)]]]]
        }
        #expect(error("SetInteriorVehicleData", station("😀😀😀😀")) == nil)  // 4 scalars, 16 bytes
        let short = try #require(error("SetInteriorVehicleData", station("😀😀é")))  // 3 scalars, 10 bytes
        #expect(short.limit == .minLength(4) && short.found == "3")
    }

    @Test func minAndMaxArraySize() throws {
        let few = try #require(error("AddCommand", ["cmdID": 1, "vrCommands": []]))
        #expect(few.path == "AddCommand.vrCommands" && few.limit == .minSize(1) && few.found == "0")
        #expect(few.description == "AddCommand.vrCommands has 0 items, fewer than the minimum array size 1; send at least 1.")
        let button: JSONValue = ["type": "TEXT", "softButtonID": 1]
        let many = try #require(error("Alert", ["alertText1": "x", "softButtons": .array(Array(repeating: button, count: 5))]))
        #expect(many.limit == .maxSize(4))
        #expect(many.description == "Alert.softButtons has 5 items, more than the maximum array size 4; send at most 4.")
    }

    @Test func wrongKind() throws {
        let e = try #require(error("Show", ["mainField1": 5]))
        #expect(e.limit == .kind(expected: "a string"))
        #expect(e.description == "Show.mainField1 must be a string but is an integer (5); send a string.")
        let notInt = try #require(error("AddCommand", ["cmdID": 1.5]))
        #expect(notInt.description == "AddCommand.cmdID must be an integer but is a number (1.5); send an integer.")
        let notArray = try #require(error("AddCommand", ["cmdID": 1, "vrCommands": "Radio"]))
        #expect(notArray.limit == .kind(expected: "an array"))
        let notObject = try #require(error("Show", ["graphic": "cover.png"]))
        #expect(notObject.description
            == #"Show.graphic must be an object (Image) but is a string ("cover.png"); send an object (Image)."#)
    }

    @Test func unknownEnumValueOutgoingButNotIncoming() throws {
        let e = try #require(error("Show", ["alignment": "CENTRE"]))
        #expect(e.limit == .enumValue(enumName: "TextAlignment", known: ["LEFT_ALIGNED", "RIGHT_ALIGNED", "CENTERED"]))
        #expect(e.suggestions == ["CENTERED"])
        #expect(e.description == #"Show.alignment is "CENTRE", which is not a value of the enum TextAlignment (did you mean "CENTERED"?); use one of LEFT_ALIGNED, RIGHT_ALIGNED, CENTERED."#)
        #expect(throws: Never.self) {
            try RPCSpec.validate(function: "OnHMIStatus", messageType: .notification,
                                 parameters: ["hmiLevel": "HOVER", "audioStreamingState": "AUDIBLE", "systemContext": "MAIN",
                                              "futureKey": 1],
                                 direction: .incoming)
        }
    }

    @Test func valueTheParameterDoesNotAllow() throws {
        let e = try #require(error("RegisterAppInterface", ["success": false, "resultCode": "IN_USE"], as: .response))
        #expect(e.path == "RegisterAppInterface.resultCode")
        if case .allowedValues(let allowed) = e.limit { #expect(allowed.contains("SUCCESS")) } else { Issue.record("\(e.limit)") }
    }

    @Test("Of several errors the first in the spec's order is reported, whatever the dictionary's order; unknown names last, the least first")
    func firstErrorInSpecOrder() throws {
        // Show lists mainField1 before mainField2 and alignment; each process seeds the hash
        // (so the dictionary's order) differently.
        let both = try #require(error("Show", ["mainField2": 2, "zzUnknown": 1, "alignment": "UP", "mainField1": 1, "aaUnknown": 1]))
        #expect(both.path == "Show.mainField1")
        let unknowns = try #require(error("Show", ["mainField2": "ok", "zzUnknown": 1, "aaUnknown": 1, "mmUnknown": 1]))
        #expect(unknowns.path == "Show.aaUnknown")
        let mandatoryFirst = try #require(error("AddCommand", ["menuParams": ["menuName": 7]]))
        #expect(mandatoryFirst.path == "AddCommand.cmdID", "cmdID comes before menuParams in the spec")
    }

    @Test func unknownParameterWithSuggestion() throws {
        let e = try #require(error("Show", ["mainFeild1": "Hello"]))
        #expect(e.limit == .knownParameter && e.path == "Show.mainFeild1")
        #expect(e.suggestions.first == "mainField1")
        #expect(e.description.hasPrefix(#"Show.mainFeild1 is not a parameter of the Show request (did you mean "mainField1""#))
        #expect(e.description.hasSuffix("; correct the name or remove it."))
        let typed = Show(mainField1: "Hi", additionalParameters: ["sofButtons": []])
        #expect(throws: RPCValidationError.self) { try RPCSpec.validate(typed) }
    }

    @Test func unknownFunctionWithSuggestion() throws {
        let e = try #require(error("Shwo", ["mainField1": "x"]))
        #expect(e.limit == .knownFunction && e.suggestions == ["Show"])
        #expect(e.description == #"Shwo is not a request of the RPC spec (did you mean "Show"?); correct the function name."#)
    }

    @Test func suggestions() {
        #expect(RPCSpec.suggestions(for: "OnHmiStatus", among: ["OnHMIStatus", "OnButtonPress"]) == ["OnHMIStatus"])
        #expect(RPCSpec.suggestions(for: "registerappinterface", among: RPCSpec.shared.functionNames(.request)) == ["RegisterAppInterface"])
        #expect(RPCSpec.suggestions(for: "xyz", among: ["Show", "Alert"]).isEmpty)
        #expect(RPCSpec.suggestions(for: "FUL", among: HMILevel.knownValues.map(\.rawValue)) == ["FULL"])
    }

    @Test func validTypedMessagePasses() throws {
        let show = Show(mainField1: "Hello", alignment: .centered,
                        softButtons: [SoftButton(type: .text, softButtonID: 1, text: "OK")])
        try RPCSpec.validate(show)
        let lookup = try #require(RPCSpec.shared.function(named: "Show", messageType: .request))
        #expect(lookup.functionID == 13)
        #expect(lookup.param(named: "mainField1")?.maxLength == 500)
        #expect(RPCSpec.shared.structure(named: "SoftButton")?.param(named: "softButtonID")?.maxValue == 65535)
        #expect(RPCSpec.shared.enumeration(named: "Result")?.values.first == "SUCCESS")
    }
}
