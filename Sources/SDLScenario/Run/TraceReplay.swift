public import SmartDeviceLink
import Foundation

/// Records the driver actions of a run in its trace, so a replay can repeat them.
public struct TracingDriver: ScenarioDriver {
    let inner: any ScenarioDriver
    let writer: any TraceWriter
    let scenario: String

    /// Performs `inner`'s actions, recording each in `writer` first.
    public init(_ inner: any ScenarioDriver, writer: any TraceWriter, scenario: String) {
        self.inner = inner
        self.writer = writer
        self.scenario = scenario
    }

    public func perform(_ action: DriverAction) async throws {
        writer.record(driver: action, scenario: scenario)
        try await inner.perform(action)
    }

    public var dropsTheLink: Bool { inner.dropsTheLink }
    public func hmiMessages() async -> AsyncStream<HMIMessage>? { await inner.hmiMessages() }
}

/// Replays the app side of a recorded exchange (`--trace` file) against a head unit and
/// compares each response's result code with the recorded one.
///
/// Requests are re-sent in the recorded order with their recorded parameters and bulk data,
/// and driver actions are performed where they happened. Causality is kept as recorded:
/// before each request or driver action, the replay waits for the responses that had
/// arrived by then in the recording. An Alert that the driver answered later is therefore
/// not waited for before the driver's press; the notifications that had come by then (the
/// ALERT system context the alert brought) are, for a while, before a driver action.
public struct TraceReplay: Sendable {
    /// One step of the recording.
    public enum Event: Sendable {
        /// A request the app sent, with its bulk data.
        case request(function: String, functionID: UInt32, correlationID: Int32, parameters: JSONObject, bulkData: [UInt8])
        /// A driver action performed.
        case driver(DriverAction)
        /// The recorded response to `correlationID` had arrived at this point.
        case responseArrived(correlationID: Int32, resultCode: String)
        /// A notification of this name had arrived at this point.
        case notificationArrived(String)
    }

    /// The outcome of one replayed request.
    public struct Comparison: Sendable {
        /// The request's name.
        public var function: String
        /// The result code in the recording.
        public var recorded: String
        /// The result code now.
        public var replayed: String
        /// Whether the two are the same.
        public var matches: Bool { recorded == replayed }
    }

    /// The recorded scenario's name.
    public let scenario: String
    /// What the recording holds, in order.
    public let events: [Event]

