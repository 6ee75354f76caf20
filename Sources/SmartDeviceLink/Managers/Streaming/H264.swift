/// H.264 Annex-B byte streams (ITU-T H.264 Annex B): start codes, NAL units and the access
/// units (frames) they make up. Pure functions over bytes: the streaming manager paces whole
/// access units, the RTP packetizer sends NAL units, the emulator counts frames.
public enum H264 {
    /// The NAL unit types this library acts on (H.264 Table 7-1).
    public enum NALType: UInt8, Sendable {
        /// A slice of a picture that refers to others.
        case slice = 1
        /// A slice of an IDR picture, where decoding can start.
        case idrSlice = 5
        /// Supplemental enhancement information.
        case sei = 6
        /// A sequence parameter set (SPS).
        case sequenceParameterSet = 7
        /// A picture parameter set (PPS).
        case pictureParameterSet = 8
        /// An access unit delimiter.
        case accessUnitDelimiter = 9
    }

    /// The NAL units of an Annex-B stream, without their start codes (3- or 4-byte).
    /// Bytes before the first start code are not a NAL unit and are skipped.
    public static func nalUnits(in stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int?
        var index = 0
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 {
                if let begin = start {
                    var end = index
                    while end > begin, stream[end - 1] == 0 { end -= 1 }  // the zero of a 4-byte start code
                    if end > begin { units.append(stream[begin..<end]) }
                }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let begin = start, begin < stream.count { units.append(stream[begin...]) }
        return units
    }

    /// The type of a NAL unit (the low five bits of its first byte).
    public static func type(of unit: ArraySlice<UInt8>) -> UInt8 {
        unit.first.map { $0 & 0x1F } ?? 0
    }

    /// Whether a NAL unit is a coded slice (the picture itself).
    static func isSlice(_ unit: ArraySlice<UInt8>) -> Bool {
        let type = type(of: unit)
        return type >= 1 && type <= 5
    }

    /// Whether a slice starts a new picture: its `first_mb_in_slice` is 0, whose Exp-Golomb
    /// code is the single bit 1 at the top of the byte after the NAL header (H.264 7.4.1.2.4).
    static func startsPicture(_ unit: ArraySlice<UInt8>) -> Bool {
        unit.count > 1 && unit[unit.startIndex + 1] & 0x80 != 0
    }

    /// Groups the NAL units of a stream into access units: a new one begins at an access
    /// unit delimiter, at parameter sets or SEI after a picture, and at a slice that starts
    /// a picture when the current unit already has one (H.264 7.4.1.2.3).
    public static func accessUnits(in stream: [UInt8]) -> [[ArraySlice<UInt8>]] {
        var units: [[ArraySlice<UInt8>]] = []
        var current: [ArraySlice<UInt8>] = []
        var hasPicture = false
        for nal in nalUnits(in: stream) {
            let type = type(of: nal)
            let opensNew: Bool
            switch type {
            case NALType.accessUnitDelimiter.rawValue, NALType.sei.rawValue,
                 NALType.sequenceParameterSet.rawValue, NALType.pictureParameterSet.rawValue:
                opensNew = hasPicture
            case 1...5:
                opensNew = hasPicture && startsPicture(nal)
            default:
                opensNew = false
            }
            if opensNew, !current.isEmpty {
                units.append(current)
                current = []
                hasPicture = false
            }
            current.append(nal)
            if isSlice(nal) { hasPicture = true }
        }
        if !current.isEmpty { units.append(current) }
        return units
    }

    /// The Annex-B bytes of NAL units, each behind a 4-byte start code.
    public static func annexB<Units: Sequence>(_ units: Units) -> [UInt8] where Units.Element == ArraySlice<UInt8> {
        var out: [UInt8] = []
        for unit in units {
            out.append(contentsOf: [0, 0, 0, 1])
            out.append(contentsOf: unit)
        }
        return out
    }

    /// Splits an Annex-B byte stream arriving in pieces (a pipe, a file read in chunks) into
    /// access units as they complete, holding only the unit being read.
    public struct AccessUnitReader: Sendable {
        private var pending: [UInt8] = []

        /// A reader with nothing pending.
        public init() {}

        /// Adds bytes; returns the access units they completed. The last unit stays until
        /// the next one starts or ``finish()``.
        public mutating func push(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            pending.append(contentsOf: bytes)
            let units = H264.accessUnits(in: pending)
            guard units.count > 1, let last = units.last?.first else { return [] }
            // Keep the last (maybe incomplete) unit from its start code on: a NAL is told
            // apart only once the next start code has arrived.
            let keepFrom = max(last.startIndex - 3, 0)
            let complete = units.dropLast().map { H264.annexB($0) }
            pending.removeFirst(keepFrom)
            return complete
        }

        /// The stream ended: the unit still held, if any.
        public mutating func finish() -> [UInt8]? {
            defer { pending = [] }
            let units = H264.accessUnits(in: pending)
            return units.isEmpty ? nil : units.map { H264.annexB($0) }.reduce([], +)
        }
    }
}
