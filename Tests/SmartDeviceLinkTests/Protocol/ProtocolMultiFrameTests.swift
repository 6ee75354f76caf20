// Multi-frame messages (PROTOCOL.md §2.3; core: PH/src/protocol_handler_impl.cc
// SendMultiFrameMessage and PH/src/multiframe_builder.cc; ios: SDLProtocolMessageDisassembler.m).
import SDLTestSupport
import Testing
@testable import SmartDeviceLink

@Suite("Protocol: multi-frame fragmentation and reassembly")
struct ProtocolMultiFrameTests {
    static func payload(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func frames(_ payload: [UInt8], chunk: Int, service: ServiceType = .rpc, session: UInt8 = 1, id: UInt32 = 0x0102) -> [Frame] {
        FrameFragmenter.frames(for: payload, version: 5, serviceType: service, sessionID: session, messageID: id, maximumPayloadPerFrame: chunk)
    }

    @Test("§2.3 worked example: 300,000 bytes at 131,072 → First(00 04 93 E0 | 00 00 00 03), #1, #2, #0 with 37,856 bytes")
    func workedExample() {
        let data = Self.payload(300_000)
        let frames = Self.frames(data, chunk: 131_072, id: 0x21)
        #expect(frames.count == 4)
        let wire = frames.map(\.encoded)
        // Headers and the First frame's payload written by hand.
        #expect(PT.hex(wire[0]) == PT.hex(PT.bytes("52 07 00 01 00 00 00 08 00 00 00 21  00 04 93 E0 00 00 00 03")))
        #expect(PT.hex(wire[1].prefix(12)) == PT.hex(PT.bytes("53 07 01 01 00 02 00 00 00 00 00 21")))
        #expect(PT.hex(wire[2].prefix(12)) == PT.hex(PT.bytes("53 07 02 01 00 02 00 00 00 00 00 21")))
        #expect(PT.hex(wire[3].prefix(12)) == PT.hex(PT.bytes("53 07 00 01 00 00 93 E0 00 00 00 21")))
        #expect(frames[3].payload.count == 37_856)
        #expect(Array(wire[1].dropFirst(12)) + Array(wire[2].dropFirst(12)) + Array(wire[3].dropFirst(12)) == data)
    }

    @Test("MTU 1500: 1488 payload bytes per frame; 5000 bytes → First(00 00 13 88 | 00 00 00 04) + 1488, 1488, 1488, 536")
    func mtu1500() {
        let frames = Self.frames(Self.payload(5000), chunk: 1500 - 12)
        #expect(frames.map(\.payload.count) == [8, 1488, 1488, 1488, 536])
        #expect(frames[0].payload == PT.bytes("00 00 13 88 00 00 00 04"))
        #expect(frames.map(\.header.frameInfo) == [0, 1, 2, 3, 0])
        #expect(frames.map(\.header.frameType) == [.first, .consecutive, .consecutive, .consecutive, .consecutive])
    }

    @Test("a payload that fits is one Single frame with frame info 0; one byte more is First + 2 Consecutive",
          arguments: [1488, 131_072])
    func singleBoundary(chunk: Int) {
        let fits = Self.frames(Self.payload(chunk), chunk: chunk)
        #expect(fits.count == 1)
        #expect(fits[0].header.frameType == .single)
        #expect(fits[0].header.frameInfo == 0)
        let over = Self.frames(Self.payload(chunk + 1), chunk: chunk)
        #expect(over.map(\.header.frameType) == [.first, .consecutive, .consecutive])
        #expect(over.map(\.header.frameInfo) == [0, 1, 0])
        #expect(over.map(\.payload.count) == [8, chunk, 1])
    }

    @Test("more than 255 frames: numbering 1…255 wraps to 1 (never 0 while more follow), the last frame is 0")
    func numberingWraps() {
        let data = Self.payload(3001)
        let frames = Self.frames(data, chunk: 10)
        #expect(frames.count == 1 + 301)
        #expect(frames[0].payload == PT.bytes("00 00 0B B9 00 00 01 2D"))
        let numbers = frames.dropFirst().map(\.header.frameInfo)
        let expected: [UInt8] = Array(1...255) + Array(1...45) + [0]
        #expect(numbers == expected)
        #expect(frames.allSatisfy { $0.header.messageID == 0x0102 && $0.header.sessionID == 1 && $0.header.serviceType == .rpc })
        #expect(frames.allSatisfy { !$0.header.isEncrypted })
        var r = FrameReassembler()
        var out: [FrameReassembler.Outcome] = []
        for f in frames { out.append(r.receive(f, now: PT.t0)) }
        #expect(out.last == .message(header: FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1, dataSize: 3001, messageID: 0x0102), payload: data))
        #expect(out.dropLast().allSatisfy { $0 == .pending })
    }

    @Test("encrypted message: First frame stays unencrypted, the others carry E=1 (§2.4)")
    func encryptedFirstFrameClear() {
        let frames = FrameFragmenter.frames(for: Self.payload(30), version: 5, serviceType: .video, sessionID: 2, messageID: 3,
                                            maximumPayloadPerFrame: 10, encrypted: true)
        #expect(frames.map(\.header.isEncrypted) == [false, true, true, true])
    }

    @Test("round trip through the wire and the reassembler", arguments: [1488, 131_072], [0, 1, 2, 7])
    func roundTrip(chunk: Int, extraFrames: Int) {
        for size in [chunk * max(extraFrames, 1), chunk * max(extraFrames, 1) + 1, chunk * extraFrames + 17] where size > 0 {
            let data = Self.payload(size, seed: UInt64(size))
            var bytes: [UInt8] = []
            for f in Self.frames(data, chunk: chunk, service: .video, session: 9, id: 77) { bytes += f.encoded }
            var r = FrameReassembler()
            var messages: [[UInt8]] = []
            for f in PT.frames(bytes, maximumPayloadSize: chunk) {
                if case .message(let h, let p) = r.receive(f, now: PT.t0) {
                    #expect(h.serviceType == .video && h.sessionID == 9 && h.messageID == 77)
                    messages.append(p)
                }
            }
            #expect(messages == [data], "size \(size) at chunk \(chunk)")
            #expect(r.pendingCount == 0)
        }
    }

    @Test("round trip of 300 frames at MTU 1500 (numbers wrap past 255)")
    func roundTripWrapping() {
        let data = Self.payload(1488 * 299 + 5, seed: 11)
        let frames = Self.frames(data, chunk: 1488)
        #expect(frames.count == 301)
        #expect(frames[256].header.frameInfo == 1, "frame 256 wraps to 1")
        var bytes: [UInt8] = []
        for f in frames { bytes += f.encoded }
        var r = FrameReassembler()
        var result: [UInt8]?
        for f in PT.frames(bytes, maximumPayloadSize: 1488) {
            if case .message(_, let p) = r.receive(f, now: PT.t0) { result = p }
        }
        #expect(result == data)
    }

    @Test("interleaved messages of different ids, sessions and services reassemble independently")
    func interleaved() {
        let a = Self.payload(50, seed: 1), b = Self.payload(45, seed: 2), c = Self.payload(33, seed: 3), d = Self.payload(21, seed: 4)
        let fa = Self.frames(a, chunk: 10, id: 5)
        let fb = Self.frames(b, chunk: 10, id: 6)
        let fc = Self.frames(c, chunk: 10, session: 2, id: 5)   // same id, other session
        let fd = Self.frames(d, chunk: 10, service: .hybrid, id: 5)  // same id and session, other service
        var all: [Frame] = []
        for i in 0..<max(fa.count, fb.count, fc.count, fd.count) {
            for list in [fa, fb, fc, fd] where i < list.count { all.append(list[i]) }
        }
        var r = FrameReassembler()
        var got: [FrameReassembler.Key: [UInt8]] = [:]
        for f in all {
            if case .message(let h, let p) = r.receive(f, now: PT.t0) {
                got[FrameReassembler.Key(sessionID: h.sessionID, serviceType: h.serviceType, messageID: h.messageID)] = p
            }
        }
        #expect(got[.init(sessionID: 1, serviceType: .rpc, messageID: 5)] == a)
        #expect(got[.init(sessionID: 1, serviceType: .rpc, messageID: 6)] == b)
        #expect(got[.init(sessionID: 2, serviceType: .rpc, messageID: 5)] == c)
        #expect(got[.init(sessionID: 1, serviceType: .hybrid, messageID: 5)] == d)
        #expect(got.count == 4)
    }

    @Test("an unrelated Single frame with the same message id does not disturb a partial message (§10 #9; java would drop it)")
    func singleWithSameID() {
        let data = Self.payload(25)
        let frames = Self.frames(data, chunk: 10, id: 8)
        var r = FrameReassembler()
        #expect(r.receive(frames[0], now: PT.t0) == .pending)
        #expect(r.receive(frames[1], now: PT.t0) == .pending)
        let single = Frame(header: FrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1, dataSize: 3, messageID: 8), payload: [1, 2, 3])
        #expect(r.receive(single, now: PT.t0) == .message(header: single.header, payload: [1, 2, 3]))
        #expect(r.pendingCount == 1)
        #expect(r.receive(frames[2], now: PT.t0) == .pending)
        guard case .message(_, let p) = r.receive(frames[3], now: PT.t0) else {
            Issue.record("message not completed")
            return
        }
        #expect(p == data)
    }