    /// Why a trace cannot be replayed.
    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the frames of one scenario (the first when `scenario` is nil) from a trace file.
    public init(tracePath: String, scenario: String? = nil) throws(ReadError) {
        guard let data = FileManager.default.contents(atPath: tracePath) else {
            throw ReadError(description: "cannot read \(tracePath)")
        }
        var chosen = scenario
        var events: [Event] = []
        var sentAssembler = FrameReassembler(), receivedAssembler = FrameReassembler()
        for (number, line) in data.split(separator: 0x0A).enumerated() {
            guard let entry = try? JSONValue.parse(Array(line)).objectValue else {
                throw ReadError(description: "\(tracePath):\(number + 1): not a JSON object")
            }
            let name = entry["scenario"]?.stringValue ?? ""
            if chosen == nil { chosen = name }
            guard name == chosen else { continue }
            // A replay is one app on one link; several apps' exchanges interleave in such a trace.
            if let app = entry["app"]?.stringValue {
                throw ReadError(description: "\(tracePath):\(number + 1): scenario \(name) has several apps (this line is \(app)'s); "
                                + "replay plays one app's exchange: run the scenario itself instead")
            }
            switch entry["direction"]?.stringValue {
            case "driver":
                let action = DriverAction(name: entry["action"]?.stringValue ?? "", arguments: entry["arguments"]?.objectValue ?? [:])
                events.append(.driver(action))
            case "sent", "received":
                // A trace with decoded messages: the line that completes one carries it.
                if entry["time"] != nil {
                    if let rpc = entry["rpc"]?.objectValue { try Self.read(rpc, entry, line: number + 1, path: tracePath, into: &events) }
                    continue
                }
                // An older trace: every frame's bytes, put together here.
                let sent = entry["direction"]?.stringValue == "sent"
                var decoder = FrameDecoder(maximumPayloadSize: Int(Int32.max), fromHeadUnit: !sent)
                guard case .frame(let frame)? = decoder.decode(entry["bytes"]?.stringValue?.hexBytes ?? []).first else {
                    throw ReadError(description: "\(tracePath):\(number + 1): the bytes are not a frame")
                }
                guard frame.header.frameType != .control, frame.header.serviceType == .rpc || frame.header.serviceType == .hybrid
                else { continue }
                let outcome = sent ? sentAssembler.receive(frame, now: .now) : receivedAssembler.receive(frame, now: .now)
                guard case .message(_, let payload) = outcome, let packet = try? RPCPacket(decoding: payload) else { continue }
                let parameters = (try? JSONValue.parse(packet.json))?.objectValue ?? [:]
                if sent, packet.messageType == .request {
                    events.append(.request(
                        function: RPCRegistry.functionName(forID: packet.functionID) ?? "Function\(packet.functionID)",
                        functionID: packet.functionID, correlationID: packet.correlationID,
                        parameters: parameters, bulkData: Array(packet.bulkData)))
                } else if !sent, packet.messageType == .response {
                    events.append(.responseArrived(correlationID: packet.correlationID,
                                                   resultCode: parameters["resultCode"]?.stringValue ?? "(none)"))
                } else if !sent, packet.messageType == .notification, let name = RPCRegistry.functionName(forID: packet.functionID) {
                    events.append(.notificationArrived(name))
                }
            default:
                continue
            }
        }
        guard let chosen, events.contains(where: { if case .request = $0 { return true } else { return false } }) else {
            throw ReadError(description: "\(tracePath) has no requests" + (scenario.map { " of scenario \($0)" } ?? ""))
        }
        self.scenario = chosen
        self.events = events
    }

    /// One decoded message of a trace: a request to send again, or a response's arrival.
    private static func read(_ rpc: JSONObject, _ entry: JSONObject, line: Int, path: String, into events: inout [Event]) throws(ReadError) {
        let sent = entry["direction"]?.stringValue == "sent"
        let parameters = rpc["json"]?.objectValue ?? [:]
        let type = rpc["type"]?.stringValue
        if sent, type == "request" {
            let bulkBytes = Int(rpc["bulkBytes"]?.intValue ?? 0)
            let bulk = rpc["bulk"]?.stringValue?.hexBytes ?? []
            guard bulk.count == bulkBytes else {
                throw ReadError(description: "\(path):\(line): \(rpc["name"]?.stringValue ?? "a request") carried \(bulkBytes) bytes of "
                                + "bulk data, and the trace has only their length: record it again with --trace-bytes to replay it")
            }
            let functionID = UInt32(clamping: rpc["functionID"]?.intValue ?? 0)
            events.append(.request(function: rpc["name"]?.stringValue ?? RPCRegistry.functionName(forID: functionID) ?? "Function\(functionID)",
                                   functionID: functionID, correlationID: Int32(clamping: rpc["correlationID"]?.intValue ?? 0),
                                   parameters: parameters, bulkData: bulk))
        } else if !sent, type == "response" {
            events.append(.responseArrived(correlationID: Int32(clamping: rpc["correlationID"]?.intValue ?? 0),
                                           resultCode: parameters["resultCode"]?.stringValue ?? "(none)"))
        } else if !sent, type == "notification", let name = rpc["name"]?.stringValue {
            events.append(.notificationArrived(name))
        }
    }

