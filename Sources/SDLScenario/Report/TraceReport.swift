import Foundation
public import SmartDeviceLink

/// A saved JSON-lines `--trace` read back as a run for the HTML report (`sdl-run report`):
/// each scenario of the trace with every RPC and control message of every link, in the shape
/// of the `--json` document. A trace has no steps and no verdicts; what it adds is the
/// protocol's own messages (StartService, its ACK) and which link each went over.
public enum TraceReport {
    /// Why a trace could not be read as a report.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The run in `lines` (one JSON object a line, as `--trace FILE.jsonl` writes them).
    public static func run(lines: some Sequence<Substring>, source: String) throws(Failure) -> JSONValue {
        var order: [String] = []
        var scenarios: [String: (sent: [JSONValue], received: [JSONValue], last: Double)] = [:]
        for (number, line) in lines.enumerated() where !line.isEmpty {
            guard case .object(let frame)? = try? JSONValue.parse(Array(line.utf8)), let direction = frame["direction"]?.stringValue,
                  let time = frame["timeMS"]?.doubleValue else {
                throw Failure(description: "\(source):\(number + 1): not a line of an sdl-run --trace (JSON lines, not .pcapng)")
            }
            let scenario = frame["scenario"]?.stringValue ?? "trace"
            guard let entry = entry(frame, time: time) else { continue }
            if scenarios[scenario] == nil { order.append(scenario) }
            var traced = scenarios[scenario] ?? ([], [], 0)
            if direction == "sent" { traced.sent.append(entry) } else { traced.received.append(entry) }
            traced.last = max(traced.last, time)
            scenarios[scenario] = traced
        }
        guard !order.isEmpty else { throw Failure(description: "\(source) holds no RPC or control message") }
        return ["passed": 0, "failed": 0, "scenarios": .array(order.map { name in
            let traced = scenarios[name]!
            return ["name": .string(name), "source": .string(source), "target": "trace", "status": "traced",
                    "durationMS": .double(traced.last.rounded()), "steps": [],
                    "sent": .array(traced.sent), "received": .array(traced.received)]
        })]
    }

    /// One arrow's message: an RPC with its parameters, or a control frame with its BSON;
    /// a frame of a message in several frames is left out (the message's own line carries it).
    private static func entry(_ frame: JSONObject, time: Double) -> JSONValue? {
        let timeMS = JSONValue.double((time * 100).rounded() / 100)  // as the --json document's fine times
        let link = frame["link"]?.stringValue ?? "primary"
        let label = link == "primary" ? "" : " [\(link)]"
        if let rpc = frame["rpc"]?.objectValue, let name = rpc["name"]?.stringValue {
            var entry: JSONObject = ["timeMS": timeMS, "function": .string(name + label),
                                     "type": rpc["type"] ?? "request", "parameters": rpc["json"] ?? [:], "link": .string(link)]
            if let correlation = rpc["correlationID"] { entry["correlationID"] = correlation }
            if let bulk = rpc["bulkBytes"]?.intValue, bulk > 0 { entry["bulkBytes"] = .int(bulk) }
            return .object(entry)
        }
        guard let control = frame["control"]?.stringValue, control != "heartbeat", control != "heartbeatACK" else { return nil }
        let service = frame["service"]?.stringValue ?? ""
        return ["timeMS": timeMS, "function": .string("\(control) (\(service))\(label)"),
                "type": "control", "parameters": frame["bson"] ?? [:], "link": .string(link)]
    }
}
