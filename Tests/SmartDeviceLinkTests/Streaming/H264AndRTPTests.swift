import SmartDeviceLink
import Testing

@Suite("H.264 Annex-B and RTP (RFC 6184 in RFC 4571 framing)")
struct H264AndRTPTests {
    // SPS, PPS, an IDR slice, then two P slices that each start a picture (first_mb_in_slice 0:
    // the top bit after the header is 1), the second split in two slices (the next one not).
    static let sps: [UInt8] = [0x67, 0x42, 0x00, 0x1E]
    static let pps: [UInt8] = [0x68, 0xCE, 0x38, 0x80]
    static let idr: [UInt8] = [0x65, 0x88, 0x84, 0x21]
    static let p1: [UInt8] = [0x41, 0x9A, 0x02]
    static let p2a: [UInt8] = [0x41, 0x9A, 0x03]
    static let p2b: [UInt8] = [0x41, 0x40, 0x04]

    static var stream: [UInt8] {
        [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 0, 1] + idr + [0, 0, 1] + p1 + [0, 0, 0, 1] + p2a + [0, 0, 1] + p2b
    }

    @Test("NAL units come out without start codes, 3- and 4-byte alike (the zero before a 3-byte code belongs to the 4-byte one)")
    func nalUnits() {
        let units = H264.nalUnits(in: Self.stream).map(Array.init)
        #expect(units == [Self.sps, Self.pps, Self.idr, Self.p1, Self.p2a, Self.p2b])
        #expect(H264.nalUnits(in: [0xFF, 0xEE]).isEmpty, "no start code, no NAL unit")
    }

    @Test("access units: parameter sets with the IDR, then one a picture; a slice that does not start a picture stays in its unit")
    func accessUnits() {
        let units = H264.accessUnits(in: Self.stream).map { $0.map(Array.init) }
        #expect(units == [[Self.sps, Self.pps, Self.idr], [Self.p1], [Self.p2a, Self.p2b]])
    }

    @Test("read in pieces of any size, a stream gives the same access units, each once its successor has begun")
    func readerInPieces() {
        let stream = Self.stream + Self.stream
        let whole = H264.accessUnits(in: stream).map { H264.annexB($0) }
        for size in [1, 2, 5, 7, 64] {
            var reader = H264.AccessUnitReader()
            var units: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                units += reader.push(stream[offset..<min(offset + size, stream.count)])
                offset += size
            }
            #expect(units.count == whole.count - 1, "the last unit waits for the end")
            units += reader.finish().map { [$0] } ?? []
            #expect(units == whole, "pieces of \(size)")
        }
    }

    @Test("small NAL units go one to a packet; the last of an access unit carries the marker; timestamps run at 90 kHz")
    func singleNALPackets() {
        var packetizer = RTPH264Packetizer(ssrc: 0x01020304, sequenceNumber: 0xFFFF, initialTimestamp: 1000)
        let bytes = packetizer.packets(for: H264.nalUnits(in: [0, 0, 1] + Self.sps + [0, 0, 1] + Self.idr), presentationTime: .milliseconds(100))
        // length 16 = 12 header + 4; V=2; PT 96 without, then with the marker; sequence wraps.
        #expect(Array(bytes[0..<16]) == [0x00, 16, 0x80, 96, 0xFF, 0xFF, 0x00, 0x00, 0x27, 0x10, 0x01, 0x02, 0x03, 0x04] + Self.sps.prefix(2))
        #expect(bytes[18 + 3] == 0x80 | 96, "the marker on the access unit's last packet")
        #expect(Array(bytes[18 + 4..<18 + 6]) == [0x00, 0x00], "the sequence number wrapped to 0")
        #expect(packetizer.sequenceNumber == 1)
    }

    @Test("a NAL unit larger than a packet becomes FU-A fragments, and the depacketizer, fed in any pieces, gives the stream back")
    func fragmentsRoundTrip() {
        let big: [UInt8] = [0x65] + (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let stream = H264.annexB([Self.sps[...], Self.pps[...], big[...]]) + H264.annexB([Self.p1[...]])
        var packetizer = RTPH264Packetizer(maximumPacket: 1400)
        var framed: [UInt8] = []
        for (index, unit) in H264.accessUnits(in: stream).enumerated() {
            framed += packetizer.packets(for: unit, presentationTime: .milliseconds(33 * index))
        }
        #expect(framed[2 + 12] & 0x1F != 28 && framed.count > stream.count)
        var depacketizer = RTPH264Depacketizer()
        var out: [UInt8] = []
        var offset = 0
        for size in [1, 2, 3, 700, 1499, 5] + Array(repeating: 977, count: 20) where offset < framed.count {
            out += depacketizer.consume(framed[offset..<min(offset + size, framed.count)])
            offset += size
        }
        #expect(out == stream)
        #expect(depacketizer.accessUnits == 2)
        #expect(depacketizer.sequenceGaps == 0 && depacketizer.malformedPackets == 0)
    }

    @Test("a lost packet is counted as a gap; bytes that are not RTP version 2 are counted and skipped")
    func gapsAndGarbage() {
        var packetizer = RTPH264Packetizer()
        let first = packetizer.packets(for: [Self.p1[...]], presentationTime: .zero)
        _ = packetizer.packets(for: [Self.p1[...]], presentationTime: .milliseconds(10))  // lost
        let third = packetizer.packets(for: [Self.p2a[...]], presentationTime: .milliseconds(20))
        var depacketizer = RTPH264Depacketizer()
        _ = depacketizer.consume(first + [0, 13] + [UInt8](repeating: 0, count: 13) + third)
        #expect(depacketizer.sequenceGaps == 1)
        #expect(depacketizer.malformedPackets == 1)
    }
}