    @Test("an out-of-order Consecutive frame is dropped (core: previous + 1 only); the message continues in order")
    func outOfOrderDropped() {
        let data = Self.payload(35)
        let frames = Self.frames(data, chunk: 10)  // First, #1, #2, #3, #0
        var r = FrameReassembler()
        #expect(r.receive(frames[0], now: PT.t0) == .pending)
        if case .dropped = r.receive(frames[2], now: PT.t0) {} else { Issue.record("#2 before #1 was accepted") }
        #expect(r.receive(frames[1], now: PT.t0) == .pending)
        if case .dropped = r.receive(frames[1], now: PT.t0) {} else { Issue.record("a repeated #1 was accepted") }
        #expect(r.receive(frames[2], now: PT.t0) == .pending)
        #expect(r.receive(frames[3], now: PT.t0) == .pending)
        guard case .message(_, let p) = r.receive(frames[4], now: PT.t0) else {
            Issue.record("message not completed")
            return
        }
        #expect(p == data)
    }

    @Test("a Consecutive frame without a First frame is dropped")
    func consecutiveWithoutFirst() {
        var r = FrameReassembler()
        let frames = Self.frames(Self.payload(25), chunk: 10)
        if case .dropped = r.receive(frames[1], now: PT.t0) {} else { Issue.record("accepted") }
        if case .dropped = r.receive(frames[3], now: PT.t0) {} else { Issue.record("last frame accepted") }
        #expect(r.pendingCount == 0)
    }

