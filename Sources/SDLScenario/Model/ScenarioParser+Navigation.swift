import Foundation
import SmartDeviceLink

/// The navigation steps: `streamVideo`, `streamAudio`, and expectations on stream states and gestures.
extension ScenarioReader {
    /// `{"streamVideo": {"file": "map.h264", "fps": 30, "duration": 2000, "protocol": "RTP"}}` or
    /// `{"streamAudio": {"file": "prompt.wav"}}` (or just the file name).
    mutating func mediaStep(_ key: String, _ value: JSONValue, _ path: String) -> MediaStep? {
        var object: JSONObject = ["file": value]
        if case .object(let given) = value {
            object = given
            unknownKeys(object, allowed: key == "streamVideo" ? ["file", "fps", "timestamps", "duration", "protocol"] : ["file"], path)
        }
        guard let file = string(object["file"], "\(path).file", required: true) else { return nil }
        let resolved = resolve(file)
        if !FileManager.default.fileExists(atPath: resolved) { issue("\(path).file", "no such file: \(resolved)") }
        guard key == "streamVideo" else { return .audio(file: resolved) }
        let fps = object["fps"].flatMap { value -> Double? in
            guard let fps = value.doubleValue, fps > 0 else {
                issue("\(path).fps", "expected frames per second above 0")
                return nil
            }
            return fps
        } ?? 30
        let timestamps = object["timestamps"].flatMap { value -> [Int]? in
            guard let list = value.arrayValue?.compactMap({ $0.intValue.map(Int.init) }), !list.isEmpty, list.count == value.arrayValue?.count else {
                issue("\(path).timestamps", "expected milliseconds, one per frame, e.g. [0, 33, 66]")
                return nil
            }
            return list
        }
        let proto = string(object["protocol"], "\(path).protocol")
        if let proto, !["RAW", "RTP"].contains(proto) {
            issue("\(path).protocol", "'\(proto)' is not a protocol the library streams; use RAW or RTP" + suggestion(proto, ["RAW", "RTP"]))
        }
        return .video(file: resolved, fps: fps, timestampsMS: timestamps, durationMS: int(object["duration"], "\(path).duration", minimum: 1),
                      protocol: proto)
    }

    /// `{"expect": {"stream": "video", "state": "streaming", "within": 5000}}` or `{"expect": {"gesture": "pinch"}}`.
    mutating func mediaExpectation(_ object: JSONObject, _ path: String) -> MediaExpectation? {
        let within = int(object["within"], "\(path).within", minimum: 1)
        if let status = object["lockScreen"] {
            unknownKeys(object, allowed: ["lockScreen", "dismissible", "within"], path)
            guard let name = string(status, "\(path).lockScreen") else { return nil }
            let statuses = LockScreenStatus.allCases.map(\.rawValue)
            guard statuses.contains(name) else {
                issue("\(path).lockScreen", "'\(name)' is not a lock screen status; use OFF, OPTIONAL or REQUIRED" + suggestion(name, statuses))
                return nil
            }
            return .lockScreen(status: name, dismissible: bool(object["dismissible"], "\(path).dismissible"), withinMS: within)
        }
        if let gesture = object["gesture"] {
            unknownKeys(object, allowed: ["gesture", "within"], path)
            guard let name = string(gesture, "\(path).gesture") else { return nil }
            guard MediaExpectation.gestures.contains(name) else {
                issue("\(path).gesture", "'\(name)' is not a gesture" + suggestion(name, MediaExpectation.gestures))
                return nil
            }
            return .gesture(name: name, withinMS: within)
        }
        unknownKeys(object, allowed: ["stream", "state", "within"], path)
        guard let service = string(object["stream"], "\(path).stream"), let state = string(object["state"], "\(path).state", required: true) else {
            return nil
        }
        if !Self.streamServices.contains(service) {
            issue("\(path).stream", "'\(service)' is not a stream; use audio or video" + suggestion(service, Self.streamServices))
        }
        if !MediaExpectation.states.contains(state) {
            issue("\(path).state", "'\(state)' is not a stream state" + suggestion(state, MediaExpectation.states))
        }
        return .stream(service: service, state: state, withinMS: within)
    }
}
