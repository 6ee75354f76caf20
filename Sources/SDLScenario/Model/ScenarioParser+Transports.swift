import Foundation
import SmartDeviceLink

extension ScenarioReader {
    static let streamServices = ["audio", "video"]

    /// `{"stream": {"service": "video", "bytes": 65536, "chunkSize": 4096, "end": false}}`
    mutating func streamStep(_ value: JSONValue, _ path: String) -> StreamStep? {
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["service", "bytes", "chunkSize", "end", "protected"], path)
        guard let service = string(object["service"], "\(path).service", required: true) else { return nil }
        guard Self.streamServices.contains(service) else {
            issue("\(path).service", "'\(service)' is not a stream; use audio or video" + suggestion(service, Self.streamServices))
            return nil
        }
        return StreamStep(service: service, bytes: int(object["bytes"], "\(path).bytes", minimum: 1) ?? 65_536,
                          chunkSize: int(object["chunkSize"], "\(path).chunkSize", minimum: 1) ?? 4096,
                          end: bool(object["end"], "\(path).end") ?? false, protected: bool(object["protected"], "\(path).protected") ?? false)
    }

    /// `{"expect": {"transport": "serviceMoved", "service": "video", "to": "secondary", "within": 5000}}`
    mutating func transportExpectation(_ object: JSONObject, _ path: String) -> TransportExpectation? {
        unknownKeys(object, allowed: ["transport", "service", "to", "within"], path)
        guard let event = string(object["transport"], "\(path).transport") else { return nil }
        guard TransportEvent.names.contains(event) else {
            issue("\(path).transport", "'\(event)' is not a transport event" + suggestion(event, TransportEvent.names))
            return nil
        }
        let service = string(object["service"], "\(path).service")
        let to = string(object["to"], "\(path).to")
        if let service, !Self.streamServices.contains(service) {
            issue("\(path).service", "'\(service)' is not a stream; use audio or video" + suggestion(service, Self.streamServices))
        }
        if service != nil, !["serviceMoved", "serviceStopped"].contains(event) {
            issue("\(path).service", "only serviceMoved and serviceStopped name a service")
        }
        if let to, !["primary", "secondary"].contains(to) {
            issue("\(path).to", "'\(to)' is not a link; use primary or secondary" + suggestion(to, ["primary", "secondary"]))
        }
        if to != nil, event != "serviceMoved" { issue("\(path).to", "only serviceMoved names the link it moved to") }
        return TransportExpectation(event: event, service: service, to: to, withinMS: int(object["within"], "\(path).within", minimum: 1))
    }

    /// `{"exec": "uhubctl -a off -p 2"}` (through /bin/sh -c) or
    /// `{"exec": {"command": ["uhubctl", "-a", "off"], "timeout": 10000, "exitCode": 0}}`.
    mutating func execStep(_ value: JSONValue, _ path: String) -> ExecStep? {
        var object: JSONObject = ["command": value]
        if case .object(let given) = value {
            object = given
            unknownKeys(object, allowed: ["command", "timeout", "exitCode"], path)
        }
        let arguments: [String]
        switch object["command"] {
        case .string(let line)?:
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else {
                issue("\(path)", "the command is empty")
                return nil
            }
            arguments = ["/bin/sh", "-c", line]
        case .array?:
            guard let list = strings(object["command"], "\(path).command"), !list.isEmpty else {
                issue("\(path).command", "expected the program and its arguments, e.g. [\"uhubctl\", \"-a\", \"off\"]")
                return nil
            }
            arguments = list
        default:
            issue("\(path).command", "is required: a command line (run by /bin/sh) or an array of the program and its arguments")
            return nil
        }
        let exitCode = int(object["exitCode"], "\(path).exitCode") ?? 0
        guard (0...255).contains(exitCode) else {
            issue("\(path).exitCode", "an exit code is 0…255")
            return nil
        }
        return ExecStep(arguments: arguments, timeoutMS: int(object["timeout"], "\(path).timeout", minimum: 1) ?? 30_000,
                        expectedExitCode: Int32(exitCode))
    }
}