    /// Replays against `target`; returns one comparison per request, in order.
    public func replay(on target: ScenarioTarget, responseTimeout: Duration = .seconds(15)) async throws -> [Comparison] {
        let connection = SDLConnection(transport: try target.makeTransport(), configuration: .init(startTimeout: target.registrationTimeout))
        try await connection.start()
        let responses = ResponseBook()
        let stream = await connection.messages()
        let collector = Task {
            for await message in stream {
                if message.messageType == .response { await responses.add(message) } else { await responses.count(message.functionName) }
            }
        }
        defer { collector.cancel() }
        var replayID: [Int32: Int32] = [:]        // recorded correlation id → replayed one
        var functionOf: [Int32: String] = [:]
        var recordedCode: [Int32: String] = [:]
        var arrived: [Int32] = []                 // recorded ids whose responses the recording had by now
        var order: [Int32] = []
        var notified: [String: Int] = [:]          // notifications the recording had by now
        for event in events {
            switch event {
            case .notificationArrived(let name):
                notified[name, default: 0] += 1
            case .responseArrived(let id, let code):
                recordedCode[id] = code
                arrived.append(id)
            case .request(let function, let functionID, let id, let parameters, let bulk):
                try await responses.waitFor(arrived.compactMap { replayID[$0] }, timeout: responseTimeout)
                replayID[id] = try await connection.post(functionID: functionID, parameters: parameters, bulkData: bulk)
                functionOf[id] = function
                order.append(id)
            case .driver(let action):
                try await responses.waitFor(arrived.compactMap { replayID[$0] }, timeout: responseTimeout)
                // What the head unit had said by then (an alert on screen: ALERT) shows it is
                // ready for the person's action; a notification that never comes again only
                // costs the wait.
                await responses.waitFor(notifications: notified, timeout: .seconds(2))
                try await target.driver?.perform(action)
            }
        }
        try? await responses.waitFor(order.compactMap { replayID[$0] }, timeout: responseTimeout)
        var comparisons: [Comparison] = []
        for id in order {
            let replayed = await replayID[id].asyncFlatMap { await responses.resultCode(of: $0) } ?? "no response"
            comparisons.append(Comparison(function: functionOf[id] ?? "?", recorded: recordedCode[id] ?? "no response", replayed: replayed))
        }
        await connection.stop()
        await target.finish()
        return comparisons
    }
}

/// Responses by correlation id, with waiting.
private actor ResponseBook {
    private var codes: [Int32: String] = [:]
    private var notified: [String: Int] = [:]
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func add(_ envelope: RPCEnvelope) {
        codes[envelope.correlationID] = envelope.resultCode ?? "(none)"
        wakeAll()
    }

    func count(_ notification: String) {
        notified[notification, default: 0] += 1
        wakeAll()
    }

    func resultCode(of id: Int32) -> String? { codes[id] }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    func waitFor(_ ids: [Int32], timeout: Duration) async throws {
        guard await wait(timeout, until: { $0.codes(have: ids) }) else {
            throw Timeout(description: "no response to correlation ids \(ids.filter { codes[$0] == nil }) within \(timeout)")
        }
    }

    /// Waits until at least these many notifications of each name came, or `timeout` passes.
    func waitFor(notifications wanted: [String: Int], timeout: Duration) async {
        _ = await wait(timeout, until: { book in wanted.allSatisfy { book.notified[$0.key, default: 0] >= $0.value } })
    }

    private func codes(have ids: [Int32]) -> Bool { ids.allSatisfy { codes[$0] != nil } }

    /// Waits until `done` holds, woken by each arrival; false if `timeout` passed first.
    private func wait(_ timeout: Duration, until done: (isolated ResponseBook) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done(self) {
            guard ContinuousClock.now < deadline else { return false }
            let timer = Task {
                try? await Task.sleep(until: deadline)
                self.wakeAll()
            }
            await withCheckedContinuation { waiters.append($0) }
            timer.cancel()
        }
        return true
    }

    private func wakeAll() {
        let woken = waiters
        waiters.removeAll()
        for waiter in woken { waiter.resume() }
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async -> U?) async -> U? {
        guard let value = self else { return nil }
        return await transform(value)
    }
}

extension String {
    /// Bytes from hex digits ("0a1b" → [0x0A, 0x1B]); other characters are skipped.
    package var hexBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for c in utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            default: continue
            }
            if let h = high { bytes.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return bytes
    }
}
