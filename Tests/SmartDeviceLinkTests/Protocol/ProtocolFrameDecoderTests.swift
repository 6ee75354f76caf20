// The stream decoder: reads that split frames anywhere or carry several frames (PROTOCOL.md
// §10 item 1), and resynchronisation after malformed input the way sdl_core does it
// (core: PH/src/incoming_data_handler.cc drops one byte and re-parses; §10 item 2).
import SDLTestSupport
import Testing
@testable import SmartDeviceLink

/// Hand-written frames of Appendix A, used as a stream.
enum PTStream {
    static let a1 = PT.bytes("10 07 01 00 00 00 00 20  20 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 31 00 00")
    static let a2 = PT.bytes("50 00 00 01 00 00 00 00 00 00 00 07")
    static let a3 = PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 07")
    static let a5 = PT.bytes("50 07 04 01 00 00 00 11 00 00 00 09  11 00 00 00 10 68 61 73 68 49 64 00 01 00 01 00 00")
    static let a6 = PT.bytes("51 0F 00 01 00 00 00 10 00 00 00 0A  00 00 00 20 00 00 00 05 00 00 00 02  7B 7D  AA BB")
    /// A v5 First frame (message 0x0102, total 0x20, 1 consecutive) and its last Consecutive frame.
    static let first = PT.bytes("52 07 00 01 00 00 00 08 00 00 01 02  00 00 00 20 00 00 00 01")
    static let all = a1 + a2 + a3 + a5 + a6 + first
    static let frameCount = 6

    /// The events of feeding `chunks` one after the other.
    static func events(_ chunks: [[UInt8]], maximumPayloadSize: Int = 131_072) -> (events: [FrameDecoder.Event], left: Int) {
        var decoder = FrameDecoder(maximumPayloadSize: maximumPayloadSize)
        var events: [FrameDecoder.Event] = []
        for chunk in chunks { events += decoder.decode(chunk) }
        return (events, decoder.bufferedByteCount)
    }

    static func frames(_ events: [FrameDecoder.Event]) -> [Frame] {
        events.compactMap { if case .frame(let f) = $0 { return f } else { return nil } }
    }

    static func malformedCount(_ events: [FrameDecoder.Event]) -> Int {
        events.count { if case .malformed = $0 { return true } else { return false } }
    }
}

struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var testDescription: String { name }
}

@Suite("Protocol: stream decoder")
struct ProtocolFrameDecoderTests {
    @Test("several frames in one read")
    func severalFramesInOneRead() {
        let (events, left) = PTStream.events([PTStream.all])
        let frames = PTStream.frames(events)
        #expect(frames.count == PTStream.frameCount)
        #expect(events.count == PTStream.frameCount, "no malformed events")
        #expect(left == 0)
        #expect(frames.map(\.header.frameInfo) == [0x01, 0x00, 0xFF, 0x04, 0x00, 0x00])
        #expect(frames.map(\.payload.count) == [32, 0, 0, 17, 16, 8])
    }

    @Test("a stream split after every possible byte gives the same frames, including inside the header after byte 8")
    func splitAfterEveryByte() {
        let whole = PTStream.frames(PTStream.events([PTStream.all]).events)
        for cut in 1..<PTStream.all.count {
            let (events, left) = PTStream.events([Array(PTStream.all[..<cut]), Array(PTStream.all[cut...])])
            #expect(PTStream.frames(events) == whole, "split after byte \(cut)")
            #expect(events.count == whole.count, "split after byte \(cut) reported something malformed")
            #expect(left == 0)
        }
    }

    @Test("a v2+ header split after byte 8 waits for the message id")
    func headerSplitAfterByte8() {
        var decoder = FrameDecoder()
        #expect(decoder.decode(PTStream.a6[..<8]).isEmpty)
        #expect(decoder.bufferedByteCount == 8)
        #expect(decoder.decode(PTStream.a6[8..<11]).isEmpty)
        let events = decoder.decode(PTStream.a6[11...])
        #expect(PTStream.frames(events).first?.header.messageID == 10)
        #expect(events.count == 1)
    }

