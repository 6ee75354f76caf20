import SmartDeviceLink
import SDLScenario

/// What a fuzz input broke: a property the code under test must keep for every input.
///
/// libFuzzer treats a thrown finding as a crash (`sdl-fuzz` traps with this text); the
/// regression tests report it as a failure naming the input file.
public struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    public var target: FuzzTarget
    public var property: String
    public var description: String { "\(target.rawValue): \(property)" }
}

/// The parsers that read what a peer or a user sends, each with the properties it keeps
/// for any bytes at all. Crashes (traps, overflows, out-of-bounds reads) are found by the
/// sanitizers underneath; a broken property is thrown as a ``FuzzFinding``.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Frame decoding in arbitrary read splits, reassembly, and both roles' state machines.
    case frames
    /// BSON control payloads.
    case bson
    /// RPC payloads: the binary header, the JSON, the typed decoding and the spec check.
    case rpc
    /// Scenario files.
    case scenario
    /// Security queries: the TLS handshake's and the security errors' envelope.
    case security

    /// Runs one input.
    public func run(_ input: [UInt8]) throws(FuzzFinding) {
        switch self {
        case .frames: try FrameProperties(input: input).check()
        case .bson: try Self.checkBSON(input)
        case .rpc: try RPCProperties.check(input)
        case .scenario: Self.checkScenario(input)
        case .security: try Self.checkSecurityQuery(input)
        }
    }

    func finding(_ property: String) -> FuzzFinding { FuzzFinding(target: self, property: property) }

    // MARK: - BSON

    /// Decoding loses nothing: a document without arrays encodes to exactly the bytes it
    /// came from (array keys are the only thing BSON lets a writer choose), and with arrays
    /// encoding reaches a fixed point at once.
    private static func checkBSON(_ input: [UInt8]) throws(FuzzFinding) {
        guard let document = try? BSONDocument(decoding: input) else { return }
        let encoded = document.encoded
        if !containsArray(document), encoded != input {
            throw FuzzTarget.bson.finding("a document without arrays did not encode to the bytes it was decoded from")
        }
        guard let again = try? BSONDocument(decoding: encoded) else {
            throw FuzzTarget.bson.finding("a decoded document encodes to bytes that do not decode")
        }
        guard again.encoded == encoded else { throw FuzzTarget.bson.finding("encoding is not stable") }
    }

    private static func containsArray(_ document: BSONDocument) -> Bool {
        document.elements.contains { element in
            switch element.value {
            case .array: return true
            case .document(let inner): return containsArray(inner)
            default: return false
            }
        }
    }

    // MARK: - Security queries

    /// A query that decodes encodes to exactly the bytes it came from (every field is kept),
    /// and reading its error never traps.
    private static func checkSecurityQuery(_ input: [UInt8]) throws(FuzzFinding) {
        guard let query = try? SecurityQuery(decoding: input) else { return }
        guard query.encoded == input else { throw FuzzTarget.security.finding("a decoded query did not encode to the bytes it came from") }
        _ = query.error
    }

    // MARK: - Scenario

    /// Any bytes parse to a scenario or to a typed error with a message; never a trap.
    private static func checkScenario(_ input: [UInt8]) {
        _ = try? ScenarioParser.parse(input, source: "fuzz-input.json", baseDirectory: "/nonexistent")
    }
}

/// The frame layer's properties for one input. The first byte picks the read sizes; the
/// rest is the byte stream.
struct FrameProperties {
    let splitSeed: UInt8
    let stream: [UInt8]
    private let start = ContinuousClock.now

    init(input: [UInt8]) {
        splitSeed = input.first ?? 0
        stream = Array(input.dropFirst())
    }

    func check() throws(FuzzFinding) {
        let events = try decodeInReads()
        try reassemble(events)
        try lendingMatchesCopying()
        // One role per input, chosen by the seed's low bit: both get explored, each input
        // costs half, and the fuzzer runs twice as many.
        if splitSeed & 1 == 0 {
            var headUnit = HeadUnitProtocolMachine()
            try drive(&headUnit, role: "head unit") { machine, request, now in
                (try? machine.acceptStartService(request, now: now)) ?? []
            }
        } else {
            var app = AppProtocolMachine()
            let started = (try? app.startSession(now: start)) ?? []
            try drive(&app, role: "app", first: started) { _, _, _ in [] }
        }
    }

