import SmartDeviceLink

/// How high-level scenario actions become RPC parameters.
enum ScenarioActions {
    /// The single request of an action, or nil for actions that send several (menu, put file)
    /// or do more than send (audio pass-thru writes a file).
    static func singleRequest(_ action: Action) -> (String, JSONObject)? {
        func flags(_ names: [String]) -> JSONObject { Dictionary(uniqueKeysWithValues: names.map { ($0, JSONValue.bool(true)) }) }
        switch action {
        case .show(let object): return ("Show", showParameters(object) ?? [:])
        case .alert(let object): return ("Alert", alertParameters(object))
        case .subscribeVehicleData(let names): return ("SubscribeVehicleData", flags(names))
        case .unsubscribeVehicleData(let names): return ("UnsubscribeVehicleData", flags(names))
        case .getVehicleData(let names): return ("GetVehicleData", flags(names))
        case .setAppIcon(let name): return ("SetAppIcon", ["syncFileName": .string(name)])
        case .showManeuver(let object): return ("ShowConstantTBT", maneuverParameters(object))
        case .menu, .audioPassThru, .putFile: return nil
        }
    }

    /// Show: `text` lines go to mainField1…4; nil when there are not 1…4 lines.
    static func showParameters(_ action: JSONObject) -> JSONObject? {
        var parameters: JSONObject = [:]
        if let text = action["text"] {
            let lines: [JSONValue]
            switch text {
            case .string: lines = [text]
            case .array(let items): lines = items
            default: return nil
            }
            guard (1...4).contains(lines.count) else { return nil }
            for (index, line) in lines.enumerated() { parameters["mainField\(index + 1)"] = line }
        }
        if let track = action["mediaTrack"] { parameters["mediaTrack"] = track }
        if let title = action["title"] { parameters["templateTitle"] = title }
        if let alignment = action["alignment"] { parameters["alignment"] = alignment }
        if let graphic = action["graphic"]?.stringValue { parameters["graphic"] = image(graphic) }
        if let graphic = action["secondaryGraphic"]?.stringValue { parameters["secondaryGraphic"] = image(graphic) }
        if let template = action["template"]?.stringValue { parameters["templateConfiguration"] = ["template": .string(template)] }
        if let buttons = action["softButtons"]?.arrayValue { parameters["softButtons"] = .array(buttons.enumerated().map(softButton)) }
        return parameters
    }

    /// ShowConstantTBT from a maneuver: text and secondaryText are its two lines, `distance`
    /// the distance to the maneuver as the driver reads it (navigationText2 when there is
    /// no second line, as the head unit draws it beside the arrow).
    static func maneuverParameters(_ maneuver: JSONObject) -> JSONObject {
        var parameters: JSONObject = [:]
        parameters["navigationText1"] = maneuver["text"]
        parameters["navigationText2"] = maneuver["secondaryText"] ?? maneuver["distance"]
        parameters["eta"] = maneuver["eta"]
        parameters["totalDistance"] = maneuver["totalDistance"]
        parameters["timeToDestination"] = maneuver["timeToDestination"]
        return parameters
    }

    /// Alert: `text` lines to alertText1…3, `tts` to TEXT chunks, soft buttons with ids.
    static func alertParameters(_ action: JSONObject) -> JSONObject {
        var parameters: JSONObject = [:]
        let lines: [JSONValue]
        switch action["text"] {
        case .string(let line)?: lines = [.string(line)]
        case .array(let items)?: lines = items
        default: lines = []
        }
        for (index, line) in lines.prefix(3).enumerated() { parameters["alertText\(index + 1)"] = line }
        switch action["tts"] {
        case .string(let text)?: parameters["ttsChunks"] = [["text": .string(text), "type": "TEXT"]]
        case .array(let chunks)?: parameters["ttsChunks"] = .array(chunks.map { ["text": $0, "type": "TEXT"] })
        default: break
        }
        if let duration = action["duration"] { parameters["duration"] = duration }
        if let tone = action["playTone"] { parameters["playTone"] = tone }
        if let icon = action["icon"]?.stringValue { parameters["alertIcon"] = image(icon) }
        if let buttons = action["softButtons"]?.arrayValue { parameters["softButtons"] = .array(buttons.enumerated().map(softButton)) }
        return parameters
    }

    /// A soft button from `{"id": 1, "text": "OK"}` (or just `"OK"`), as a TEXT button.
    static func softButton(index: Int, _ value: JSONValue) -> JSONValue {
        if case .string(let text) = value {
            return ["softButtonID": .int(Int64(index + 1)), "text": .string(text), "type": "TEXT", "isHighlighted": false, "systemAction": "DEFAULT_ACTION"]
        }
        var button = value.objectValue ?? [:]
        if let id = button.removeValue(forKey: "id") { button["softButtonID"] = id }
        if button["softButtonID"] == nil { button["softButtonID"] = .int(Int64(index + 1)) }
        if button["type"] == nil { button["type"] = button["image"] == nil ? "TEXT" : "BOTH" }
        if let image = button["image"]?.stringValue { button["image"] = self.image(image) }
        return .object(button)
    }

    /// A dynamic image reference to an uploaded file.
    static func image(_ name: String) -> JSONValue {
        ["value": .string(name), "imageType": "DYNAMIC"]
    }

    /// The FileType for a file name's extension.
    static func fileType(for path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "png": return "GRAPHIC_PNG"
        case "jpg", "jpeg": return "GRAPHIC_JPEG"
        case "bmp": return "GRAPHIC_BMP"
        case "wav": return "AUDIO_WAVE"
        case "mp3": return "AUDIO_MP3"
        case "aac": return "AUDIO_AAC"
        case "json": return "JSON"
        default: return "BINARY"
        }
    }
}
