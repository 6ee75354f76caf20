/// The service a frame belongs to.
public struct ServiceType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Control: heartbeats, service starts and ends, secondary transports, security queries (0x00).
    public static let control = ServiceType(rawValue: 0x00)
    /// RPC (0x07): the session itself.
    public static let rpc = ServiceType(rawValue: 0x07)
    /// Audio streaming, PCM (0x0A).
    public static let audio = ServiceType(rawValue: 0x0A)
    /// Video streaming, H.264 (0x0B).
    public static let video = ServiceType(rawValue: 0x0B)
    /// RPC with binary data; exists together with the RPC service, never started on its own.
    public static let hybrid = ServiceType(rawValue: 0x0F)

    /// The service types the protocol defines; any other value makes a frame malformed.
    public static let known: Set<ServiceType> = [.control, .rpc, .audio, .video, .hybrid]

    /// Whether the protocol defines this service type. The decoder asks for every byte of a
    /// run of garbage, so it is a comparison, not a set look-up that hashes.
    public var isKnown: Bool {
        switch rawValue {
        case 0x00, 0x07, 0x0A, 0x0B, 0x0F: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .control: return "control"
        case .rpc: return "rpc"
        case .audio: return "audio"
        case .video: return "video"
        case .hybrid: return "hybrid"
        default: return "service(0x\(String(rawValue, radix: 16)))"
        }
    }
}

/// Frame type, the low three bits of header byte 0.
public enum FrameType: UInt8, Sendable, Hashable {
    /// A control frame: its frame info says which (``ControlFrameInfo``).
    case control = 0
    /// A whole message in one frame.
    case single = 1
    /// The first frame of a multi-frame message: the total size and the number of frames that follow.
    case first = 2
    /// A part of a multi-frame message; the last one is numbered 0.
    case consecutive = 3
}

/// Frame info values of control frames.
public enum ControlFrameInfo: UInt8, Sendable, Hashable, CaseIterable {
    /// Are you there? (either side, from protocol 3).
    case heartbeat = 0x00
    /// Start a service (RPC opens the session; audio and video after registration).
    case startService = 0x01
    /// The service started; from protocol 5 a BSON payload says how.
    case startServiceACK = 0x02
    /// The service did not start; from protocol 5.3 with a `reason`.
    case startServiceNAK = 0x03
    /// End a service (RPC ends the session).
    case endService = 0x04
    /// The service ended.
    case endServiceACK = 0x05
    /// The service could not be ended (not started, or a wrong hash id).
    case endServiceNAK = 0x06
    /// On a second link: register it as the session's secondary transport.
    case registerSecondaryTransport = 0x07
    /// The secondary transport is registered.
    case registerSecondaryTransportACK = 0x08
    /// The secondary transport was refused, with a `reason`.
    case registerSecondaryTransportNAK = 0x09
    /// The head unit's TCP endpoint for a secondary came, moved or went (an empty address).
    case transportEventUpdate = 0xFD
    /// Deprecated "frames processed" count; core still sends it on video for v2–v4. Ignored.
    case serviceDataACK = 0xFE
    /// The answer to a heartbeat.
    case heartbeatACK = 0xFF
}

/// The SDL frame header: 8 bytes for version 1, 12 bytes for versions 2–5.
///
/// All multi-byte fields are big-endian.
public struct FrameHeader: Sendable, Hashable {
    /// Protocol major version 1…5 (bits 7–4 of byte 0).
    public var version: UInt8
    /// v2+: the frame is encrypted. v1: the compression flag.
    public var isEncrypted: Bool
    /// Control, single, first or consecutive.
    public var frameType: FrameType
    /// The service the frame belongs to.
    public var serviceType: ServiceType
    /// Control: a ``ControlFrameInfo``; Consecutive: the sequence number (0 = last); otherwise 0.
    public var frameInfo: UInt8
    /// The session; 0 in the first StartService(RPC).
    public var sessionID: UInt8
    /// Payload bytes that follow this header in this frame.
    public var dataSize: UInt32
    /// Absent (0) in version 1 headers.
    public var messageID: UInt32

    /// A header of these fields.
    public init(
        version: UInt8, isEncrypted: Bool = false, frameType: FrameType, serviceType: ServiceType,
        frameInfo: UInt8 = 0, sessionID: UInt8, dataSize: UInt32, messageID: UInt32 = 0
    ) {
        self.version = version
        self.isEncrypted = isEncrypted
        self.frameType = frameType
        self.serviceType = serviceType
        self.frameInfo = frameInfo
        self.sessionID = sessionID
        self.dataSize = dataSize
        self.messageID = messageID
    }

    /// 8 for version 1, 12 otherwise.
    public var size: Int { Self.size(forVersion: version) }

    /// The header size of a version: 8 for version 1, 12 otherwise.
    public static func size(forVersion version: UInt8) -> Int { version == 1 ? 8 : 12 }

    /// The control frame info, if this is a control frame with a defined value.
    public var controlInfo: ControlFrameInfo? {
        frameType == .control ? ControlFrameInfo(rawValue: frameInfo) : nil
    }

    /// Appends the wire form of this header.
    public func encode(into out: inout [UInt8]) {
        out.append(version << 4 | (isEncrypted ? 0x08 : 0) | frameType.rawValue)
        out.append(serviceType.rawValue)
        out.append(frameInfo)
        out.append(sessionID)
        out.appendBigEndian(dataSize)
        if version > 1 { out.appendBigEndian(messageID) }
    }

    /// The header's 8 or 12 bytes.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        encode(into: &out)
        return out
    }
}

/// One frame: header and payload.
public struct Frame: Sendable, Hashable {
    /// The header.
    public var header: FrameHeader
    /// The payload; its size is the header's `dataSize`.
    public var payload: [UInt8]

    /// A frame of this header and payload.
    public init(header: FrameHeader, payload: [UInt8] = []) {
        self.header = header
        self.payload = payload
    }

    /// Header plus payload; `dataSize` is taken from the payload.
    public var encoded: [UInt8] {
        var header = self.header
        header.dataSize = UInt32(payload.count)
        var out: [UInt8] = []
        out.reserveCapacity(header.size + payload.count)
        header.encode(into: &out)
        out.append(contentsOf: payload)
        return out
    }
}

extension Array where Element == UInt8 {
    @inlinable
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}

extension Collection where Element == UInt8, Index == Int {
    /// Reads a big-endian u32 at `offset` (the caller checked the bounds).
    @inlinable
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}