    /// The reads `stream` arrives in: sizes from 1 to 64 taken from a generator seeded by
    /// the first byte, so the fuzzer explores splits as well as contents.
    private var reads: [ArraySlice<UInt8>] {
        var state = UInt32(splitSeed) &* 2_654_435_761 | 1
        var reads: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < stream.count {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            let size = Int(state % 64) + 1
            reads.append(stream[offset..<min(offset + size, stream.count)])
            offset += size
        }
        return reads
    }

    /// Whatever the reads look like, the decoder finds the same frames and malformed runs
    /// as from the whole stream at once; each frame re-encodes to a frame that decodes alone.
    private func decodeInReads() throws(FuzzFinding) -> [FrameDecoder.Event] {
        var whole = FrameDecoder(maximumPayloadSize: 4096)
        let expected = whole.decode(stream)
        var split = FrameDecoder(maximumPayloadSize: 4096)
        split.directFillSize = 8  // frames that go beyond a read fill their payload from the reads
        var events: [FrameDecoder.Event] = []
        for read in reads { events += split.decode(read) }
        guard events == expected else {
            throw FuzzTarget.frames.finding("reads split differently gave other frames (\(events.count) events, \(expected.count) from the whole stream)")
        }
        for case .frame(let frame) in events {
            var alone = FrameDecoder(maximumPayloadSize: 4096)
            guard alone.decode(frame.encoded) == [.frame(frame)] else {
                throw FuzzTarget.frames.finding("a decoded frame does not re-encode to itself")
            }
        }
        return events
    }

    /// The reassembler never holds more than its limits, and no message exceeds its size
    /// by more than its last frame (an encrypted last frame carries more than its plaintext).
    private func reassemble(_ events: [FrameDecoder.Event]) throws(FuzzFinding) {
        var reassembler = FrameReassembler(timeout: .seconds(1), maximumMessageSize: 8192,
                                           maximumPendingMessages: 4, maximumPendingBytes: 16384)
        var now = start
        for case .frame(let frame) in events {
            now += .milliseconds(100)
            if case .message(_, let payload) = reassembler.receive(frame, now: now), frame.header.frameType == .consecutive,
               payload.count > reassembler.maximumMessageSize + frame.payload.count {
                throw FuzzTarget.frames.finding("a reassembled message of \(payload.count) bytes passed the limit")
            }
            guard reassembler.pendingCount <= reassembler.maximumPendingMessages else {
                throw FuzzTarget.frames.finding("\(reassembler.pendingCount) unfinished messages held, above the limit")
            }
            _ = reassembler.expire(now: now)
        }
    }

    /// A reassembler that lends its messages to the decoder (as the machines read) ends with
    /// the outcomes, the messages and the held bytes of one that is given every frame, also
    /// when some loaned frames are given back unreassembled (a session that ended).
    private func lendingMatchesCopying() throws(FuzzFinding) {
        func limited() -> FrameReassembler {
            FrameReassembler(timeout: .seconds(1), maximumMessageSize: 8192, maximumPendingMessages: 4, maximumPendingBytes: 16384)
        }
        var copying = (decoder: FrameDecoder(maximumPayloadSize: 4096), reassembler: limited())
        var lending = (decoder: FrameDecoder(maximumPayloadSize: 4096), reassembler: limited())
        copying.decoder.directFillSize = 8
        lending.decoder.directFillSize = 8
        var expected: [FrameReassembler.Outcome] = [], outcomes: [FrameReassembler.Outcome] = []
        var frameCount = 0, loanedCount = 0
        func skipped(_ index: Int) -> Bool { (index + Int(splitSeed)) % 5 == 0 }
        for read in reads {
            copying.decoder.append(read)
            while let event = copying.decoder.next() {
                guard case .frame(let frame) = event else { continue }
                frameCount += 1
                if !skipped(frameCount) { expected.append(copying.reassembler.receive(frame, now: start)) }
            }
            lending.decoder.append(read, lending: &lending.reassembler)
            while let event = lending.decoder.next(lending: &lending.reassembler) {
                loanedCount += 1
                switch event {
                case .malformed: loanedCount -= 1
                case .frame(let frame):
                    if !skipped(loanedCount) { outcomes.append(lending.reassembler.receive(frame, now: start)) }
                case .loaned(let header, let buffer):
                    if skipped(loanedCount) {
                        lending.reassembler.giveBack(header, buffer: buffer)
                    } else {
                        outcomes.append(lending.reassembler.receive(loaned: header, buffer: buffer))
                    }
                }
            }
        }
        guard outcomes == expected, frameCount == loanedCount else {
            throw FuzzTarget.frames.finding("lending the reassembler's messages to the decoder changed what was reassembled")
        }
        guard lending.reassembler.pendingByteCount == copying.reassembler.pendingByteCount,
              lending.reassembler.pendingCount == copying.reassembler.pendingCount,
              lending.decoder.bufferedByteCount == copying.decoder.bufferedByteCount else {
            throw FuzzTarget.frames.finding("lending the reassembler's messages to the decoder changed what is held")
        }
    }

