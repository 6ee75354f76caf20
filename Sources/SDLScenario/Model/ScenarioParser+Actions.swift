import SmartDeviceLink
import Foundation

/// The high-level actions of the scenario language (show, menu, putFile, alert, ...).
extension ScenarioReader {
    mutating func action(_ key: String, _ value: JSONValue, _ path: String) -> Action? {
        switch key {
        case "show":
            guard let object = objectValue(value, path) else { return nil }
            let allowed = ["text", "mediaTrack", "title", "alignment", "graphic", "secondaryGraphic", "template", "softButtons"]
            unknownKeys(object, allowed: allowed, path)
            guard let request = ScenarioActions.showParameters(object) else {
                issue("\(path).text", "expected 1 to 4 lines of text")
                return nil
            }
            for problem in spec.parameterProblems(function: "Show", type: .request, parameters: request) {
                issue("\(path) (as Show.\(problem.path))", problem.message)
            }
            return .show(object)
        case "menu":
            guard case .array(let items) = value else {
                issue(path, "expected an array of menu items {\"title\": ..., \"voice\": [...], \"items\": [...]}")
                return nil
            }
            return .menu(items.enumerated().compactMap { menuItem($0.element, "\(path)[\($0.offset)]", depth: 0) })
        case "alert":
            guard let object = objectValue(value, path) else { return nil }
            unknownKeys(object, allowed: ["text", "tts", "softButtons", "duration", "playTone", "icon"], path)
            let request = ScenarioActions.alertParameters(object)
            for problem in spec.parameterProblems(function: "Alert", type: .request, parameters: request) {
                issue("\(path) (as Alert.\(problem.path))", problem.message)
            }
            return .alert(object)
        case "subscribe", "unsubscribe", "getVehicleData":
            guard let names = strings(value, path), !names.isEmpty else {
                issue(path, "expected vehicle data names, e.g. [\"speed\", \"rpm\"]")
                return nil
            }
            let function = key == "subscribe" ? "SubscribeVehicleData" : key == "unsubscribe" ? "UnsubscribeVehicleData" : "GetVehicleData"
            let known = spec.parameterNames(function: function, type: .request) ?? names
            for (index, name) in names.enumerated() where !known.contains(name) {
                issue("\(path)[\(index)]", "'\(name)' is not vehicle data of \(function)" + suggestion(name, known))
            }
            return key == "subscribe" ? .subscribeVehicleData(names) : key == "unsubscribe" ? .unsubscribeVehicleData(names) : .getVehicleData(names)
        case "audioPassThru":
            guard let object = objectValue(value, path) else { return nil }
            unknownKeys(object, allowed: ["file", "maxDuration", "samplingRate", "bitsPerSample", "text", "prompt"], path)
            guard let file = string(object["file"], "\(path).file", required: true) else { return nil }
            let rate = string(object["samplingRate"], "\(path).samplingRate") ?? "16KHZ"
            let bits = string(object["bitsPerSample"], "\(path).bitsPerSample") ?? "16_BIT"
            if let problem = spec.enumProblem(enumName: "SamplingRate", value: rate) { issue("\(path).samplingRate", problem) }
            if let problem = spec.enumProblem(enumName: "BitsPerSample", value: bits) { issue("\(path).bitsPerSample", problem) }
            return .audioPassThru(AudioPassThruAction(
                file: resolve(file), fileAsWritten: file, maxDurationMS: int(object["maxDuration"], "\(path).maxDuration", minimum: 1) ?? 5000,
                samplingRate: rate, bitsPerSample: bits, text: strings(object["text"], "\(path).text") ?? ["Recording"],
                prompt: string(object["prompt"], "\(path).prompt")))
        case "putFile":
            guard let object = objectValue(value, path) else { return nil }
            unknownKeys(object, allowed: ["path", "name", "fileType", "persistent", "chunkSize"], path)
            guard let file = string(object["path"], "\(path).path", required: true) else { return nil }
            let fileType = string(object["fileType"], "\(path).fileType") ?? ScenarioActions.fileType(for: file)
            if let problem = spec.enumProblem(enumName: "FileType", value: fileType) { issue("\(path).fileType", problem) }
            let resolved = resolve(file)
            if !FileManager.default.fileExists(atPath: resolved) { issue("\(path).path", "no such file: \(resolved)") }
            return .putFile(PutFileAction(
                path: resolved, name: string(object["name"], "\(path).name") ?? URL(fileURLWithPath: file).lastPathComponent,
                fileType: fileType, persistent: bool(object["persistent"], "\(path).persistent") ?? false,
                chunkSize: int(object["chunkSize"], "\(path).chunkSize", minimum: 1)))
        case "setAppIcon":
            return string(value, path).map(Action.setAppIcon)
        case "showManeuver":
            guard let object = objectValue(value, path) else { return nil }
            unknownKeys(object, allowed: ["text", "secondaryText", "distance", "eta", "totalDistance", "timeToDestination"], path)
            guard string(object["text"], "\(path).text", required: true) != nil else { return nil }
            for problem in spec.parameterProblems(function: "ShowConstantTBT", type: .request, parameters: ScenarioActions.maneuverParameters(object)) {
                issue("\(path) (as ShowConstantTBT.\(problem.path))", problem.message)
            }
            return .showManeuver(object)
        default:
            return nil
        }
    }

    mutating func menuItem(_ value: JSONValue, _ path: String, depth: Int) -> MenuItem? {
        guard let object = objectValue(value, path) else { return nil }
        if object["id"] != nil {
            issue("\(path).id", "the menu manager assigns menu ids; remove \"id\" and refer to the cell as ${menu.<title>}")
        }
        unknownKeys(object, allowed: ["title", "id", "voice", "items"], path)
        guard let title = string(object["title"], "\(path).title", required: true) else { return nil }
        var children: [MenuItem]?
        if let raw = object["items"] {
            guard case .array(let items) = raw else {
                issue("\(path).items", "expected an array of menu items")
                return nil
            }
            if depth >= 1 { issue("\(path).items", "submenus nest one level deep on most head units; flatten this one") }
            children = items.enumerated().compactMap { menuItem($0.element, "\(path).items[\($0.offset)]", depth: depth + 1) }
        }
        return MenuItem(title: title, voiceCommands: strings(object["voice"], "\(path).voice"), items: children)
    }
}
