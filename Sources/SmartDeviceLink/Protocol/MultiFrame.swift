/// Splits a message into frames that fit the negotiated payload limit.
package enum FrameFragmenter {
    /// The frames of one message.
    ///
    /// - A payload that fits `maximumPayloadPerFrame` becomes one Single frame.
    /// - Otherwise: a First frame whose 8-byte payload is TotalSize and the number of
    ///   consecutive frames (both u32 BE), then Consecutive frames numbered 1…255, 1…
    ///   (never 0 while more follow), the last one numbered 0.
    ///
    /// Every frame carries the same version, service, session and message ID.
    package static func frames(
        for payload: [UInt8], version: UInt8, serviceType: ServiceType, sessionID: UInt8, messageID: UInt32,
        maximumPayloadPerFrame: Int, encrypted: Bool = false
    ) -> [Frame] {
        let plan = layout(count: payload.count, version: version, serviceType: serviceType, sessionID: sessionID,
                          messageID: messageID, maximumPayloadPerFrame: maximumPayloadPerFrame, encrypted: encrypted)
        if plan.count == 1 { return [Frame(header: plan[0].header, payload: payload)] }
        return plan.map { header, range in
            Frame(header: header, payload: range.map { Array(payload[$0]) } ?? firstFramePayload(payload.count, plan.count - 1))
        }
    }

    /// The same frames written straight into `bytes`, headers and payload slices, with no
    /// frame of their own on the way: what goes on the wire copies each payload byte once.
    package static func encode(
        _ payload: [UInt8], version: UInt8, serviceType: ServiceType, sessionID: UInt8, messageID: UInt32,
        maximumPayloadPerFrame: Int, encrypted: Bool = false, into bytes: inout [UInt8]
    ) {
        let plan = layout(count: payload.count, version: version, serviceType: serviceType, sessionID: sessionID,
                          messageID: messageID, maximumPayloadPerFrame: maximumPayloadPerFrame, encrypted: encrypted)
        bytes.reserveCapacity(bytes.count + payload.count + plan.count * 12 + 8)
        for (header, range) in plan {
            header.encode(into: &bytes)
            if let range {
                bytes.append(contentsOf: payload[range])
            } else {
                bytes.append(contentsOf: firstFramePayload(payload.count, plan.count - 1))
            }
        }
    }

    /// Each frame's header and the range of the payload it carries (nil for the First
    /// frame, whose payload is the total size and the count of consecutive frames).
    private static func layout(
        count: Int, version: UInt8, serviceType: ServiceType, sessionID: UInt8, messageID: UInt32,
        maximumPayloadPerFrame: Int, encrypted: Bool
    ) -> [(header: FrameHeader, range: Range<Int>?)] {
        precondition(maximumPayloadPerFrame > 0, "the payload limit must be positive")
        func header(_ type: FrameType, info: UInt8, size: Int, encrypted: Bool) -> FrameHeader {
            FrameHeader(
                version: version, isEncrypted: encrypted, frameType: type, serviceType: serviceType,
                frameInfo: info, sessionID: sessionID, dataSize: UInt32(size), messageID: messageID)
        }
        if count <= maximumPayloadPerFrame {
            return [(header(.single, info: 0, size: count, encrypted: encrypted), 0..<count)]
        }
        let consecutive = (count + maximumPayloadPerFrame - 1) / maximumPayloadPerFrame
        var plan: [(header: FrameHeader, range: Range<Int>?)] = [(header(.first, info: 0, size: 8, encrypted: false), nil)]
        plan.reserveCapacity(consecutive + 1)
        var offset = 0
        for index in 0..<consecutive {
            let end = min(offset + maximumPayloadPerFrame, count)
            let number = index == consecutive - 1 ? 0 : UInt8(index % 255 + 1)
            plan.append((header(.consecutive, info: number, size: end - offset, encrypted: encrypted), offset..<end))
            offset = end
        }
        return plan
    }

    private static func firstFramePayload(_ total: Int, _ consecutive: Int) -> [UInt8] {
        var first: [UInt8] = []
        first.appendBigEndian(UInt32(total))
        first.appendBigEndian(UInt32(consecutive))
        return first
    }
}