    /// Fed the stream in reads, a protocol machine of either role only ever sends
    /// well-formed frames back, whatever it received; `accept` answers its StartService requests.
    private func drive<Machine: ProtocolMachine>(
        _ machine: inout Machine, role: String, first: [ProtocolAction] = [],
        accept: (inout Machine, StartServiceRequest, ContinuousClock.Instant) -> [ProtocolAction]
    ) throws(FuzzFinding) {
        var sent = FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1))
        var now = start
        var actions = first
        for read in reads {
            now += .milliseconds(10)
            actions += machine.receive(read, now: now)
            var answers: [ProtocolAction] = []
            for case .startServiceRequested(let request) in actions { answers += accept(&machine, request, now) }
            actions += answers + machine.tick(now: now)
            for case .send(let bytes) in actions {
                for case .malformed(let problem) in sent.decode(bytes) {
                    throw FuzzTarget.frames.finding("the \(role) machine sent a malformed frame: \(problem)")
                }
            }
            actions.removeAll(keepingCapacity: true)
        }
    }
}

/// The RPC layer's properties for one payload.
enum RPCProperties {
    /// Each (function id, message type) of the spec, to its generated type.
    static let types: [Key: any RPCMessage.Type] = Dictionary(
        RPCRegistry.messageTypes.map { (Key(functionID: $0.functionID, messageType: $0.messageType), $0) },
        uniquingKeysWith: { first, _ in first })

    struct Key: Hashable {
        var functionID: UInt32
        var messageType: RPCMessageType
    }

    /// A payload that decodes keeps its parameters through JSON serialisation, and its
    /// typed form through encoding and decoding; the spec check answers without trapping.
    static func check(_ input: [UInt8]) throws(FuzzFinding) {
        guard let envelope = try? RPCEnvelope(decoding: input) else { return }
        let serialized = JSONValue.object(envelope.parameters).serializedBytes()
        guard (try? JSONValue.parse(serialized)) == .object(envelope.parameters) else {
            throw FuzzTarget.rpc.finding("parameters changed through serialisation: \(String(decoding: serialized.prefix(200), as: UTF8.self))")
        }
        _ = try? RPCSpec.validate(function: envelope.functionName, messageType: envelope.messageType,
                                  parameters: envelope.parameters, direction: .incoming)
        guard let type = types[Key(functionID: envelope.functionID, messageType: envelope.messageType)] else { return }
        try roundTrip(type, envelope)
    }

    private static func roundTrip<Message: RPCMessage>(_ type: Message.Type, _ envelope: RPCEnvelope) throws(FuzzFinding) {
        guard let message = try? envelope.decoded(as: type) else { return }
        guard let again = try? Message(json: message.json, path: Message.functionName) else {
            throw FuzzTarget.rpc.finding("a decoded \(Message.functionName) encodes to JSON it cannot decode")
        }
        guard again.json == message.json else {
            throw FuzzTarget.rpc.finding("\(Message.functionName) changed through encode and decode")
        }
    }
}
