/// One link to the head unit carrying several apps, each on a session of its own, as
/// sdl_java_suite's router service shares a phone's one USB or Bluetooth link among its apps.
///
/// Each app gets a ``SessionTransport`` from ``session(_:)`` and uses it as its own link. The
/// head unit tells sessions apart by the session id in every frame header: frames it sends
/// are handed to the app of that session. A new session has no id until the head unit's
/// StartServiceACK names it, so apps start their sessions one at a time, and the answer to
/// a StartService on session 0 goes to the app that asked. The link opens with the first
/// session and closes after the last; when it fails, every session's link fails with it
/// (each app's reconnect policy then opens it again).
public actor SharedLink {
    private let make: @Sendable () throws -> any SDLTransport
    /// The real link's kind, which each session reports as its own.
    nonisolated let kind: TransportKind
    /// The real link's description once it is made, which each session's names.
    nonisolated let linkDescription = Locked<String?>(nil)
    /// The real link's rate once it is made (see ``SDLTransport/bytesPerSecond``), each session's too.
    nonisolated let linkRate = Locked<Int?>(nil)
    private var link: (any SDLTransport)?
    private var opening: Task<any SDLTransport, any Error>?
    private var decoder = FrameDecoder(fromHeadUnit: true)
    private var routes: [UInt8: SessionTransport] = [:]
    private var members: [ObjectIdentifier: SessionTransport] = [:]
    /// The session waiting for the head unit to name it, and those waiting for their turn.
    private var starting: SessionTransport?
    private var waitingToStart: [CheckedContinuation<Void, Never>] = []
    private var reader: Task<Void, Never>?

    /// A link shared by the sessions made with ``session(_:)``; `make` makes the real link (of
    /// `kind`: USB, Bluetooth...), again after it closed.
    public init(kind: TransportKind, _ make: @escaping @Sendable () throws -> any SDLTransport) {
        self.kind = kind
        self.make = make
    }

    /// A link for one app: a session on the shared link.
    public nonisolated func session(_ label: String) -> SessionTransport {
        SessionTransport(label: label, shared: self)
    }

    // MARK: - For the sessions

    func open(_ member: SessionTransport) async throws(TransportError) {
        members[ObjectIdentifier(member)] = member
        if link != nil { return }
        let task = opening ?? Task { [make] in
            let link = try make()
            try await link.open()
            self.linkDescription.withLock { $0 = link.description }
            self.linkRate.withLock { $0 = link.bytesPerSecond }
            return link
        }
        opening = task
        do {
            let opened = try await task.value
            if link == nil { start(opened) }
        } catch {
            opening = nil
            members[ObjectIdentifier(member)] = nil
            throw error as? TransportError ?? .io(operation: "open", code: 0, message: "\(error)")
        }
    }

    func send(_ bytes: [UInt8], from member: SessionTransport) async throws(TransportError) {
        guard let link else { throw TransportError.closed("the shared link is not open") }
        if !routes.values.contains(where: { $0 === member }), Self.startsRPCSession(bytes) {
            // One session start at a time: the head unit's answer names no app.
            while starting != nil && starting !== member { await withCheckedContinuation { waitingToStart.append($0) } }
            starting = member
        }
        try await link.send(bytes)
    }

    func close(_ member: SessionTransport) async {
        members[ObjectIdentifier(member)] = nil
        routes = routes.filter { $0.value !== member }
        if starting === member { nextStart() }
        member.finish(nil)
        guard members.isEmpty, let link else { return }
        self.link = nil
        opening = nil
        reader?.cancel()
        await link.close()
    }

    // MARK: - The link

    private func start(_ opened: any SDLTransport) {
        link = opened
        decoder.reset()
        let incoming = opened.incoming
        reader = Task { [weak self] in
            do {
                for try await chunk in incoming { await self?.received(chunk) }
                await self?.lost(nil)
            } catch {
                await self?.lost(error as? TransportError ?? .closed("\(error)"))
            }
        }
    }

    private func received(_ chunk: [UInt8]) {
        for event in decoder.decode(chunk) {
            guard case .frame(let frame) = event else { continue }
            let session = frame.header.sessionID
            var member = routes[session]
            if member == nil, frame.header.frameType == .control, frame.header.serviceType == .rpc, let asking = starting {
                // The answer to the session start: an ACK names the session's id.
                member = asking
                if frame.header.controlInfo == .startServiceACK { routes[session] = asking }
                if frame.header.controlInfo == .startServiceACK || frame.header.controlInfo == .startServiceNAK { nextStart() }
            }
            member?.deliver(frame.header.encoded + frame.payload)
        }
    }

    private func nextStart() {
        starting = nil
        let waiting = waitingToStart
        waitingToStart.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    private func lost(_ error: TransportError?) async {
        guard link != nil else { return }
        link = nil
        opening = nil
        let sessions = members.values
        members.removeAll()
        routes.removeAll()
        nextStart()
        for member in sessions { member.finish(error ?? .closed("the shared link closed")) }
    }

    /// Whether these bytes open with a StartService of the RPC service on session 0.
    static func startsRPCSession(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] & 0x07 == FrameType.control.rawValue && bytes[1] == ServiceType.rpc.rawValue
            && bytes[2] == ControlFrameInfo.startService.rawValue && bytes[3] == 0
    }
}

/// One app's session on a ``SharedLink``, used as the app's link.
public final class SessionTransport: SDLTransport {
    private let label: String
    private let shared: SharedLink
    private let stream: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    init(label: String, shared: SharedLink) {
        self.label = label
        self.shared = shared
        (stream, continuation) = AsyncThrowingStream.makeStream()
    }

    public var description: String { "\(shared.linkDescription.withLock { $0 } ?? "shared link"), session of \(label)" }
    public var kind: TransportKind { shared.kind }
    public var bytesPerSecond: Int? { shared.linkRate.withLock { $0 } }
    public var incoming: AsyncThrowingStream<[UInt8], any Error> { stream }

    public func open() async throws(TransportError) { try await shared.open(self) }
    public func send(_ bytes: [UInt8]) async throws(TransportError) { try await shared.send(bytes, from: self) }
    public func close() async { await shared.close(self) }

    func deliver(_ bytes: [UInt8]) { continuation.yield(bytes) }

    func finish(_ error: TransportError?) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
    }
}