/// Reassembles multi-frame messages, keyed by (session, service, message ID).
///
/// It keys by all three, not by message ID alone, because sdl_core's 8-bit multi-frame IDs
/// repeat, and an unrelated Single frame must not disturb a partial message. Time is a
/// parameter: ``expire(now:)`` drops messages whose last frame did not arrive within
/// ``timeout`` (core: 10 s, `ExpectedConsecutiveFramesTimeout`).
package struct FrameReassembler: Sendable {
    package struct Key: Hashable, Sendable {
        package var sessionID: UInt8
        package var serviceType: ServiceType
        package var messageID: UInt32

        /// One word into the hasher, not three: this runs for every Consecutive frame.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(sessionID) << 40 | UInt64(serviceType.rawValue) << 32 | UInt64(messageID))
        }
    }

    /// What happened to a frame given to the reassembler.
    package enum Outcome: Sendable, Equatable {
        /// A complete message: a Single frame, or the last Consecutive frame of one.
        case message(header: FrameHeader, payload: [UInt8])
        /// Part of a message; more frames are needed.
        case pending
        /// The frame was dropped, and why.
        case dropped(ReassemblyProblem)
    }

    private struct Partial: Sendable {
        var firstHeader: FrameHeader
        var totalSize: Int
        /// The message so far. Its announced size is reserved at the first Consecutive frame:
        /// address space only (pages are touched as bytes arrive), and no copy at a doubling.
        /// Each frame's buffer is freed once appended, so the decoder's next one reuses it
        /// instead of mapping fresh pages.
        var message: [UInt8] = []
        var received = 0
        var lastNumber: UInt8
        var startedAt: ContinuousClock.Instant
        /// `message` is lent to the decoder, which fills the next frame onto its end.
        var lent = false

        mutating func append(_ payload: [UInt8], number: UInt8) {
            if message.capacity == 0 { message.reserveCapacity(totalSize) }
            message.append(contentsOf: payload)
            took(payload.count, number: number)
        }

        /// Records a frame of `count` bytes numbered `number` as received.
        mutating func took(_ count: Int, number: UInt8) {
            received += count
            lastNumber = number
        }
    }

    package var timeout: Duration
    /// The largest message accepted (TotalSize of a First frame). Bigger ones are dropped.
    package var maximumMessageSize: Int
    /// How many messages may wait for frames at once; a First frame beyond that is dropped.
    package var maximumPendingMessages: Int
    /// How many received bytes may wait in unfinished messages at once; a frame that would
    /// go beyond drops its message. A peer cannot make us hold more than this.
    package var maximumPendingBytes: Int
    private var partials: [Key: Partial] = [:]
    private var pendingBytes = 0

    package init(timeout: Duration = .seconds(10), maximumMessageSize: Int = 64 << 20,
                maximumPendingMessages: Int = 64, maximumPendingBytes: Int = 80 << 20) {
        self.timeout = timeout
        self.maximumMessageSize = maximumMessageSize
        self.maximumPendingMessages = maximumPendingMessages
        self.maximumPendingBytes = maximumPendingBytes
    }

    /// Number of messages waiting for more frames.
    package var pendingCount: Int { partials.count }

    /// Feeds a Single, First or Consecutive frame.
    package mutating func receive(_ frame: Frame, now: ContinuousClock.Instant) -> Outcome {
        let header = frame.header
        let key = Key(header)
        switch header.frameType {
        case .control:
            return .message(header: header, payload: frame.payload)
        case .single:
            return .message(header: header, payload: frame.payload)
        case .first:
            guard frame.payload.count >= 8 else { return .dropped(.shortFirstFrame) }
            if partials[key] != nil {
                return .dropped(.repeatedFirstFrame(messageID: header.messageID))
            }
            let total = Int(frame.payload.bigEndianUInt32(at: 0))
            guard total <= maximumMessageSize else {
                return .dropped(.tooLarge(size: total, limit: maximumMessageSize))
            }
            guard partials.count < maximumPendingMessages else {
                return .dropped(.tooManyPending(partials.count, messageID: header.messageID))
            }
            // Memory follows what arrives, not what a First frame announces.
            partials[key] = Partial(firstHeader: header, totalSize: total, lastNumber: 0, startedAt: now)
            return .pending
        case .consecutive:
            let index: Dictionary<Key, Partial>.Index
            switch acceptance(of: header, size: frame.payload.count) {
            case .accepted(let found): index = found
            case .refused(let problem): return .dropped(problem)
            }
            partials.values[index].append(frame.payload, number: header.frameInfo)
            return added(frame.payload.count, at: index, header: header)
        }
    }

    /// The message so far of the partial the Consecutive frame with `header` continues, for
    /// the decoder to fill the frame's payload onto (``FrameDecoder/next(lending:)``); nil
    /// when the frame would be dropped, which ``receive(_:now:)`` then reports.
    package mutating func lend(for header: FrameHeader) -> [UInt8]? {
        // A protected frame is decrypted before it joins its message.
        guard !header.isEncrypted else { return nil }
        // Checked without dropping anything: a frame refused here is refused by `receive`, which reports why.
        guard case .accepted(let index) = acceptance(of: header, size: Int(header.dataSize), dropping: false) else {
            return nil
        }
        var message = partials.values[index].message
        partials.values[index].message = []  // now `message` is the only reference: appending copies nothing
        partials.values[index].lent = true
        if message.capacity == 0 { message.reserveCapacity(partials.values[index].totalSize) }
        return message
    }

    /// Takes back what ``lend(for:)`` lent, with the Consecutive frame of `header` on its end,
    /// as ``receive(_:now:)`` takes a frame.
    package mutating func receive(loaned header: FrameHeader, buffer: [UInt8]) -> Outcome {
        guard let index = partials.index(forKey: Key(header)), partials.values[index].lent else {
            return .dropped(.unknownMessage(header.messageID))  // it expired while the frame arrived
        }
        partials.values[index].lent = false
        partials.values[index].message = buffer
        partials.values[index].took(Int(header.dataSize), number: header.frameInfo)
        return added(Int(header.dataSize), at: index, header: header)
    }

    /// Takes back what ``lend(for:)`` lent when its frame is not to be reassembled after all
    /// (its session ended): the message continues without it.
    package mutating func giveBack(_ header: FrameHeader, buffer: [UInt8]) {
        guard let index = partials.index(forKey: Key(header)), partials.values[index].lent else { return }
        var message = buffer
        message.removeLast(Int(header.dataSize))
        partials.values[index].lent = false
        partials.values[index].message = message
    }

    /// The partial a Consecutive frame of `size` payload bytes continues, or why the frame is
    /// dropped; for some reasons its message goes too, when `dropping`.
    private mutating func acceptance(of header: FrameHeader, size: Int, dropping: Bool = true) -> Acceptance {
        // One lookup per frame: the partial is checked and grown in place by its index.
        guard let index = partials.index(forKey: Key(header)), !partials.values[index].lent else {
            return .refused(.unknownMessage(header.messageID))
        }
        let (lastNumber, received, totalSize) = (partials.values[index].lastNumber, partials.values[index].received,
                                                partials.values[index].totalSize)
        let number = header.frameInfo
        let expected: UInt8 = lastNumber == 255 ? 1 : lastNumber + 1
        guard number == 0 || number == expected else {
            return .refused(.outOfOrder(number, expected: expected))
        }
        let problem: ReassemblyProblem
        if received + size > max(totalSize, 0) && number != 0 {
            problem = .longerThanAnnounced(messageID: header.messageID, announced: totalSize)
        } else if pendingBytes + size > maximumPendingBytes {
            problem = .pendingBytesExceeded(limit: maximumPendingBytes, messageID: header.messageID)
        } else {
            return .accepted(index)
        }
        if dropping {
            partials.remove(at: index)
            pendingBytes -= received
        }
        return .refused(problem)
    }

    private enum Acceptance {
        case accepted(Dictionary<Key, Partial>.Index)
        case refused(ReassemblyProblem)
    }

    /// After `count` bytes of a Consecutive frame went onto the partial at `index`: pending,
    /// or the message when it was the last frame.
    private mutating func added(_ count: Int, at index: Dictionary<Key, Partial>.Index, header: FrameHeader) -> Outcome {
        guard header.frameInfo == 0 else {
            pendingBytes += count
            return .pending
        }
        let partial = partials.remove(at: index).value
        pendingBytes -= partial.received - count
        var completeHeader = partial.firstHeader
        completeHeader.frameType = .single
        completeHeader.dataSize = UInt32(partial.received)
        completeHeader.isEncrypted = header.isEncrypted
        return .message(header: completeHeader, payload: partial.message)
    }

    /// Drops partial messages older than ``timeout``; returns their keys.
    package mutating func expire(now: ContinuousClock.Instant) -> [Key] {
        let stale = partials.filter { now - $0.value.startedAt >= timeout }.map(\.key)
        for key in stale { pendingBytes -= partials.removeValue(forKey: key)?.received ?? 0 }
        return stale
    }

    /// When the oldest partial message expires, if any is pending: the time a driver
    /// should next call ``expire(now:)``.
    package var nextExpiry: ContinuousClock.Instant? {
        // Read twice per message, nearly always with nothing in progress.
        guard !partials.isEmpty else { return nil }
        return partials.values.lazy.map(\.startedAt).min().map { $0 + timeout }
    }

    /// Forgets everything, as on a disconnect.
    package mutating func reset() {
        partials.removeAll()
        pendingBytes = 0
    }

    /// Received bytes held in unfinished messages.
    package var pendingByteCount: Int { pendingBytes }
}

