public import Logging

/// An RPC message as it arrived (or was sent), in its dynamic form.
public struct RPCEnvelope: Sendable, Hashable {
    /// Request, response or notification.
    public var messageType: RPCMessageType
    /// The spec's function id.
    public var functionID: UInt32
    /// The spec name of the function, when this spec knows the id.
    public var functionName: String
    /// Pairs a response with its request.
    public var correlationID: Int32
    /// The JSON parameters.
    public var parameters: JSONObject
    /// Binary data sent after the JSON (a PutFile's file, a recording's chunk).
    public var bulkData: [UInt8]

    /// A message of these parts.
    public init(messageType: RPCMessageType, functionID: UInt32, functionName: String, correlationID: Int32,
                parameters: JSONObject, bulkData: [UInt8] = []) {
        self.messageType = messageType
        self.functionID = functionID
        self.functionName = functionName
        self.correlationID = correlationID
        self.parameters = parameters
        self.bulkData = bulkData
    }

    /// For responses: the `success` parameter.
    public var success: Bool? { parameters["success"]?.boolValue }
    /// For responses: the `resultCode` parameter.
    public var resultCode: String? { parameters["resultCode"]?.stringValue }
}

extension RPCEnvelope {
    /// Decodes an RPC service payload: the binary header, the JSON parameters and the bulk data.
    /// Both roles read messages with it.
    public init(decoding payload: [UInt8]) throws(RPCEnvelopeError) {
        let (packet, parameters) = try Self.parts(of: payload)
        self.init(messageType: packet.messageType, functionID: packet.functionID,
                  functionName: RPCFunctionNames.name(for: packet.functionID) ?? "Function\(packet.functionID)",
                  correlationID: packet.correlationID, parameters: parameters, bulkData: Array(packet.bulkData))
    }

    /// The packet of an RPC service payload and its parsed parameters, the bulk data still a
    /// slice of `payload` (the emulator writes a PutFile chunk from there).
    package static func parts(of payload: [UInt8]) throws(RPCEnvelopeError) -> (packet: RPCPacket, parameters: JSONObject) {
        let packet: RPCPacket
        do {
            packet = try RPCPacket(decoding: payload)
        } catch {
            throw RPCEnvelopeError(functionID: nil, correlationID: nil, reason: error.description)
        }
        let parsed: JSONValue
        do {
            parsed = packet.json.isEmpty ? .object([:]) : try JSONValue.parse(packet.json)
        } catch {
            throw RPCEnvelopeError(functionID: packet.functionID, correlationID: packet.correlationID,
                                   reason: "the JSON cannot be parsed: \(error)")
        }
        guard case .object(let parameters) = parsed else {
            throw RPCEnvelopeError(functionID: packet.functionID, correlationID: packet.correlationID,
                                   reason: "the RPC's JSON is not an object")
        }
        return (packet, parameters)
    }

    /// The typed form of this message, with its bulk data.
    public func decoded<Message: RPCMessage>(as type: Message.Type) throws(RPCDecodingError) -> Message {
        var value = try Message(json: .object(parameters), path: Message.functionName)
        if !bulkData.isEmpty { value.bulkData = bulkData }
        return value
    }
}

extension Broadcast where Element == RPCEnvelope {
    /// Typed notifications of one kind, from a subscription that takes in only those: an app
    /// through ``SDLManager`` has a dozen such streams (its managers'), and each used to wake
    /// for every response and notification to throw it away.
    func notifications<Notification: RPCNotification>(_ type: Notification.Type, logger: Logger) -> AsyncStream<Notification> {
        subscribe { $0.messageType == .notification && $0.functionID == Notification.functionID }
            .typed(Notification.self, logger: logger)
    }
}

extension AsyncStream where Element == RPCEnvelope {
    /// The notifications of one kind in this stream, decoded; undecodable ones are logged and skipped.
    public func typed<Notification: RPCNotification>(_ type: Notification.Type, logger: Logger) -> AsyncStream<Notification> {
        let all = self
        return AsyncStream<Notification> { continuation in
            let task = Task {
                for await envelope in all where envelope.messageType == .notification && envelope.functionID == Notification.functionID {
                    do {
                        continuation.yield(try envelope.decoded(as: Notification.self))
                    } catch {
                        logger.warning("dropping undecodable \(Notification.functionName): \(error)")
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// An RPC payload that cannot be read; what could be read of its header is kept, so a head
/// unit can still answer it.
public struct RPCEnvelopeError: Error, Sendable, CustomStringConvertible {
    /// The function id from the binary header, when the header could be read.
    public var functionID: UInt32?
    /// The correlation id from the binary header, when the header could be read.
    public var correlationID: Int32?
    /// What is wrong with the payload.
    public var reason: String
    public var description: String { reason }
}

/// A frame seen on the link, for traces (`sdl-run --trace`).
public struct FrameTraceEvent: Sendable {
    /// Whether this side sent the frame or received it.
    public enum Direction: String, Sendable {
        /// This side wrote it to the transport.
        case sent
        /// This side read it from the transport.
        case received
    }
    /// Sent or received.
    public var direction: Direction
    /// When it crossed the link.
    public var time: ContinuousClock.Instant
    /// The frame, its payload as on the wire (a protected one encrypted).
    public var frame: Frame
    /// The link the frame went over.
    public var link: TransportRole = .primary
    /// The bytes skipped as garbage just before this frame (noise on a serial line, a peer's
    /// mistake), and why the first of them could not start a frame; nil when the frame
    /// followed the one before directly.
    public var skippedBefore: (bytes: Int, problem: String)?

    package init(direction: Direction, time: ContinuousClock.Instant, frame: Frame, link: TransportRole = .primary,
                 skippedBefore: (bytes: Int, problem: String)? = nil) {
        (self.direction, self.time, self.frame, self.link, self.skippedBefore) = (direction, time, frame, link, skippedBefore)
    }
}