@Suite("Touch gestures from OnTouchEvent sequences (sdl_ios's thresholds)")
struct TouchGestureTests {
    func gestures(_ name: String, at point: (x: Int, y: Int) = (400, 240), to end: (x: Int, y: Int)? = nil, scale: Double = 2,
                  flushAfter: Int = 1000) -> [TouchGesture] {
        var recognizer = TouchGestureRecognizer()
        let steps = TouchSequence.steps(name, at: point, to: end, scale: scale, startTime: 0) ?? []
        var out = steps.flatMap { recognizer.handle($0.type, $0.events) }
        out += recognizer.flush(at: (steps.last?.events.first?.ts.first ?? 0) + flushAfter)
        return out
    }

    @Test("a tap is reported once its double-tap window has passed, not before")
    func tap() {
        #expect(gestures("tap") == [.tap(TouchPoint(x: 400, y: 240))])
        #expect(gestures("tap", flushAfter: 100).isEmpty, "a second tap could still come")
    }

    @Test("two taps close in time and place are one double tap; far apart they are two taps")
    func doubleTap() {
        #expect(gestures("doubleTap") == [.doubleTap(TouchPoint(x: 400, y: 240))])
        var recognizer = TouchGestureRecognizer()
        var out: [TouchGesture] = []
        for (x, start) in [(100, 0), (300, 200)] {
            for step in TouchSequence.steps("tap", at: (x, 100), startTime: start) ?? [] { out += recognizer.handle(step.type, step.events) }
        }
        out += recognizer.flush(at: 2000)
        #expect(out == [.tap(TouchPoint(x: 100, y: 100)), .tap(TouchPoint(x: 300, y: 100))])
    }

    @Test("a pan starts past 8 px from where the finger went down, moves no more often than every 50 ms, and ends where the finger lifts")
    func pan() {
        let out = gestures("pan", at: (100, 100), to: (300, 180))
        #expect(out.first == .panStarted(TouchPoint(x: 100, y: 100)))
        #expect(out.last == .panEnded(TouchPoint(x: 300, y: 180)))
        let moves = out.compactMap { if case .panMoved(let from, let to) = $0 { (from, to) } else { nil } }
        #expect(moves.count == 8)
        #expect(moves.first?.0 == TouchPoint(x: 100, y: 100) && moves.last?.1 == TouchPoint(x: 300, y: 180))
        #expect(zip(moves, moves.dropFirst()).allSatisfy { $0.1 == $1.0 }, "each move starts where the last ended")
        #expect(!out.contains { $0.name == "tap" })
    }

    @Test("a pinch starts at the second finger, its scales multiply to the fingers' spread, and it ends when one lifts")
    func pinch() {
        let out = gestures("pinch", at: (400, 240), scale: 3)
        #expect(out.first == .pinchStarted(center: TouchPoint(x: 400, y: 240)))
        #expect(out.last == .pinchEnded(center: TouchPoint(x: 400, y: 240)))
        let total = out.reduce(1.0) { product, gesture in
            if case .pinchMoved(_, let scale) = gesture { product * scale } else { product }
        }
        #expect(abs(total - 3) < 0.01, "\(out)")
        #expect(!out.contains { $0.name == "tap" || $0.name.hasPrefix("pan") })
    }

    @Test("CANCEL ends a pan under way as cancelled; an unknown gesture has no sequence")
    func cancel() {
        var recognizer = TouchGestureRecognizer()
        let steps = TouchSequence.steps("pan", at: (0, 0), startTime: 0) ?? []
        var out = steps.prefix(4).flatMap { recognizer.handle($0.type, $0.events) }
        out += recognizer.handle(.cancel, steps[4].events)
        #expect(out.last == .cancelled)
        #expect(TouchSequence.steps("swipe", at: (0, 0), startTime: 0) == nil)
    }
}
