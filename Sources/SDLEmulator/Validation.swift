import SmartDeviceLink

/// Parameter checks that turn out-of-spec requests into INVALID_DATA, as core's schema
/// validation does.
///
/// This is the hook for the spec digest: once the generated `RPCSpec` lands, `problem(in:)`
/// calls `RPCSpec.validate(function:messageType:parameters:)` and this table goes. Until
/// then it covers the mandatory parameters, types and ranges of the RPCs the emulator models.
enum ParameterCheck {
    enum Kind: Sendable { case int(ClosedRange<Int64>), double(ClosedRange<Double>), string(maxLength: Int), bool, array, object, stringArray, intArray }

    struct Rule: Sendable {
        var name: String
        var kind: Kind
        var mandatory: Bool
    }

    private static func r(_ name: String, _ kind: Kind, _ mandatory: Bool = false) -> Rule {
        Rule(name: name, kind: kind, mandatory: mandatory)
    }

    static let id: Kind = .int(0...2_000_000_000)

    static let rules: [String: [Rule]] = [
        "RegisterAppInterface": [r("syncMsgVersion", .object, true), r("appName", .string(maxLength: 100), true),
                                 r("isMediaApplication", .bool, true), r("languageDesired", .string(maxLength: 10), true),
                                 r("hmiDisplayLanguageDesired", .string(maxLength: 10), true), r("appID", .string(maxLength: 100), true),
                                 r("vrSynonyms", .stringArray), r("appHMIType", .stringArray), r("hashID", .string(maxLength: 100)),
                                 r("ttsName", .array)],
        "AddCommand": [r("cmdID", id, true), r("menuParams", .object), r("vrCommands", .stringArray), r("cmdIcon", .object)],
        "DeleteCommand": [r("cmdID", id, true)],
        "AddSubMenu": [r("menuID", .int(1...2_000_000_000), true), r("menuName", .string(maxLength: 500), true),
                       r("position", .int(0...1000)), r("parentID", id)],
        "DeleteSubMenu": [r("menuID", .int(1...2_000_000_000), true)],
        "CreateInteractionChoiceSet": [r("interactionChoiceSetID", id, true), r("choiceSet", .array, true)],
        "DeleteInteractionChoiceSet": [r("interactionChoiceSetID", id, true)],
        "PerformInteraction": [r("initialText", .string(maxLength: 500), true), r("interactionMode", .string(maxLength: 20), true),
                               r("interactionChoiceSetIDList", .intArray, true), r("timeout", .int(5000...100_000))],
        "Alert": [r("alertText1", .string(maxLength: 500)), r("alertText2", .string(maxLength: 500)),
                  r("alertText3", .string(maxLength: 500)), r("ttsChunks", .array), r("duration", .int(3000...10000)),
                  r("softButtons", .array), r("playTone", .bool), r("progressIndicator", .bool)],
        "Speak": [r("ttsChunks", .array, true)],
        "SetMediaClockTimer": [r("updateMode", .string(maxLength: 20), true), r("startTime", .object), r("endTime", .object)],
        "ScrollableMessage": [r("scrollableMessageBody", .string(maxLength: 500), true), r("timeout", .int(1000...65535)),
                              r("softButtons", .array)],
        "Slider": [r("numTicks", .int(2...26), true), r("position", .int(1...26), true), r("sliderHeader", .string(maxLength: 500), true),
                   r("timeout", .int(1000...65535))],
        "SubscribeButton": [r("buttonName", .string(maxLength: 50), true)],
        "UnsubscribeButton": [r("buttonName", .string(maxLength: 50), true)],
        "PerformAudioPassThru": [r("samplingRate", .string(maxLength: 10), true), r("maxDuration", .int(1...1_000_000), true),
                                 r("bitsPerSample", .string(maxLength: 10), true), r("audioType", .string(maxLength: 10), true)],
        "PutFile": [r("syncFileName", .string(maxLength: 255), true), r("fileType", .string(maxLength: 20), true),
                    r("persistentFile", .bool), r("systemFile", .bool), r("offset", .int(0...2_000_000_000)),
                    r("length", .int(0...2_000_000_000)), r("crc", .int(0...4_294_967_295))],
        "DeleteFile": [r("syncFileName", .string(maxLength: 255), true)],
        "SetAppIcon": [r("syncFileName", .string(maxLength: 255), true)],
        "GetSystemCapability": [r("systemCapabilityType", .string(maxLength: 50), true)],
    ]

    static let enums: [String: [String: Set<String>]] = [
        "PerformInteraction": ["interactionMode": ["MANUAL_ONLY", "VR_ONLY", "BOTH"]],
        "SetMediaClockTimer": ["updateMode": ["COUNTUP", "COUNTDOWN", "PAUSE", "RESUME", "CLEAR"]],
        "PerformAudioPassThru": ["samplingRate": ["8KHZ", "16KHZ", "22KHZ", "44KHZ"], "bitsPerSample": ["8_BIT", "16_BIT"],
                                 "audioType": ["PCM"]],
        "PutFile": ["fileType": ["GRAPHIC_BMP", "GRAPHIC_JPEG", "GRAPHIC_PNG", "AUDIO_WAVE", "AUDIO_MP3", "AUDIO_AAC", "BINARY", "JSON"]],
    ]

    /// Why the request's parameters break the spec, or nil.
    static func problem(in request: IncomingRequest) -> String? {
        problem(function: request.name, parameters: request.parameters)
    }

    static func problem(function: String, parameters: JSONObject) -> String? {
        for rule in rules[function] ?? [] {
            guard let value = parameters[rule.name] else {
                if rule.mandatory { return "mandatory parameter \(rule.name) is missing" }
                continue
            }
            let ok: Bool
            switch rule.kind {
            case .int(let range): ok = value.intValue.map(range.contains) ?? false
            case .double(let range): ok = value.doubleValue.map(range.contains) ?? false
            case .string(let maxLength):
                ok = value.stringValue.map { !$0.isEmpty && $0.count <= maxLength } ?? false
            case .bool: ok = value.boolValue != nil
            case .array: ok = value.arrayValue != nil
            case .object: ok = value.objectValue != nil
            case .stringArray: ok = value.arrayValue?.allSatisfy { ($0.stringValue?.isEmpty == false) } ?? false
            case .intArray: ok = value.arrayValue?.allSatisfy { $0.intValue != nil } ?? false
            }
            if !ok { return "parameter \(rule.name) is out of spec (\(value))" }
            if let allowed = enums[function]?[rule.name], let text = value.stringValue, !allowed.contains(text) {
                return "parameter \(rule.name) has no value \(text)"
            }
        }
        return nil
    }
}
