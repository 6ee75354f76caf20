/// The SDL protocol session layer of one role, without I/O: bytes and calls go in,
/// ``ProtocolAction``s come out, and time is always a parameter, in the manner of swift-nio-ssh.
///
/// Two machines implement it: ``AppProtocolMachine`` (the library) and
/// ``HeadUnitProtocolMachine`` (the emulator). They share the decoder, the reassembler, the
/// fragmenter and the frame helpers below; what differs between the roles lives in each.
package protocol ProtocolMachine: Sendable {
    init(configuration: ProtocolConfiguration)
    var configuration: ProtocolConfiguration { get }
    /// Feeds bytes from the transport.
    mutating func receive(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> [ProtocolAction]
    /// Lets time pass: heartbeats, heartbeat timeouts, expiry of partial messages.
    mutating func tick(now: ContinuousClock.Instant) -> [ProtocolAction]
    /// The earliest time at which ``tick(now:)`` has something to do, or nil when nothing is
    /// timed. A driver sleeps until then instead of polling; ticking earlier is harmless.
    var nextDeadline: ContinuousClock.Instant? { get }
    /// Forgets partial input and sessions, as when the transport is lost.
    mutating func reset()
    /// The sessions that are up, by id.
    var activeSessions: [UInt8: SessionInfo] { get }
    /// Bytes received that formed no frame and were dropped.
    var droppedByteCount: Int { get }
    /// The largest payload a received frame may claim now (it grows with what is negotiated).
    var receivePayloadLimit: Int { get }
}

/// The receiving half both roles share: frames out of bytes, messages out of data frames.
///
/// The reassembler lends the decoder each unfinished message, so a large Consecutive
/// frame's bytes are copied once, from the read onto the end of the message.
struct FrameInput: Sendable {
    var decoder: FrameDecoder
    var reassembler: FrameReassembler
    /// The message a loaned frame was filled onto, from ``nextFrame(violations:)`` until the
    /// frame is reassembled, or given back when the machine drops the frame.
    private var loan: (header: FrameHeader, buffer: [UInt8])?

    /// - Parameter fromHeadUnit: the app's side, reading what a head unit sends.
    init(configuration: ProtocolConfiguration, fromHeadUnit: Bool) {
        decoder = FrameDecoder(maximumPayloadSize: max(configuration.maximumPayloadSize, 1488), fromHeadUnit: fromHeadUnit)
        reassembler = FrameReassembler(timeout: configuration.reassemblyTimeout)
    }

    /// Appends received bytes to the decoder.
    mutating func append(_ bytes: some Collection<UInt8>) {
        decoder.append(bytes, lending: &reassembler)
    }

    /// The next frame of the bytes appended; the start of a malformed run on the way becomes
    /// a violation. A loaned Consecutive frame comes with only its header: its payload is on
    /// the end of its message already, which ``reassemble(_:now:into:)`` takes back.
    mutating func nextFrame(violations actions: inout [ProtocolAction]) -> Frame? {
        if let unclaimed = loan {
            loan = nil
            reassembler.giveBack(unclaimed.header, buffer: unclaimed.buffer)
        }
        while let event = decoder.next(lending: &reassembler) {
            switch event {
            case .malformed(let problem): actions.append(.violation(.malformedFrame(problem)))
            case .frame(let frame): return frame
            case .loaned(let header, let buffer):
                loan = (header, buffer)
                return Frame(header: header)
            }
        }
        return nil
    }

    /// A data frame of a started session (decrypted if it came protected): a complete
    /// message, or nil while one is pending or when the frame was dropped (a violation).
    private mutating func reassemble(_ frame: Frame, now: ContinuousClock.Instant,
                             into actions: inout [ProtocolAction]) -> (header: FrameHeader, payload: [UInt8])? {
        let outcome: FrameReassembler.Outcome
        if let loaned = loan, loaned.header == frame.header {
            loan = nil
            outcome = reassembler.receive(loaned: loaned.header, buffer: loaned.buffer)
        } else {
            outcome = reassembler.receive(frame, now: now)
        }
        switch outcome {
        case .message(let header, let payload):
            return (header, payload)
        case .pending:
            return nil
        case .dropped(let problem):
            actions.append(.violation(.reassembly(problem)))
            return nil
        }
    }

    /// A data frame (decrypted if it came protected) reassembled: a complete message of a
    /// data service becomes a `.message`; one on the Control service, a security query, is
    /// returned for the role to read.
    mutating func reassembleData(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) -> [UInt8]? {
        guard let (header, payload) = reassemble(frame, now: now, into: &actions) else { return nil }
        guard header.serviceType == .control else {
            actions.append(.message(sessionID: header.sessionID, serviceType: header.serviceType, payload: payload, protected: header.isEncrypted))
            return nil
        }
        return payload
    }

    /// Partial messages whose last frame did not come in time.
    mutating func expire(now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        for key in reassembler.expire(now: now) {
            actions.append(.violation(.expired(messageID: key.messageID, service: key.serviceType)))
        }
    }

    /// Accepts payloads up to `limit` from now on (a negotiated `mtu` may raise it).
    mutating func accept(upTo limit: Int) {
        decoder.maximumPayloadSize = max(decoder.maximumPayloadSize, limit)
    }

    mutating func reset() {
        decoder.reset()
        reassembler.reset()
        loan = nil
    }
}

/// The sessions of one link by id: a handful at most, kept in arrays searched by id.
///
/// A dictionary of sessions changed in place (`sessions[id]?.field = …`) runs its `_modify`
/// accessor, whose frame holds an optional session too large for the inline buffer: perf
/// counted six mallocs for each frame received and each message sent. ``update(_:_:)``
/// changes the stored session through the array's element address instead.
struct SessionTable<Side: Sendable>: Sendable {
    private var ids: [UInt8] = []
    private var entries: [Session<Side>] = []

    /// The session, a copy; assigning stores or (with nil) removes it.
    subscript(id: UInt8) -> Session<Side>? {
        get { ids.firstIndex(of: id).map { entries[$0] } }
        set {
            switch (ids.firstIndex(of: id), newValue) {
            case (let index?, let session?): entries[index] = session
            case (let index?, nil):
                ids.remove(at: index)
                entries.remove(at: index)
            case (nil, let session?):
                ids.append(id)
                entries.append(session)
            case (nil, nil): break
            }
        }
    }

    /// Whether session `id` is stored (without copying it, as `self[id] != nil` would).
    func contains(_ id: UInt8) -> Bool { ids.contains(id) }

    /// Runs `change` on the stored session `id`; nil when there is none.
    mutating func update<Result, Failure: Error>(
        _ id: UInt8, _ change: (inout Session<Side>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard let index = ids.firstIndex(of: id) else { return nil }
        return try change(&entries[index])
    }

    /// The ids in ascending order.
    var sortedIDs: [UInt8] { ids.sorted() }

    /// The earliest of `deadline` over the sessions, each read through a pointer to it. This
    /// runs twice per message; a `for` over the sessions copies each one (its sets and
    /// dictionaries retained and released), and so did a borrowed element: `Session` holds
    /// `ContinuousClock.Instant`, a resilient type, so the closure got its own copy (perf of
    /// the emulator's upload). Reading single fields through `pointee` copies only them.
    func earliest(_ deadline: (UnsafePointer<Session<Side>>) -> ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        entries.withUnsafeBufferPointer { sessions in
            var earliest: ContinuousClock.Instant?
            for index in sessions.indices { earliest = minimum(earliest, deadline(sessions.baseAddress! + index)) }
            return earliest
        }
    }

    var byID: [UInt8: Session<Side>] { Dictionary(uniqueKeysWithValues: zip(ids, entries)) }

    mutating func removeAll() {
        ids.removeAll()
        entries.removeAll()
    }
}

/// One session as a machine keeps it; `Side` holds what only one role tracks.
struct Session<Side: Sendable>: Sendable {
    var info: SessionInfo
    var services: Set<ServiceType> = [.rpc, .hybrid]
    /// Per-session counter; the app starts at 1 (java/ios), the head unit at 0 (core).
    var messageCounter: UInt32
    var lastReceived: ContinuousClock.Instant
    var lastSent: ContinuousClock.Instant
    /// Sent EndService and waiting for the ACK.
    var ending: Set<ServiceType> = []
    /// Payload limits per frame set by an audio/video ACK's `mtu`, overriding the session's
    /// RPC value for that service (protocol spec §4.2.3.2).
    var serviceSendLimits: [ServiceType: Int] = [:]
    var protection = SessionProtection()
    var side: Side

    /// The next message id. After a wrap both roles skip 0, which core rejects on data frames.
    mutating func nextMessageID() -> UInt32 {
        let id = messageCounter
        messageCounter &+= 1
        if messageCounter == 0 { messageCounter = 1 }
        return id
    }

    /// A control frame of this session, with the next message id.
    mutating func controlFrame(
        _ info: ControlFrameInfo, service: ServiceType, payload: [UInt8] = [], encrypted: Bool = false, now: ContinuousClock.Instant
    ) -> [UInt8] {
        let header = FrameHeader(version: self.info.headerVersion, isEncrypted: encrypted, frameType: .control,
                                 serviceType: service, frameInfo: info.rawValue, sessionID: self.info.sessionID,
                                 dataSize: UInt32(payload.count), messageID: nextMessageID())
        lastSent = now
        return Frame(header: header, payload: payload).encoded
    }

    /// A complete service payload (an RPC packet, audio or video data) framed for sending,
    /// fragmented to the service's limit, with a fresh message id.
    /// `protected`: each frame a TLS record, for a service whose start was protected.
    mutating func dataFrames(_ payload: [UInt8], service: ServiceType, protected: Bool = false,
                             now: ContinuousClock.Instant) throws(ProtocolStateError) -> [UInt8] {
        try requireRunning(service)
        if protected {
            guard protection.services.contains(service == .hybrid ? .rpc : service) else {
                throw ProtocolStateError("\(service) cannot be sent protected: it was not started protected")
            }
            let bytes = try protectedFrames(payload, service: service, limit: sendLimit(service), messageID: nextMessageID())
            lastSent = now
            return bytes
        }
        var bytes: [UInt8] = []
        FrameFragmenter.encode(payload, version: info.headerVersion, serviceType: service, sessionID: info.sessionID,
                               messageID: nextMessageID(), maximumPayloadPerFrame: sendLimit(service), into: &bytes)
        lastSent = now
        return bytes
    }

    /// The frames of an RPC. One that fits a frame is written from its parts behind the
    /// frame header, so a PutFile chunk's bytes are copied once on their way out, not twice.
    mutating func dataFrames(_ packet: RPCPacket, protected: Bool = false, now: ContinuousClock.Instant) throws(ProtocolStateError) -> [UInt8] {
        let service = packet.serviceType
        let size = packet.encodedSize
        guard size <= sendLimit(service), !protected else {
            return try dataFrames(packet.encoded, service: service, protected: protected, now: now)
        }
        try requireRunning(service)
        let header = FrameHeader(version: info.headerVersion, frameType: .single, serviceType: service, frameInfo: 0,
                                 sessionID: info.sessionID, dataSize: UInt32(size), messageID: nextMessageID())
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.size + size)
        header.encode(into: &bytes)
        packet.encode(into: &bytes)
        lastSent = now
        return bytes
    }

    private func requireRunning(_ service: ServiceType) throws(ProtocolStateError) {
        let running = service == .hybrid ? services.contains(.rpc) : services.contains(service)
        guard running else { throw ProtocolStateError("\(service) is not started in session \(info.sessionID)") }
    }

    private func sendLimit(_ service: ServiceType) -> Int { serviceSendLimits[service] ?? info.maximumSendPayload }

    /// Ends a non-RPC service after its EndService was acknowledged either way.
    mutating func endNonRPC(_ service: ServiceType) {
        services.remove(service)
        ending.remove(service)
        serviceSendLimits[service] = nil
        protection.services.remove(service)
    }
}

/// Frame helpers that need no session.
enum ControlFrames {
    /// The Heartbeat ACK: always answered, echoing session and message id as core does.
    static func heartbeatACK(to header: FrameHeader) -> [UInt8] {
        FrameHeader(version: header.version, frameType: .control, serviceType: .control,
                    frameInfo: ControlFrameInfo.heartbeatACK.rawValue, sessionID: header.sessionID,
                    dataSize: 0, messageID: header.messageID).encoded
    }

    /// The EndServiceNAK for a service that is not started.
    static func endServiceNAK(to header: FrameHeader) -> [UInt8] {
        FrameHeader(version: max(header.version, 2), frameType: .control, serviceType: header.serviceType,
                    frameInfo: ControlFrameInfo.endServiceNAK.rawValue, sessionID: header.sessionID,
                    dataSize: 0, messageID: header.messageID).encoded
    }

    /// Payload bytes per frame this side sends: `mtu − 12` is valid whether a peer reads
    /// `mtu` as a payload or a frame limit; v1/v2 stay at 1488.
    static func sendLimit(version: ProtocolVersion, mtu: Int64?, configured: Int) -> Int {
        guard version.major >= 3 else { return 1488 }
        if let mtu, mtu > 12 { return Int(mtu) - 12 }
        return min(configured, 131_072)
    }

    /// The hash id an EndService(RPC) carries: BSON from v5, else 4 raw bytes.
    static func hashPayload(_ hash: Int32, version: ProtocolVersion) -> [UInt8] {
        if version.major >= 5 { return ControlPayload(hashID: hash).encoded }
        var payload: [UInt8] = []
        payload.appendBigEndian(UInt32(bitPattern: hash))
        return payload
    }

    /// The hash id in an EndService(RPC) or a v1–4 StartServiceACK.
    static func hash(in frame: Frame) -> Int32? {
        if frame.header.version >= 5 { return ControlPayload(bytes: frame.payload)?.hashID }
        return frame.payload.count >= 4 ? Int32(bitPattern: frame.payload.bigEndianUInt32(at: 0)) : nil
    }
}
