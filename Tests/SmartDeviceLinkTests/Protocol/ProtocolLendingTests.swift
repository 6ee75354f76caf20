// The reassembler lends each unfinished message to the decoder, which fills a large
// Consecutive frame straight onto its end: the bytes are copied once, from the read into the
// message, instead of into a frame and then into the message.
import Testing
@testable import SmartDeviceLink

@Suite("Protocol: large Consecutive frames filled onto their message")
struct ProtocolLendingTests {
    /// Decodes `wire` in reads of `read` bytes as the machines do; returns the messages, how
    /// many frames were loaned, and the address of every loaned buffer.
    static func lendingDecode(_ wire: [UInt8], read: Int, reassembler: inout FrameReassembler,
                              giveBack: (Int) -> Bool = { _ in false })
        -> (messages: [[UInt8]], dropped: [ReassemblyProblem], loaned: Int, addresses: Set<UnsafeRawPointer>) {
        var decoder = FrameDecoder()
        var result: (messages: [[UInt8]], dropped: [ReassemblyProblem], loaned: Int, addresses: Set<UnsafeRawPointer>) = ([], [], 0, [])
        for start in stride(from: 0, to: wire.count, by: read) {
            decoder.append(wire[start..<min(start + read, wire.count)], lending: &reassembler)
            while let event = decoder.next(lending: &reassembler) {
                let outcome: FrameReassembler.Outcome
                switch event {
                case .malformed(let problem):
                    Issue.record("malformed: \(problem)")
                    continue
                case .frame(let frame):
                    outcome = reassembler.receive(frame, now: PT.t0)
                case .loaned(let header, let buffer):
                    result.loaned += 1
                    result.addresses.insert(buffer.withUnsafeBytes { UnsafeRawPointer($0.baseAddress!) })
                    guard !giveBack(result.loaned) else {
                        reassembler.giveBack(header, buffer: buffer)
                        continue
                    }
                    outcome = reassembler.receive(loaned: header, buffer: buffer)
                }
                switch outcome {
                case .message(_, let payload): result.messages.append(payload)
                case .dropped(let problem): result.dropped.append(problem)
                case .pending: break
                }
            }
        }
        return result
    }

    static func wire(_ payload: [UInt8], frameSize: Int, id: UInt32 = 7) -> [UInt8] {
        var bytes: [UInt8] = []
        FrameFragmenter.encode(payload, version: 5, serviceType: .rpc, sessionID: 1, messageID: id,
                               maximumPayloadPerFrame: frameSize, into: &bytes)
        return bytes
    }

    @Test("a 1 MiB message in 131,072-byte frames read 16 KiB at a time is filled into one buffer, frame after frame")
    func filledInPlace() {
        let data = ProtocolMultiFrameTests.payload(1 << 20, seed: 3)
        var reassembler = FrameReassembler()
        let result = Self.lendingDecode(Self.wire(data, frameSize: 131_072), read: 16_384, reassembler: &reassembler)
        let whole = result.messages == [data]
        #expect(whole)
        #expect(result.loaned == 8, "every Consecutive frame")
        #expect(result.addresses.count == 1, "the message never moved: reserved once, filled in place")
        #expect(reassembler.pendingCount == 0 && reassembler.pendingByteCount == 0)
    }

    @Test("frames below the direct-fill size and reads that hold whole frames reassemble the same", arguments: [1488, 4096, 20_000], [100, 16_384, 1 << 20])
    func sameMessages(frameSize: Int, read: Int) {
        let data = ProtocolMultiFrameTests.payload(150_001, seed: UInt64(frameSize))
        var reassembler = FrameReassembler()
        let result = Self.lendingDecode(Self.wire(data, frameSize: frameSize), read: read, reassembler: &reassembler)
        let whole = result.messages == [data]
        #expect(whole)
        #expect(result.dropped.isEmpty)
        if frameSize < 4096 { #expect(result.loaned == 0, "small frames are not lent for") }
        if frameSize >= 4096, read < frameSize {
            let large = data.count / frameSize + (data.count % frameSize >= 4096 ? 1 : 0)
            #expect(result.loaned == large, "every Consecutive frame of 4,096 bytes or more goes beyond a read")
        }
        #expect(reassembler.pendingCount == 0)
    }

    @Test("a loaned frame given back leaves the message without it, as if the frame had been skipped")
    func givenBack() {
        let data = ProtocolMultiFrameTests.payload(600_000, seed: 5)
        let wire = Self.wire(data, frameSize: 131_072)
        var lending = FrameReassembler()
        let result = Self.lendingDecode(wire, read: 16_384, reassembler: &lending, giveBack: { $0 == 2 })
        // The same frames, the second Consecutive one skipped, to a reassembler that lends nothing.
        var copying = FrameReassembler()
        var expected: (messages: [[UInt8]], dropped: [ReassemblyProblem]) = ([], [])
        for (index, frame) in PT.frames(wire).enumerated() where index != 2 {
            switch copying.receive(frame, now: PT.t0) {
            case .message(_, let payload): expected.messages.append(payload)
            case .dropped(let problem): expected.dropped.append(problem)
            case .pending: break
            }
        }
        // Frames 3 and 4 are out of order; the last (number 0) is taken whatever came before, as core does.
        #expect(expected.dropped == [.outOfOrder(3, expected: 2), .outOfOrder(4, expected: 2)])
        #expect(result.dropped == expected.dropped)
        #expect(result.messages.map(\.count) == [131_072 + 75_712])
        let sameMessages = result.messages == expected.messages
        #expect(sameMessages)
        #expect(lending.pendingCount == 0 && lending.pendingByteCount == 0)
    }

    @Test("a frame the reassembler would drop is not lent for, and is dropped for its own reason")
    func notLentWhenRefused() {
        var reassembler = FrameReassembler()
        // A Consecutive frame with no First frame before it.
        let orphan = Frame(header: FrameHeader(version: 5, frameType: .consecutive, serviceType: .rpc, frameInfo: 1,
                                               sessionID: 1, dataSize: 10_000, messageID: 9),
                           payload: [UInt8](repeating: 1, count: 10_000))
        let result = Self.lendingDecode(orphan.encoded, read: 1000, reassembler: &reassembler)
        #expect(result.loaned == 0)
        #expect(result.dropped == [.unknownMessage(9)])
    }

    @Test("the app's machine reassembles a 400,000-byte RPC from the head unit in 16 KiB reads")
    func throughTheMachine() throws {
        var link = PTLink()
        try link.start()
        let data = ProtocolMultiFrameTests.payload(400_000, seed: 9)
        var bytes: [UInt8] = []
        for case .send(let sent) in try link.hu.send(data, service: .rpc, sessionID: 1, now: PT.t0) { bytes += sent }
        var messages: [[UInt8]] = []
        for start in stride(from: 0, to: bytes.count, by: 16_384) {
            for action in link.app.receive(bytes[start..<min(start + 16_384, bytes.count)], now: PT.t0) {
                switch action {
                case .message(_, .rpc, let payload, _): messages.append(payload)
                case .violation(let violation): Issue.record("violation: \(violation)")
                default: break
                }
            }
        }
        let whole = messages == [data]
        #expect(whole)
    }
}
