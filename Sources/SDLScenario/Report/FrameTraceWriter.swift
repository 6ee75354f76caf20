public import SmartDeviceLink
import Foundation

/// `--trace FILE`: every frame, one JSON object per line in the order seen, plus the driver
/// actions between them; enough for ``TraceReplay`` to replay the exchange.
///
/// A line has the frame's header fields, the link, and absolute (`time`) and relative
/// (`timeMS`) times. A control frame carries its BSON payload as JSON. The frame that
/// completes an RPC message (a single frame, or the last of a multi-frame one) carries it
/// decoded: name, message type, correlation id, JSON parameters, and its bulk data as a
/// length and a CRC-32, so a large message is not written twice. A received message that breaks
/// the RPC spec carries `specViolations` (path and problem each), as the run's spec check
/// reports them. A frame found after garbage (noise on a serial line) carries `skippedBefore`:
/// how many bytes were skipped and why the first could not start a frame. `fullBytes` (`--trace-bytes`)
/// adds every frame's bytes and the bulk data in hex, for byte-level work (fuzz seeds, replaying
/// uploads).
public final class FrameTraceWriter: TraceWriter, @unchecked Sendable {
    // `lock` serializes appends from the connection's actor, the closing call, and the
    // reassemblers of multi-frame messages.
    private let lock = NSLock()
    private let handle: FileHandle
    private let start = ContinuousClock.now
    private let wallStart = Date()
    private let fullBytes: Bool
    /// Made once: a formatter is costly to make, and every frame is stamped (used under `lock`).
    private let timestamps: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    /// Multi-frame messages being put together, per scenario, link and direction.
    private var reassemblers: [String: FrameReassembler] = [:]

    /// A trace at `path` (replaced); `fullBytes` keeps every frame's bytes (`--trace-bytes`).
    public init(path: String, fullBytes: Bool = false) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = handle
        self.fullBytes = fullBytes
    }

    public func record(_ event: FrameTraceEvent, scenario: String, app: String?) {
        lock.lock()
        defer { lock.unlock() }
        var object = times(event.time)
        object["scenario"] = .string(scenario)
        if let app { object["app"] = .string(app) }
        object.merge(frameFields(event)) { _, new in new }
        if let rpc = completedMessage(event, stream: "\(scenario)\u{0}\(app ?? "")") { object["rpc"] = .object(rpc) }
        handle.write(Data((JSONValue.object(object).serialized() + "\n").utf8))
    }

    /// Records a driver action, so a replay can perform it at the same point.
    public func record(driver action: DriverAction, scenario: String) {
        lock.lock()
        defer { lock.unlock() }
        var object = times(ContinuousClock.now)
        object.merge(["scenario": .string(scenario), "direction": "driver", "action": .string(action.name),
                      "arguments": .object(action.arguments)]) { _, new in new }
        handle.write(Data((JSONValue.object(object).serialized() + "\n").utf8))
    }

    /// Writes what is buffered and closes the file.
    public func close() {
        lock.lock(); defer { lock.unlock() }
        try? handle.close()
    }

    // MARK: - Lines

    private func times(_ instant: ContinuousClock.Instant) -> JSONObject {
        let elapsed = (instant - start).seconds
        let wall = wallStart.addingTimeInterval(elapsed)
        return ["time": .string(timestamps.string(from: wall)), "timeMS": .double((elapsed * 1_000_000).rounded() / 1000)]
    }

    private func frameFields(_ event: FrameTraceEvent) -> JSONObject {
        let header = event.frame.header
        var object: JSONObject = [
            "direction": .string(event.direction.rawValue), "link": .string(event.link.rawValue),
            "version": .int(Int64(header.version)), "encrypted": .bool(header.isEncrypted),
            "frameType": .string("\(header.frameType)"), "service": .string(header.serviceType.description),
            "frameInfo": .int(Int64(header.frameInfo)), "sessionID": .int(Int64(header.sessionID)),
            "dataSize": .int(Int64(header.dataSize)), "messageID": .int(Int64(header.messageID)),
        ]
        if fullBytes { object["bytes"] = .string(Self.hex(header.encoded + event.frame.payload)) }
        if let (bytes, problem) = event.skippedBefore {
            object["skippedBefore"] = ["bytes": .int(Int64(bytes)), "problem": .string(problem)]
        }
        if let info = header.controlInfo { object["control"] = .string("\(info)") }
        if header.frameType == .control, !header.isEncrypted, !event.frame.payload.isEmpty,
           let bson = try? BSONDocument(decoding: event.frame.payload) {
            object["bson"] = bson.json
        }
        if header.frameType == .single, header.serviceType == .control, let query = try? SecurityQuery(decoding: event.frame.payload) {
            object["security"] = Self.fields(of: query)
        }
        return object
    }

    /// A security query as the trace shows it: the TLS handshake's bytes counted (they are the
    /// peers' business), an internal error in full.
    static func fields(of query: SecurityQuery) -> JSONValue {
        var object: JSONObject = [
            "type": .string("\(query.kind)"), "query": .string(query.query == .handshakeData ? "handshakeData" : "internalError"),
            "sequenceNumber": .int(Int64(query.sequenceNumber)), "handshakeBytes": .int(Int64(query.binary.count)),
        ]
        if let (code, text) = query.error {
            object["handshakeBytes"] = nil
            object["error"] = .object(["code": code.map { .int(Int64($0.rawValue)) } ?? .null, "text": .string(text)])
        }
        return .object(object)
    }

    /// The RPC message this frame completes, decoded; nil for other frames.
    private func completedMessage(_ event: FrameTraceEvent, stream: String) -> JSONObject? {
        let header = event.frame.header
        guard header.frameType != .control, header.serviceType == .rpc || header.serviceType == .hybrid else { return nil }
        let key = "\(stream)\u{0}\(event.link.rawValue) \(event.direction.rawValue)"
        var reassembler = reassemblers[key] ?? FrameReassembler()
        let outcome = reassembler.receive(event.frame, now: event.time)
        reassemblers[key] = reassembler
        guard case .message(_, let payload) = outcome, let packet = try? RPCPacket(decoding: payload) else { return nil }
        var rpc: JSONObject = [
            "type": .string(packet.messageType.specName), "functionID": .int(Int64(packet.functionID)),
            "name": .string(RPCRegistry.functionName(forID: packet.functionID) ?? "Function\(packet.functionID)"),
            "correlationID": .int(Int64(packet.correlationID)), "bulkBytes": .int(Int64(packet.bulkData.count)),
        ]
        if let json = try? JSONValue.parse(packet.json) {
            rpc["json"] = json
            if event.direction == .received, let parameters = json.objectValue, let name = RPCRegistry.functionName(forID: packet.functionID) {
                let problems = HeadUnitSpecCheck.problems(function: name, messageType: packet.messageType, parameters: parameters)
                if !problems.isEmpty {
                    rpc["specViolations"] = .array(problems.map { ["path": .string($0.path), "problem": .string($0.problem)] })
                }
            }
        }
        if !packet.bulkData.isEmpty {
            rpc["bulkCRC32"] = .int(Int64(CRC32.checksum(packet.bulkData)))
            if fullBytes { rpc["bulk"] = .string(Self.hex(Array(packet.bulkData))) }
        }
        return rpc
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
