/// Turns a byte stream into frames, whatever the reads look like.
///
/// One read may hold part of a header, a whole frame, or several frames. Malformed input
/// is handled as sdl_core does: drop one byte and parse again from the next, and report a
/// run of bad bytes once. A `DataSize` above the receive limit is malformed; nothing is
/// ever allocated from it.
package struct FrameDecoder: Sendable {
    /// What the decoder found in the stream.
    package enum Event: Sendable, Hashable {
        case frame(Frame)
        /// A large Consecutive frame whose payload went straight onto the end of the buffer
        /// a ``PayloadLender`` lent for it (see ``next(lending:)``): the buffer, handed back.
        case loaned(FrameHeader, buffer: [UInt8])
        /// The start of a run of bytes that do not form a valid header, and why the first
        /// one failed. Bytes up to the next valid header are dropped silently.
        case malformed(FrameProblem)
    }

    /// The largest payload accepted in one frame. Bigger `DataSize` values are malformed.
    package var maximumPayloadSize: Int
    /// Whether a v2+ data frame may carry message ID 0. core refuses such frames, so what
    /// reads an app's bytes keeps this off; whatever reads a head unit's bytes (the app's
    /// machine, traces, the relay, replays) turns it on, because core 8.2 itself sends its
    /// UnregisterAppInterface response with message ID 0 (its counter for the session is
    /// already gone): refusing it would drop the response and misread the bytes after it.
    package let acceptsMessageIDZero: Bool

    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// True while dropping bytes of a malformed run (so it is reported once).
    private var inMalformedRun = false
    /// Number of bytes dropped in malformed runs since creation; for diagnostics.
    package private(set) var droppedByteCount = 0
    /// A frame too large for what has arrived: its payload is filled straight from the
    /// incoming reads, so its bytes are copied once instead of into the buffer and out again.
    /// `lent` is how many bytes of `payload` were in the lent buffer before it (nil when the
    /// payload is the decoder's own).
    private var filling: (header: FrameHeader, payload: [UInt8], missing: Int, lent: Int?)?
    /// Bytes reserved for a payload that is still arriving (tests).
    var reservedForFilling: Int { filling?.payload.capacity ?? 0 }
    /// Frames at least this large fill their payload directly; smaller ones wait in the buffer.
    /// The fuzzer lowers it, so that short inputs take the paths of large frames too.
    package var directFillSize = 4096
    /// A header's length is the peer's claim: at most this much is reserved before the bytes
    /// arrive, the rest grows as they do (the fuzzer found a 4 GB reservation from one header
    /// after an ACK raised the limit).
    static let reservationLimit = 1 << 20

    /// - Parameter maximumPayloadSize: the receive limit; 131,072 (core's shipped
    ///   `MaximumPayloadSize`) accepts what any known head unit sends before negotiation.
    /// - Parameter fromHeadUnit: the bytes come from a head unit (see ``acceptsMessageIDZero``).
    package init(maximumPayloadSize: Int = 131_072, fromHeadUnit: Bool = false) {
        self.maximumPayloadSize = maximumPayloadSize
        self.acceptsMessageIDZero = fromHeadUnit
    }

    /// Bytes received but not yet part of a complete frame.
    package var bufferedByteCount: Int {
        buffer.count - readIndex + (filling.map { $0.header.size + $0.payload.count - ($0.lent ?? 0) } ?? 0)
    }

    /// Forgets partial input, as on a disconnect.
    package mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        readIndex = 0
        inMalformedRun = false
        filling = nil
    }

    /// Appends `bytes` and returns every complete frame and malformed run found so far.
    package mutating func decode(_ bytes: some Collection<UInt8>) -> [Event] {
        append(bytes)
        var events: [Event] = []
        while let event = next() { events.append(event) }
        return events
    }

    /// Appends received bytes without parsing.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        var none = NoLender()
        append(bytes, lending: &none)
    }

    /// Appends received bytes without parsing; a large Consecutive frame they start may fill
    /// a buffer `lender` lends for it (see ``next(lending:)``).
    package mutating func append(_ bytes: some Collection<UInt8>, lending lender: inout some PayloadLender) {
        // One generic step, then contiguous bytes: generic code is not specialised across
        // modules (perf had `Collection.prefix` and protocol-witness thunks on every read).
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append($0, array: bytes as? [UInt8], lender: &lender) }
        guard appended == nil else { return }
        let copy = Array(bytes)
        copy.withUnsafeBufferPointer { append($0, array: copy, lender: &lender) }
    }

    /// Appends `read`; `array` is the same bytes as an array, when they came as one, which
    /// may become the buffer itself instead of being copied into it.
    private mutating func append(_ read: UnsafeBufferPointer<UInt8>, array: [UInt8]?, lender: inout some PayloadLender) {
        if let missing = filling?.missing, missing > 0 {
            // Nothing unread is buffered while a payload fills: the bytes it needs go straight in,
            // through `filling!` (binding the frame copied the whole tuple, 1% of the emulator's
            // reader thread in an upload).
            let taken = min(missing, read.count)
            filling!.payload.append(contentsOf: UnsafeBufferPointer(rebasing: read[..<taken]))
            filling!.missing -= taken
            guard taken < read.count else { return }
            return append(UnsafeBufferPointer(rebasing: read[taken...]), array: nil, lender: &lender)
        }
        if readIndex == buffer.count {
            // Nothing buffered goes before these bytes: a large frame starting them fills its
            // payload from them directly, and a whole read is taken as the buffer, not copied.
            if filling == nil, fillsDirectly(from: read, lender: &lender) { return }
            if let array {
                buffer = array
                readIndex = 0
                return
            }
        }
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: read)
    }

    /// Starts filling the payload of a frame that begins `read` when it is large and goes
    /// beyond it: the state `next()` would reach after buffering it, one copy sooner.
    private mutating func fillsDirectly(from read: UnsafeBufferPointer<UInt8>, lender: inout some PayloadLender) -> Bool {
        guard case .valid(let header) = parseHeader(read, at: 0), Int(header.dataSize) >= directFillSize,
              read.count < header.size + Int(header.dataSize) else { return false }
        startFilling(header, head: UnsafeBufferPointer(rebasing: read[header.size...]), lender: &lender)
        return true
    }

    /// Makes `head`, the first bytes of a large frame's payload, the start of a payload that
    /// the following reads fill directly; everything buffered up to here is used up. The
    /// payload goes onto the end of what `lender` lends for the frame, if it lends anything.
    private mutating func startFilling(_ header: FrameHeader, head: some Collection<UInt8>, lender: inout some PayloadLender) {
        var payload: [UInt8]
        var lent: Int?
        if header.frameType == .consecutive, let buffer = lender.lend(for: header) {
            payload = buffer
            lent = buffer.count
        } else {
            payload = []
            payload.reserveCapacity(min(Int(header.dataSize), Self.reservationLimit))
        }
        payload.append(contentsOf: head)
        filling = (header, payload, Int(header.dataSize) - (payload.count - (lent ?? 0)), lent)
        // Marked read, not removed: `head` may be a slice of the buffer, which emptying it
        // while the slice is held would reallocate. The next read replaces or compacts it.
        readIndex = buffer.count
        inMalformedRun = false
    }

    /// The next frame or malformed run, or nil when more bytes are needed.
    package mutating func next() -> Event? {
        var none = NoLender()
        return next(lending: &none)
    }

    /// The next frame or malformed run, or nil when more bytes are needed. A large Consecutive
    /// frame (one that goes beyond the bytes buffered) is filled straight onto the end of the
    /// buffer `lender` lends for it, if it lends one (a reassembler lends its message so far):
    /// its bytes are copied once, not into a frame first and then into the message. Such a
    /// frame comes as ``Event/loaned(_:buffer:)``. Frames whole in the buffer are not worth
    /// a loan: its two lookups cost more than the copy of a small frame saves.
    package mutating func next(lending lender: inout some PayloadLender) -> Event? {
        if let frame = filling {
            guard frame.missing == 0 else { return nil }
            filling = nil
            if frame.lent != nil { return .loaned(frame.header, buffer: frame.payload) }
            return .frame(Frame(header: frame.header, payload: frame.payload))
        }
        while readIndex < buffer.count {
            switch parseHeader(buffer, at: readIndex) {
            case .needMoreBytes:
                return nil
            case .invalid(let problem):
                readIndex += 1
                droppedByteCount += 1
                if !inMalformedRun {
                    inMalformedRun = true
                    return .malformed(problem)
                }
            case .valid(let header):
                let total = header.size + Int(header.dataSize)
                guard buffer.count - readIndex >= total else {
                    let available = buffer.count - readIndex - header.size
                    guard Int(header.dataSize) >= directFillSize, available >= 0 else { return nil }
                    startFilling(header, head: buffer[(readIndex + header.size)...], lender: &lender)
                    return nil
                }
                let payloadStart = readIndex + header.size
                let payload = Array(buffer[payloadStart..<(readIndex + total)])
                readIndex += total
                inMalformedRun = false
                return .frame(Frame(header: header, payload: payload))
            }
        }
        return nil
    }

    private enum HeaderParse {
        case needMoreBytes
        case invalid(FrameProblem)
        case valid(FrameHeader)
    }

    private func parseHeader<Bytes: Collection<UInt8>>(_ buffer: Bytes, at start: Int) -> HeaderParse where Bytes.Index == Int {
        let available = buffer.count - start
        guard available > 0 else { return .needMoreBytes }
        let byte0 = buffer[start]
        let version = byte0 >> 4
        guard (1...5).contains(version) else { return .invalid(.version(version)) }
        guard let frameType = FrameType(rawValue: byte0 & 0x07) else {
            return .invalid(.reservedFrameType(byte0 & 0x07))
        }
        let headerSize = FrameHeader.size(forVersion: version)
        // Check what can be checked early so garbage is dropped without waiting.
        if available >= 2 {
            let service = ServiceType(rawValue: buffer[start + 1])
            guard service.isKnown else {
                return .invalid(.undefinedService(service.rawValue))
            }
        }
        guard available >= headerSize else { return .needMoreBytes }

        let header = FrameHeader(
            version: version,
            isEncrypted: byte0 & 0x08 != 0,
            frameType: frameType,
            serviceType: ServiceType(rawValue: buffer[start + 1]),
            frameInfo: buffer[start + 2],
            sessionID: buffer[start + 3],
            dataSize: buffer.bigEndianUInt32(at: start + 4),
            messageID: version > 1 ? buffer.bigEndianUInt32(at: start + 8) : 0
        )
        if let problem = Self.problem(of: header, maximumPayloadSize: maximumPayloadSize),
           !(problem == .messageIDZero && acceptsMessageIDZero) { return .invalid(problem) }
        return .valid(header)
    }

    /// Why `header` is malformed by the rules sdl_core applies to incoming frames, or nil.
    package static func validationFailure(of header: FrameHeader, maximumPayloadSize: Int) -> String? {
        problem(of: header, maximumPayloadSize: maximumPayloadSize)?.description
    }

    static func problem(of header: FrameHeader, maximumPayloadSize: Int) -> FrameProblem? {
        if Int(header.dataSize) > maximumPayloadSize { return .tooLarge(header.dataSize, limit: maximumPayloadSize) }
        switch header.frameType {
        case .control:
            if header.controlInfo == nil { return .undefinedControlInfo(header.frameInfo) }
            if header.serviceType == .hybrid { return .controlOnHybrid }
        case .single:
            if header.dataSize == 0 { return .empty(.single) }
            if header.frameInfo != 0 { return .frameInfo(.single, header.frameInfo) }
        case .first:
            // An encrypted First Frame from some core versions has DataSize ≠ 8.
            if header.dataSize != 8 && !header.isEncrypted { return .firstFrameSize(header.dataSize) }
            if header.frameInfo != 0 { return .frameInfo(.first, header.frameInfo) }
        case .consecutive:
            if header.dataSize == 0 { return .empty(.consecutive) }
        }
        if header.frameType != .control, header.version > 1, header.messageID == 0 { return .messageIDZero }
        return nil
    }
}