    @Test("a stream fed one byte at a time, and in pseudo-random chunks, gives the same frames")
    func byteByByteAndRandomChunks() {
        let whole = PTStream.frames(PTStream.events([PTStream.all]).events)
        let single = PTStream.events(PTStream.all.map { [$0] })
        #expect(PTStream.frames(single.events) == whole)
        #expect(single.left == 0)
        var rng = SeededRandom(seed: 7)
        for _ in 0..<50 {
            var chunks: [[UInt8]] = []
            var i = 0
            while i < PTStream.all.count {
                let n = min(Int(rng.next() % 23) + 1, PTStream.all.count - i)
                chunks.append(Array(PTStream.all[i..<(i + n)]))
                i += n
            }
            #expect(PTStream.frames(PTStream.events(chunks).events) == whole)
        }
    }

    @Test("reads in a collection without contiguous storage give the same frames, small and large")
    func nonContiguousReads() {
        let large = Frame(header: FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1,
                                              dataSize: 20_000, messageID: 3),
                          payload: (0..<20_000).map { UInt8(truncatingIfNeeded: $0) })
        let stream = PTStream.all + large.encoded + PTStream.a2
        let whole = PTStream.frames(PTStream.events([stream]).events)
        #expect(whole.count == PTStream.frameCount + 2)
        var decoder = FrameDecoder()
        var events: [FrameDecoder.Event] = []
        for start in stride(from: 0, to: stream.count, by: 5_000) {
            let read = stream[start..<min(start + 5_000, stream.count)].lazy.map { $0 }
            #expect(read.withContiguousStorageIfAvailable { _ in } == nil, "the read is not contiguous")
            events += decoder.decode(read)
        }
        #expect(PTStream.frames(events) == whole)
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Each violates exactly one rule of §10 item 2. The bytes after byte 0 all have version
    /// nibble 0 or ≥ 6, so after dropping byte 0 the rest of the header is one malformed run.
    static let malformed: [MalformedCase] = [
        MalformedCase(name: "version 0", hex: "01 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "version 6", hex: "61 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "version 15", hex: "F1 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "frame type 4", hex: "54 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "frame type 5", hex: "55 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "frame type 6", hex: "56 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "frame type 7 with E=1", hex: "5F 07 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "v1 frame type 4", hex: "14 07 00 01 00 00 00 00"),
        MalformedCase(name: "service type 0x01", hex: "51 01 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "service type 0x08", hex: "51 08 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "service type 0x0E", hex: "51 0E 00 01 00 00 00 02 00 00 00 01 00 00"),
        MalformedCase(name: "service type 0x0C on a control frame", hex: "50 0C 00 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "control frame info 0x0A", hex: "50 00 0A 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "control frame info 0x42", hex: "50 07 42 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "control frame info 0xFC", hex: "40 00 FC 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "single frame with size 0", hex: "51 07 00 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "v1 single frame with size 0", hex: "11 07 00 01 00 00 00 00"),
        MalformedCase(name: "consecutive frame with size 0", hex: "53 07 01 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "last consecutive frame with size 0", hex: "53 07 00 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "first frame with size 7", hex: "52 07 00 01 00 00 00 07 00 00 00 01 00 00 00 00 00 00 00"),
        MalformedCase(name: "first frame with size 9", hex: "52 07 00 01 00 00 00 09 00 00 00 01 00 00 00 00 00 00 00 00 00"),
        MalformedCase(name: "first frame with size 0", hex: "52 07 00 01 00 00 00 00 00 00 00 01"),
        MalformedCase(name: "v2+ single frame with message id 0", hex: "51 07 00 01 00 00 00 02 00 00 00 00 00 00"),
        MalformedCase(name: "v2 first frame with message id 0", hex: "22 07 00 01 00 00 00 08 00 00 00 00 00 00 00 0F 00 00 00 02"),
        MalformedCase(name: "v3 consecutive frame with message id 0", hex: "33 0B 01 01 00 00 00 01 00 00 00 00 00"),
        MalformedCase(name: "DataSize 0xFFFFFFFF", hex: "51 07 00 01 FF FF FF FF 00 00 00 01"),
        MalformedCase(name: "DataSize 131073 (receive limit + 1)", hex: "51 07 00 01 00 02 00 01 00 00 00 01"),
        MalformedCase(name: "v1 DataSize 0xFFFFFFFF", hex: "10 07 01 00 FF FF FF FF"),
    ]

    @Test("a malformed header is reported once, its bytes dropped, and the next valid frame decoded", arguments: malformed)
    func malformedHeader(_ c: MalformedCase) {
        let stream = PT.bytes(c.hex) + PTStream.a2
        for chunks in [[stream], stream.map { [$0] }] {
            let (events, left) = PTStream.events(chunks)
            #expect(events.count == 2, "\(events)")
            if case .malformed = events.first {} else { Issue.record("first event is not .malformed: \(String(describing: events.first))") }
            #expect(PTStream.frames(events).map(\.header) == PT.frames(PTStream.a2).map(\.header))
            #expect(left == 0)
        }
    }

    @Test("the validation rules name each violation", arguments: malformed)
    func validationNamesIt(_ c: MalformedCase) {
        var decoder = FrameDecoder()
        let events = decoder.decode(PT.bytes(c.hex))
        guard case .malformed(let reason)? = events.first else {
            Issue.record("no malformed event")
            return
        }
        #expect(!reason.description.isEmpty)
    }

    @Test("a giant DataSize is malformed at once: nothing is buffered waiting for its payload")
    func giantDataSizeIsNotAwaited() {
        var decoder = FrameDecoder()
        let events = decoder.decode(PT.bytes("51 07 00 01 FF FF FF FF 00 00 00 01"))
        #expect(PTStream.malformedCount(events) == 1)
        #expect(decoder.bufferedByteCount == 0, "the decoder must not wait for 4 GiB")
        // A valid frame right after is decoded at once.
        #expect(PTStream.frames(decoder.decode(PTStream.a2)).count == 1)
    }

    @Test("the receive limit is inclusive: DataSize == limit is accepted, limit + 1 is malformed")
    func receiveLimitBoundary() {
        let atLimit = PT.bytes("51 07 00 01 00 00 05 DC 00 00 00 01") + [UInt8](repeating: 0, count: 1500)
        let (ok, _) = PTStream.events([atLimit], maximumPayloadSize: 1500)
        #expect(PTStream.frames(ok).first?.payload.count == 1500)
        #expect(ok.count == 1)
        let over = PT.bytes("51 07 00 01 00 00 05 DD 00 00 00 01")
        let (bad, left) = PTStream.events([over], maximumPayloadSize: 1500)
        #expect(PTStream.malformedCount(bad) == 1)
        #expect(left == 0)
    }

    @Test("garbage before a frame is dropped one byte at a time and reported once")
    func resyncAfterGarbage() {
        for garbage in [PT.bytes("FF"), PT.bytes("00 00 00 00 00"), PT.bytes("DE AD BE EF 66 77 88 99 AA")] {
            var decoder = FrameDecoder()
            let events = decoder.decode(garbage + PTStream.a6 + PTStream.a2)
            #expect(PTStream.malformedCount(events) == 1)
            #expect(events.count == 3)
            #expect(PTStream.frames(events).map(\.header.messageID) == [10, 7])
            #expect(decoder.droppedByteCount == garbage.count, "exactly the garbage bytes are dropped")
        }
    }

    @Test("a valid frame starting one byte into a bad header is found (drop one byte, not the whole header)")
    func resyncInsideBadHeader() {
        // 0x52 then A2: at byte 0 the service type is 0x50 (undefined), so only that byte goes.
        var decoder = FrameDecoder()
        let events = decoder.decode(PT.bytes("52") + PTStream.a2)
        #expect(PTStream.malformedCount(events) == 1)
        #expect(PTStream.frames(events).map(\.header) == PT.frames(PTStream.a2).map(\.header))
        #expect(decoder.droppedByteCount == 1)
    }

    @Test("two bad runs separated by a good frame are reported twice; a run spread over reads once")
    func malformedRunsCounted() {
        let (twice, _) = PTStream.events([PT.bytes("FF FF") + PTStream.a2 + PT.bytes("EE") + PTStream.a3])
        #expect(PTStream.malformedCount(twice) == 2)
        #expect(PTStream.frames(twice).count == 2)
        let (once, _) = PTStream.events([PT.bytes("FF FF"), PT.bytes("EE EE"), PT.bytes("99") + PTStream.a2])
        #expect(PTStream.malformedCount(once) == 1)
        #expect(PTStream.frames(once).count == 1)
    }

    @Test("accepted edge cases: v1 control frame with payload (§10 #13), encrypted First frame with DataSize ≠ 8 (§10 #11), control frame with message id 0")
    func acceptedEdgeCases() {
        let (a1, _) = PTStream.events([PTStream.a1])
        #expect(PTStream.frames(a1).first?.payload.count == 32)
        let encryptedFirst = PT.bytes("5A 07 00 01 00 00 00 10 00 00 00 05") + [UInt8](repeating: 0x11, count: 16)
        let (first, _) = PTStream.events([encryptedFirst])
        #expect(PTStream.frames(first).first?.header.isEncrypted == true)
        #expect(first.count == 1)
        let ackID0 = PT.bytes("50 07 02 01 00 00 00 00 00 00 00 00")
        let (ack, _) = PTStream.events([ackID0])
        #expect(PTStream.frames(ack).count == 1)
    }

    @Test("reset forgets a partial frame")
    func resetForgetsPartial() {
        var decoder = FrameDecoder()
        _ = decoder.decode(PTStream.a6[..<14])
        #expect(decoder.bufferedByteCount == 14)
        decoder.reset()
        #expect(decoder.bufferedByteCount == 0)
        #expect(PTStream.frames(decoder.decode(PTStream.a2)).count == 1)
    }
}


@Suite("Protocol: large frames filled straight from the reads")
struct DirectFillTests {
    static func frame(_ size: Int, messageID: UInt32) -> Frame {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(messageID)) }
        return Frame(header: FrameHeader(version: 5, frameType: .single, serviceType: .video, frameInfo: 0, sessionID: 1,
                                         dataSize: UInt32(size), messageID: messageID), payload: payload)
    }

