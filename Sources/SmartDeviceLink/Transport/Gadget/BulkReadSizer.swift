/// How much the gadget asks of bulk OUT in its next read.
///
/// A read of a FunctionFS OUT endpoint is one USB request: it ends when its buffer is full or
/// a short packet comes. A host that sends a whole number of packets sends no short packet
/// (FunctionFS hosts send no zero-length packet either), so a read larger than what is on its
/// way can wait for good. One packet a read is always safe, but an 8 MiB upload from the host
/// is then 16,384 reads. This follows the SDL frames going by instead: once a frame's header
/// is read, the next read asks for the packets that hold the rest of that frame (at most
/// `limit`). They are certain to come: a read starts where a packet of the host's transfer
/// starts, and the frame's last packet is either full, and asked for exactly, or short, which
/// ends the read, or holds the start of the next frame too. Between frames, and once the
/// stream stops looking like SDL frames (a version no SDL frame has, a size no head unit
/// sends), it asks for one packet.
struct BulkReadSizer {
    /// The endpoint's packet size.
    let packet: Int
    /// The largest read.
    private(set) var limit: Int
    /// The header of the frame being read, as far as it came.
    private var header: [UInt8] = []
    /// The data bytes of the current frame still to come, once its header is complete.
    private var dataLeft = 0
    /// The bytes stopped looking like frames: every read is one packet from then on.
    private(set) var lost = false

    init(packet: Int, limit: Int = 16_384) {
        self.packet = packet
        self.limit = max(packet, limit / packet * packet)
    }

    /// The same, following the same frame, with a smaller largest read.
    func withLimit(_ limit: Int) -> BulkReadSizer {
        var copy = self
        copy.limit = max(packet, limit / packet * packet)
        return copy
    }

    /// The size of the next read: a whole number of packets, at least one.
    var nextRead: Int {
        guard !lost, header.isEmpty, dataLeft > 0 else { return packet }
        return min(limit, (dataLeft + packet - 1) / packet * packet)
    }

    /// Follows the bytes a read returned.
    mutating func consumed(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !lost, !rest.isEmpty {
            if dataLeft > 0 {
                let taken = min(dataLeft, rest.count)
                dataLeft -= taken
                rest = rest.dropFirst(taken)
                continue
            }
            guard let size = Self.headerSize(version: header.first ?? rest.first!) else {
                lost = true
                break
            }
            let wanted = size - header.count
            header += rest.prefix(wanted)
            rest = rest.dropFirst(wanted)
            guard header.count == size else { continue }  // the rest of the header comes in the next read
            dataLeft = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
            lost = dataLeft > Self.largestFrame
            header = []
        }
    }

    /// Larger than any frame a head unit sends (sdl_core's MaximumPayloadSize is 128 KiB by
    /// default): a header that says more is not one, and a read for its data could wait for good.
    static let largestFrame = 4 << 20

    /// Protocol version 1 frames have an 8-byte header, 2 to 5 a 12-byte one; anything else
    /// is not the start of an SDL frame.
    private static func headerSize(version byte: UInt8) -> Int? {
        switch byte >> 4 {
        case 1: 8
        case 2...5: 12
        default: nil
        }
    }
}