/// Lends the decoder a buffer to fill a large Consecutive frame's payload onto the end of
/// (``FrameDecoder/next(lending:)``): the buffer comes back whole in ``FrameDecoder/Event/loaned(_:buffer:)``.
package protocol PayloadLender {
    /// A buffer for the payload of the frame with `header` to be appended to, or nil to let
    /// the decoder give the frame a payload of its own.
    mutating func lend(for header: FrameHeader) -> [UInt8]?
}

/// Lends nothing: every frame gets a payload of its own.
package struct NoLender: PayloadLender {
    /// Storage, so that `&lender` is a real address: ThreadSanitizer checks every inout
    /// access, and on an empty struct's placeholder address it crashed (`scripts/test
    /// --sanitize thread`, SEGV in its shadow memory).
    private var storage: UInt8 = 0

    package init() {}
    package func lend(for header: FrameHeader) -> [UInt8]? { nil }
}

/// Why bytes do not start a valid frame. Kept as a value: in a run of garbage every byte is
/// tried as a header, and only the first failure of a run is ever put into words.
package enum FrameProblem: Sendable, Hashable, CustomStringConvertible {
    case version(UInt8)
    case reservedFrameType(UInt8)
    case undefinedService(UInt8)
    case tooLarge(UInt32, limit: Int)
    case undefinedControlInfo(UInt8)
    case controlOnHybrid
    case empty(FrameType)
    case frameInfo(FrameType, UInt8)
    case firstFrameSize(UInt32)
    case messageIDZero

    package var description: String {
        switch self {
        case .version(let version): return "protocol version \(version) is not 1…5"
        case .reservedFrameType(let type): return "frame type \(type) is reserved"
        case .undefinedService(let service): return "service type 0x\(String(service, radix: 16)) is not defined"
        case .tooLarge(let size, let limit): return "DataSize \(size) exceeds the receive limit \(limit)"
        case .undefinedControlInfo(let info): return "control frame info 0x\(String(info, radix: 16)) is not defined"
        case .controlOnHybrid: return "control frame on the hybrid service"
        case .empty(let type): return "\(type == .single ? "single" : "consecutive") frame with no payload"
        case .frameInfo(let type, let info): return "\(type == .single ? "single" : "first") frame with frame info \(info)"
        case .firstFrameSize(let size): return "first frame with DataSize \(size), not 8"
        case .messageIDZero: return "data frame with message ID 0"
        }
    }
}
