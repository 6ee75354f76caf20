/// The service a frame belongs to (PROTOCOL.md §1.2).
public struct ServiceType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let control = ServiceType(rawValue: 0x00)
    public static let rpc = ServiceType(rawValue: 0x07)
    public static let audio = ServiceType(rawValue: 0x0A)
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
    case control = 0
    case single = 1
    case first = 2
    case consecutive = 3
}

/// Frame info values of control frames (PROTOCOL.md §1.3).
public enum ControlFrameInfo: UInt8, Sendable, Hashable, CaseIterable {
    case heartbeat = 0x00
    case startService = 0x01
    case startServiceACK = 0x02
    case startServiceNAK = 0x03
    case endService = 0x04
    case endServiceACK = 0x05
    case endServiceNAK = 0x06
    case registerSecondaryTransport = 0x07
    case registerSecondaryTransportACK = 0x08
    case registerSecondaryTransportNAK = 0x09
    case transportEventUpdate = 0xFD
    /// Deprecated "frames processed" count; core still sends it on video for v2–v4. Ignored.
    case serviceDataACK = 0xFE
    case heartbeatACK = 0xFF
}

/// The SDL frame header: 8 bytes for version 1, 12 bytes for versions 2–5.
///
/// All multi-byte fields are big-endian (PROTOCOL.md §1.1).
public struct FrameHeader: Sendable, Hashable {
    /// Protocol major version 1…5 (bits 7–4 of byte 0).
    public var version: UInt8
    /// v2+: the frame is encrypted. v1: the compression flag.
    public var isEncrypted: Bool
    public var frameType: FrameType
    public var serviceType: ServiceType
    /// Control: a ``ControlFrameInfo``; Consecutive: the sequence number (0 = last); otherwise 0.
    public var frameInfo: UInt8
    public var sessionID: UInt8
    /// Payload bytes that follow this header in this frame.
    public var dataSize: UInt32
    /// Absent (0) in version 1 headers.
    public var messageID: UInt32

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

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        encode(into: &out)
        return out
    }
}

/// One frame: header and payload.
public struct Frame: Sendable, Hashable {
    public var header: FrameHeader
    public var payload: [UInt8]

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
