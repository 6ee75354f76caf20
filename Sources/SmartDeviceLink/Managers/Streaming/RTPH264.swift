/// H.264 over RTP as SDL head units take it on the video service when `videoProtocol` is
/// RTP: RTP packets (RFC 3550) with the H.264 payload format (RFC 6184: single NAL unit
/// packets, FU-A fragments for NAL units too large for one packet), each behind the 2-byte
/// length of RFC 4571 framing. The framed packets are one byte stream, cut into SDL frames
/// wherever the frame size falls (sdl_java_suite's RTPH264Packetizer does the same; core
/// passes the stream to its HMI, which depacketizes with GStreamer's rtpstreamdepay).
public struct RTPH264Packetizer: Sendable {
    /// RTP's dynamic payload type, which SDL's libraries use for H.264.
    public static let payloadType: UInt8 = 96
    /// RFC 4571's length field is 16 bits.
    public static let maximumPacket = 65_535
    static let headerLength = 12

    /// The sequence number the next packet gets.
    public private(set) var sequenceNumber: UInt16
    /// The synchronisation source identifier every packet carries.
    public let ssrc: UInt32
    private let initialTimestamp: UInt32
    private let maximumPacket: Int

    /// A packetizer whose sequence number, timestamp origin and SSRC start at random values
    /// (RFC 3550 §5.1), unless given. `maximumPacket` bounds each RTP packet (header included).
    public init(ssrc: UInt32 = .random(in: 0...UInt32.max), sequenceNumber: UInt16 = .random(in: 0...UInt16.max),
                initialTimestamp: UInt32 = .random(in: 0...UInt32.max), maximumPacket: Int = Self.maximumPacket) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.initialTimestamp = initialTimestamp
        self.maximumPacket = min(max(maximumPacket, Self.headerLength + 3), Self.maximumPacket)
    }

    /// The framed RTP packets of one access unit shown at `presentationTime` (90 kHz
    /// clock); the marker bit is set on the last packet of the access unit (RFC 6184 §5.1).
    public mutating func packets(for accessUnit: [ArraySlice<UInt8>], presentationTime: Duration) -> [UInt8] {
        let ticks = presentationTime.components.seconds &* 90_000
            &+ presentationTime.components.attoseconds / 11_111_111_111_111  // 1/90 000 s in attoseconds, rounded down
        let timestamp = initialTimestamp &+ UInt32(truncatingIfNeeded: ticks)
        var out: [UInt8] = []
        for (index, nal) in accessUnit.enumerated() where !nal.isEmpty {
            let last = index == accessUnit.count - 1
            if Self.headerLength + nal.count <= maximumPacket {
                append(payload: [nal], marker: last, timestamp: timestamp, to: &out)
                continue
            }
            // FU-A (RFC 6184 §5.8): the NAL header becomes an indicator and a fragment header.
            let header = nal[nal.startIndex]
            let indicator = header & 0xE0 | 28
            var rest = nal.dropFirst()
            let room = maximumPacket - Self.headerLength - 2
            var first = true
            while !rest.isEmpty {
                let piece = rest.prefix(room)
                rest = rest.dropFirst(piece.count)
                let end = rest.isEmpty
                let fragmentHeader = (first ? 0x80 : 0) | (end ? 0x40 : 0) | header & 0x1F
                append(payload: [[indicator, fragmentHeader][...], piece], marker: last && end, timestamp: timestamp, to: &out)
                first = false
            }
        }
        return out
    }

    private mutating func append(payload: [ArraySlice<UInt8>], marker: Bool, timestamp: UInt32, to out: inout [UInt8]) {
        let length = Self.headerLength + payload.reduce(0) { $0 + $1.count }
        out.append(contentsOf: [UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(0x80)  // version 2, no padding, no extension, no CSRC
        out.append((marker ? 0x80 : 0) | Self.payloadType)
        out.append(contentsOf: [UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF)])
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: timestamp >> UInt32(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: ssrc >> UInt32(shift))) }
        for piece in payload { out.append(contentsOf: piece) }
        sequenceNumber &+= 1
    }
}

/// The receiving side of ``RTPH264Packetizer``: takes the framed byte stream in pieces of
/// any size and gives back the Annex-B stream, with the number of access units (marker bits).
public struct RTPH264Depacketizer: Sendable {
    private var buffer: [UInt8] = []
    private var fragment: [UInt8]?
    /// Access units completed so far (packets with the marker bit).
    public private(set) var accessUnits = 0
    /// Packets that were not RTP version 2 or not H.264 the way SDL sends it; skipped.
    public private(set) var malformedPackets = 0
    /// Packets whose sequence number did not follow the one before (lost or reordered).
    public private(set) var sequenceGaps = 0
    private var lastSequence: UInt16?

    /// A depacketizer that has seen no packet yet.
    public init() {}

    /// Consumes bytes and returns the Annex-B bytes of every NAL unit they completed.
    public mutating func consume(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        buffer.append(contentsOf: bytes)
        var out: [UInt8] = []
        var offset = 0
        while buffer.count - offset >= 2 {
            let length = Int(buffer[offset]) << 8 | Int(buffer[offset + 1])
            guard buffer.count - offset - 2 >= length else { break }
            packet(buffer[(offset + 2)..<(offset + 2 + length)], into: &out)
            offset += 2 + length
        }
        buffer.removeFirst(offset)
        return out
    }

    private mutating func packet(_ packet: ArraySlice<UInt8>, into out: inout [UInt8]) {
        let start = packet.startIndex
        guard packet.count > RTPH264Packetizer.headerLength, packet[start] >> 6 == 2 else {
            malformedPackets += 1
            return
        }
        let sequence = UInt16(packet[start + 2]) << 8 | UInt16(packet[start + 3])
        if let last = lastSequence, sequence != last &+ 1 { sequenceGaps += 1 }
        lastSequence = sequence
        let csrcs = Int(packet[start] & 0x0F)
        let payload = packet.dropFirst(RTPH264Packetizer.headerLength + 4 * csrcs)
        guard let first = payload.first else {
            malformedPackets += 1
            return
        }
        if first & 0x1F == 28, payload.count >= 2 {
            let fragmentHeader = payload[payload.startIndex + 1]
            if fragmentHeader & 0x80 != 0 { fragment = [first & 0xE0 | fragmentHeader & 0x1F] }
            fragment?.append(contentsOf: payload.dropFirst(2))
            if fragmentHeader & 0x40 != 0, let whole = fragment {
                out.append(contentsOf: H264.annexB([whole[...]]))
                fragment = nil
            }
        } else if first & 0x1F >= 1, first & 0x1F <= 23 {
            out.append(contentsOf: H264.annexB([payload]))
        } else {
            malformedPackets += 1  // STAP/MTAP/FU-B: not sent by SDL's packetizers
        }
        if packet[start + 1] & 0x80 != 0 { accessUnits += 1 }
    }
}
