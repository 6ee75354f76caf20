import SmartDeviceLink
import SDLScenario

/// Seed inputs for each target, taken from what really crossed a link: the frames of an
/// `sdl-run --trace` JSONL file (one line a frame, its bytes in hex).
public enum FuzzSeeds {
    /// A trace line this reader could not use.
    public struct TraceError: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "trace line \(line): \(reason)" }
    }

    /// Seeds for `target` from a trace: for ``FuzzTarget/frames`` each direction's whole byte
    /// stream; for ``FuzzTarget/bson`` every control payload; for ``FuzzTarget/rpc`` every
    /// RPC and Hybrid frame's payload (single frames; multi-frame messages reassembled).
    public static func fromTrace(_ jsonl: [UInt8], for target: FuzzTarget) throws(TraceError) -> [[UInt8]] {
        let frames = try frames(inTrace: jsonl)
        switch target {
        case .frames:
            let streams = ["sent", "received"].map { direction in
                frames.filter { $0.direction == direction }.flatMap(\.bytes)
            }
            // The first byte of a frames input picks the read sizes and the role that
            // reads them: the head unit reads what was sent, the app what was received.
            return zip(streams, [UInt8(0), 1]).filter { !$0.0.isEmpty }.map { [$0.1] + $0.0 }
        case .bson:
            return frames.compactMap { frame in
                guard case .frame(let decoded)? = decode(frame.bytes), decoded.header.frameType == .control,
                      !decoded.payload.isEmpty else { return nil }
                return decoded.payload
            }
        case .rpc:
            return rpcPayloads(frames)
        case .scenario, .security:
            return []  // their seeds are kept files (Tests/SDLFuzzTests/Inputs); no trace carries a security query yet
        }
    }

    private struct TracedFrame {
        var direction: String
        var bytes: [UInt8]
    }

    private static func frames(inTrace jsonl: [UInt8]) throws(TraceError) -> [TracedFrame] {
        var frames: [TracedFrame] = []
        for (index, line) in jsonl.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard case .object(let object)? = try? JSONValue.parse(line) else {
                throw TraceError(line: index + 1, reason: "not a JSON object")
            }
            guard let hex = object["bytes"]?.stringValue, let direction = object["direction"]?.stringValue else { continue }
            frames.append(TracedFrame(direction: direction, bytes: hex.hexBytes))
        }
        return frames
    }

    private static func rpcPayloads(_ frames: [TracedFrame]) -> [[UInt8]] {
        var reassembler = FrameReassembler()
        let now = ContinuousClock.now
        var payloads: [[UInt8]] = []
        for traced in frames {
            guard case .frame(let frame)? = decode(traced.bytes),
                  frame.header.serviceType == .rpc || frame.header.serviceType == .hybrid,
                  frame.header.frameType != .control,
                  case .message(_, let payload) = reassembler.receive(frame, now: now) else { continue }
            payloads.append(payload)
        }
        return payloads
    }

    private static func decode(_ bytes: [UInt8]) -> FrameDecoder.Event? {
        var decoder = FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1))
        return decoder.decode(bytes).first
    }
}