    @Test("a 100 KB frame between small ones arrives whole in reads of any size, sliced or whole arrays as a socket hands them over; what waits is counted; reset forgets it",
          arguments: [false, true])
    func piecesOfAnySize(readsAsArrays: Bool) {
        let frames = [Self.frame(10, messageID: 1), Self.frame(100_000, messageID: 2), Self.frame(4096, messageID: 3), Self.frame(5, messageID: 4)]
        let wire = frames.flatMap(\.encoded)
        for size in [1, 7, 12, 13, 4096, 5000, 65_536, wire.count] {
            var decoder = FrameDecoder()
            var out: [Frame] = []
            var offset = 0
            while offset < wire.count {
                let read = wire[offset..<min(offset + size, wire.count)]
                let events = readsAsArrays ? decoder.decode(Array(read)) : decoder.decode(read)
                for case .frame(let frame) in events { out.append(frame) }
                offset += size
                if offset < wire.count { #expect(decoder.bufferedByteCount + out.reduce(0) { $0 + $1.encoded.count } == offset) }
            }
            #expect(out == frames, "reads of \(size)")
            #expect(decoder.bufferedByteCount == 0)
        }
        var decoder = FrameDecoder()
        _ = decoder.decode(wire.prefix(20_000))
        #expect(decoder.bufferedByteCount == 20_000 - 22)
        decoder.reset()
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.decode(frames[3].encoded) == [.frame(frames[3])], "after a reset the next frame stands alone")
    }

    @Test("a header claiming a 1 GB payload reserves at most 1 MiB before the bytes arrive; the frame still arrives whole")
    func declaredSizeIsNotTrusted() {
        var decoder = FrameDecoder(maximumPayloadSize: 1 << 30)
        let header = FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1,
                                 dataSize: 1 << 30, messageID: 9)
        #expect(decoder.decode(header.encoded + [1, 2, 3]).isEmpty)
        #expect(decoder.reservedForFilling > 0, "filled from the read that holds the header")
        #expect(decoder.reservedForFilling < 2 * FrameDecoder.reservationLimit, "not the claimed 1 GB")
        // A smaller claim that does arrive: grown past the reservation, delivered in one piece.
        var small = FrameDecoder(maximumPayloadSize: 1 << 30)
        let payload = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0) }
        let frame = Frame(header: FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1,
                                              dataSize: UInt32(payload.count), messageID: 9), payload: payload)
        let wire = frame.encoded
        var events: [FrameDecoder.Event] = []
        var offset = 0
        while offset < wire.count {
            events += small.decode(wire[offset..<min(offset + 16_384, wire.count)])
            offset += 16_384
        }
        #expect(events == [.frame(frame)])
    }
}