    @Test("a second First frame for a pending message id is dropped; the first message still completes")
    func secondFirstDropped() {
        let data = Self.payload(25, seed: 5)
        let frames = Self.frames(data, chunk: 10, id: 4)
        let other = Self.frames(Self.payload(40, seed: 6), chunk: 10, id: 4)
        var r = FrameReassembler()
        #expect(r.receive(frames[0], now: PT.t0) == .pending)
        #expect(r.receive(frames[1], now: PT.t0) == .pending)
        if case .dropped = r.receive(other[0], now: PT.t0) {} else { Issue.record("second First accepted") }
        #expect(r.receive(frames[2], now: PT.t0) == .pending)
        guard case .message(let h, let p) = r.receive(frames[3], now: PT.t0) else {
            Issue.record("not completed")
            return
        }
        #expect(p == data)
        #expect(h.dataSize == 25)
    }

    @Test("a partial message expires after the timeout (time is a parameter); later frames of it are dropped")
    func expiry() {
        var r = FrameReassembler(timeout: .seconds(10))
        let frames = Self.frames(Self.payload(25), chunk: 10, id: 3)
        #expect(r.receive(frames[0], now: PT.at(0)) == .pending)
        #expect(r.receive(frames[1], now: PT.at(5)) == .pending)
        #expect(r.expire(now: PT.at(9.999)).isEmpty)
        #expect(r.pendingCount == 1)
        #expect(r.expire(now: PT.at(10)) == [FrameReassembler.Key(sessionID: 1, serviceType: .rpc, messageID: 3)])
        #expect(r.pendingCount == 0)
        if case .dropped = r.receive(frames[2], now: PT.at(10.5)) {} else { Issue.record("frame of an expired message accepted") }
        // The id is free again for a new message.
        #expect(r.receive(frames[0], now: PT.at(11)) == .pending)
    }

    @Test("a First frame announcing more than the message limit is dropped, nothing reserved")
    func hugeFirstFrame() {
        var r = FrameReassembler(maximumMessageSize: 1 << 20)
        let first = Frame(header: FrameHeader(version: 5, frameType: .first, serviceType: .rpc, sessionID: 1, dataSize: 8, messageID: 1),
                          payload: PT.bytes("FF FF FF FF FF FF FF FF"))
        if case .dropped = r.receive(first, now: PT.t0) {} else { Issue.record("accepted a 4 GiB message") }
        #expect(r.pendingCount == 0)
    }
}