extension FrameReassembler: PayloadLender {}

extension FrameReassembler.Key {
    /// The message a frame with `header` belongs to. (In an extension, so the memberwise
    /// initializer stays.)
    init(_ header: FrameHeader) {
        self.init(sessionID: header.sessionID, serviceType: header.serviceType, messageID: header.messageID)
    }
}

/// Why the reassembler dropped a frame.
package enum ReassemblyProblem: Sendable, Hashable, CustomStringConvertible {
    case shortFirstFrame
    case repeatedFirstFrame(messageID: UInt32)
    case tooLarge(size: Int, limit: Int)
    case tooManyPending(Int, messageID: UInt32)
    case unknownMessage(UInt32)
    case outOfOrder(UInt8, expected: UInt8)
    case longerThanAnnounced(messageID: UInt32, announced: Int)
    case pendingBytesExceeded(limit: Int, messageID: UInt32)

    package var description: String {
        switch self {
        case .shortFirstFrame: return "first frame payload shorter than 8 bytes"
        case .repeatedFirstFrame(let id): return "second first frame for pending message \(id)"
        case .tooLarge(let size, let limit): return "message of \(size) bytes exceeds the limit \(limit)"
        case .tooManyPending(let count, let id): return "\(count) messages are unfinished already; message \(id) dropped"
        case .unknownMessage(let id): return "consecutive frame for unknown message \(id)"
        case .outOfOrder(let number, let expected): return "consecutive frame \(number) where \(expected) was expected"
        case .longerThanAnnounced(let id, let announced): return "message \(id) is longer than its announced \(announced) bytes"
        case .pendingBytesExceeded(let limit, let id):
            return "unfinished messages would hold more than \(limit) bytes; message \(id) dropped"
        }
    }
}
