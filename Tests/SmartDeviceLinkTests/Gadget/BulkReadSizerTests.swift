@testable import SmartDeviceLink
import Testing

/// The gadget's bulk OUT reads against a model of a FunctionFS OUT endpoint: the host's
/// transfers go as packets, the last one short unless the transfer is a whole number of
/// packets (no zero-length packet); a read ends when its buffer is full or at a short packet,
/// and a read that the packets still to come cannot end would wait for good.
@Suite struct BulkReadSizerTests {
    static let packet = 512

    /// An SDL frame: version 1's 8-byte header or a later version's 12-byte one, then `data` bytes.
    static func frame(version: UInt8 = 5, data: Int, fill: UInt8 = 0xA5) -> [UInt8] {
        let size = UInt32(data)
        var bytes: [UInt8] = [version << 4 | 1, 7, 0, 1, UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        if version > 1 { bytes += [0, 0, 0, 9] }
        return bytes + [UInt8](repeating: fill, count: data)
    }

    /// Whether the bytes came whole and in order (a failure does not print megabytes).
    static func same(_ received: [UInt8], _ sent: [UInt8]) -> Bool { received == sent }

    struct Outcome {
        var received: [UInt8] = []
        var reads = 0
        /// The size of a read that would have waited for good, if one did.
        var stuck: Int?
    }

    /// Reads `transfers` as the gadget does and says what came and how.
    static func read(_ transfers: [[UInt8]], limit: Int = 16_384) -> Outcome {
        var packets: [ArraySlice<UInt8>] = []
        for transfer in transfers {
            var offset = 0
            while offset < transfer.count {
                packets.append(transfer[offset..<min(offset + packet, transfer.count)])
                offset += packet
            }
        }
        var sizer = BulkReadSizer(packet: packet, limit: limit)
        var outcome = Outcome()
        var next = 0
        while next < packets.count {
            let size = sizer.nextRead
            #expect(size % packet == 0 && size >= packet && size <= max(packet, limit))
            var got: [UInt8] = []
            while got.count < size {
                guard next < packets.count else {
                    outcome.stuck = size
                    return outcome
                }
                let current = packets[next]
                next += 1
                got += current
                if current.count < packet { break }
            }
            outcome.reads += 1
            sizer.consumed(got[...])
            outcome.received += got
        }
        return outcome
    }

    @Test func framesOfEverySizeArriveWithNoReadWaitingForGood() {
        let sizes = [0, 1, 499, 500, 501, 512, 1012, 1024, 4096 - 12, 16_384, 65_536, 130_548 + 137]
        // Alone, as a request the host then waits on an answer for; and with another after it.
        for size in sizes {
            for frames in [[Self.frame(data: size)], [Self.frame(data: size), Self.frame(data: 20, fill: 1)]] {
                let outcome = Self.read(frames)
                #expect(outcome.stuck == nil, "a read of \(outcome.stuck ?? 0) waited for good after a frame of \(size) data bytes")
                #expect(Self.same(outcome.received, frames.flatMap { $0 }), "after a frame of \(size) data bytes")
            }
        }
    }

    @Test func anUploadTakesFarFewerReadsThanOneAPacket() {
        // 64 PutFile frames as SDLManager sends them (130,548-byte chunks and their JSON), a frame a transfer.
        let frames = (0..<64).map { Self.frame(data: 130_548 + 137, fill: UInt8($0)) }
        let outcome = Self.read(frames)
        #expect(outcome.stuck == nil)
        #expect(Self.same(outcome.received, frames.flatMap { $0 }))
        let packets = frames.reduce(0) { $0 + ($1.count + Self.packet - 1) / Self.packet }
        #expect(outcome.reads < packets / 20, "\(outcome.reads) reads for \(packets) packets")
        // One packet a read is what a limit of one packet gives.
        #expect(Self.read(frames, limit: Self.packet).reads == packets)
    }

    @Test func framesJoinedInTransfersAndFramesSplitAcrossThem() {
        let frames = [Self.frame(data: 100), Self.frame(data: 2000, fill: 2), Self.frame(data: 40_000, fill: 3), Self.frame(data: 0),
                      Self.frame(version: 1, data: 700, fill: 4), Self.frame(data: 1024 - 12, fill: 5)]
        let stream = frames.flatMap { $0 }
        // Everything in one transfer; in 16 KiB transfers (USBTransport's); in transfers that cut headers in two.
        for cut in [stream.count, 16_384, 7, 1000, 512 * 3] {
            let transfers = stride(from: 0, to: stream.count, by: cut).map { Array(stream[$0..<min($0 + cut, stream.count)]) }
            let outcome = Self.read(transfers)
            #expect(outcome.stuck == nil, "cut every \(cut) bytes: a read of \(outcome.stuck ?? 0) waited for good")
            #expect(Self.same(outcome.received, stream), "cut every \(cut) bytes")
        }
    }

    @Test func bytesThatAreNotFramesAreReadAPacketAtATime() {
        // A version no SDL frame has, then what would look like a large frame: nothing waits for it.
        let garbage = [UInt8](repeating: 0xF0, count: 3) + Self.frame(data: 100_000).prefix(600)
        var sizer = BulkReadSizer(packet: Self.packet)
        sizer.consumed(garbage[...])
        #expect(sizer.lost)
        #expect(sizer.nextRead == Self.packet)
        let outcome = Self.read([Array(garbage)])
        #expect(outcome.stuck == nil)
        #expect(Self.same(outcome.received, Array(garbage)))
        // A size no head unit sends is not taken for a frame either.
        var huge = BulkReadSizer(packet: Self.packet)
        huge.consumed(Self.frame(data: 0).prefix(4) + [0x7F, 0, 0, 0] + [0, 0, 0, 1])
        #expect(huge.lost && huge.nextRead == Self.packet)
    }

    @Test func aSmallerLimitKeepsFollowingTheFrame() {
        var sizer = BulkReadSizer(packet: Self.packet, limit: 65_536)
        sizer.consumed(Self.frame(data: 130_000).prefix(512))
        #expect(sizer.nextRead == 65_536)
        sizer = sizer.withLimit(32_768)
        #expect(sizer.nextRead == 32_768)
        sizer = sizer.withLimit(100)
        #expect(sizer.limit == Self.packet && sizer.nextRead == Self.packet, "never below one packet")
    }

    @Test func theSizeFollowsTheFrame() {
        var sizer = BulkReadSizer(packet: Self.packet)
        #expect(sizer.nextRead == Self.packet)
        sizer.consumed(Self.frame(data: 130_000).prefix(512))  // 500 data bytes in, 129,500 to come
        #expect(sizer.nextRead == 16_384)
        sizer.consumed(Self.frame(data: 130_000)[512..<(130_012 - 700)])
        #expect(sizer.nextRead == 1024, "700 bytes to come: the two packets that hold them")
        sizer.consumed(Self.frame(data: 130_000)[(130_012 - 700)...])
        #expect(sizer.nextRead == Self.packet, "between frames: one packet")
    }
}