@Suite("Protocol: reassembly is bounded (a peer cannot make us buffer without limit)")
struct ProtocolReassemblyBoundsTests {
    static func first(id: UInt32, total: UInt32) -> Frame {
        let header = FrameHeader(version: 5, isEncrypted: false, frameType: .first, serviceType: .rpc, frameInfo: 0,
                                 sessionID: 1, dataSize: 8, messageID: id)
        return Frame(header: header, payload: PT.bytes(String(format: "%08X 00000001", total)))
    }

    static func consecutive(id: UInt32, number: UInt8, count: Int) -> Frame {
        let header = FrameHeader(version: 5, isEncrypted: false, frameType: .consecutive, serviceType: .rpc, frameInfo: number,
                                 sessionID: 1, dataSize: UInt32(count), messageID: id)
        return Frame(header: header, payload: [UInt8](repeating: 7, count: count))
    }

    @Test("2,000 unfinished messages: only the first 64 are kept, the rest dropped with a reason")
    func manyPartials() {
        var reassembler = FrameReassembler()
        var dropped = 0
        for id in 1...2_000 {
            if case .dropped(let reason) = reassembler.receive(Self.first(id: UInt32(id), total: 100_000), now: .now) {
                dropped += 1
                #expect(reason.description.contains("unfinished already"))
            }
        }
        #expect(reassembler.pendingCount == 64)
        #expect(dropped == 2_000 - 64)
    }

    @Test("a First frame announcing 2^31-1 bytes is dropped; received bytes, not announced ones, count")
    func hugeAnnouncement() {
        var reassembler = FrameReassembler()
        guard case .dropped = reassembler.receive(Self.first(id: 1, total: 0x7FFF_FFFF), now: .now) else {
            Issue.record("accepted a 2 GiB message")
            return
        }
        var small = FrameReassembler(maximumPendingBytes: 10_000)
        #expect(small.receive(Self.first(id: 2, total: 50_000), now: .now) == .pending)
        #expect(small.receive(Self.consecutive(id: 2, number: 1, count: 6_000), now: .now) == .pending)
        #expect(small.pendingByteCount == 6_000)
        guard case .dropped(let reason) = small.receive(Self.consecutive(id: 2, number: 2, count: 6_000), now: .now) else {
            Issue.record("held more than the limit")
            return
        }
        #expect(reason.description.contains("more than 10000 bytes"))
        #expect(small.pendingCount == 0)
        #expect(small.pendingByteCount == 0)
    }

    @Test("stale messages expire at the reassembly timeout, and the driver knows when")
    func expiry() {
        var reassembler = FrameReassembler(timeout: .seconds(10))
        let start = ContinuousClock.now
        _ = reassembler.receive(Self.first(id: 1, total: 5_000), now: start)
        #expect(reassembler.nextExpiry == start + .seconds(10))
        #expect(reassembler.expire(now: start + .seconds(9)).isEmpty)
        #expect(reassembler.expire(now: start + .seconds(10)).count == 1)
        #expect(reassembler.nextExpiry == nil)
    }
}

@Suite("Protocol: frames written straight to the wire")
struct FragmentEncodingTests {
    @Test("encode writes exactly the bytes of the frames it plans, single and multi-frame, at any limit")
    func encodeEqualsFrames() {
        let payload = (0..<70_001).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        for (size, limit) in [(0, 10), (1, 1), (1488, 1488), (1489, 1488), (70_001, 1488), (70_001, 7), (70_001, 131_072)] {
            let message = Array(payload.prefix(size))
            let frames = FrameFragmenter.frames(for: message, version: 5, serviceType: .rpc, sessionID: 3, messageID: 9,
                                                maximumPayloadPerFrame: limit)
            var wire: [UInt8] = [0xEE]  // what was there stays
            FrameFragmenter.encode(message, version: 5, serviceType: .rpc, sessionID: 3, messageID: 9, maximumPayloadPerFrame: limit, into: &wire)
            #expect(wire == [0xEE] + frames.flatMap(\.encoded), "\(size) bytes, limit \(limit)")
        }
    }
}
