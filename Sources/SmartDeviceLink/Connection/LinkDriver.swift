
/// Drives one link in either role: the transport, the role's ``ProtocolMachine``, one ordered
/// outbox, and a timer that wakes at the next deadline.
///
/// The owner (the app's ``SDLConnection``, or one of the emulator's connections) is an actor
/// that keeps the driver as a stored value and calls it from its own isolation. Everything
/// the machine wants to send goes into the outbox in the order of those calls, synchronously,
/// so bytes leave in the order the requests were made whatever the task scheduling. The
/// owner gets the machine's other actions back to act on.
package struct LinkDriver<Machine: ProtocolMachine>: Sendable {
    package var machine: Machine
    package let io: LinkIO
    private let ownership: LinkOwnership
    package let clock: LinkClock
    /// Sees every frame sent and received, for traces.
    package var tap: FrameTap?
    /// When the I/O's timer was armed for, as of the last ``rearm(other:)``.
    private var armed: ContinuousClock.Instant?

    package init(transport: any SDLTransport, configuration: ProtocolConfiguration, clock: LinkClock) {
        self.machine = Machine(configuration: configuration)
        self.io = LinkIO(transport: transport, clock: clock)
        self.ownership = LinkOwnership(io)
        self.clock = clock
    }

    /// Queues the `.send` actions in order and returns the others.
    package func route(_ actions: [ProtocolAction]) -> [ProtocolAction] {
        // The usual lists are all sends or no send at all: those need no new array.
        var rest: [ProtocolAction]?
        for (index, action) in actions.enumerated() {
            if case .send(let bytes) = action {
                tap?.observe(bytes, direction: .sent, at: clock.now)
                io.enqueue(bytes)
                if rest == nil { rest = Array(actions[..<index]) }
            } else {
                rest?.append(action)
            }
        }
        return rest ?? actions
    }

    // Below, the machine's actions are taken into a local before `route`: in
    // `route(machine.x())` the call's `self` is copied before its argument mutates the
    // machine, and that copy is the whole driver, on every message (perf: 3% of a round trip).

    /// Feeds received bytes to the machine.
    package mutating func receive(_ bytes: [UInt8]) -> [ProtocolAction] {
        let actions = machine.receive(bytes, now: clock.now)
        // After the machine: an ACK in these bytes may have raised the limit for the frames after it.
        tap?.observe(bytes, direction: .received, at: clock.now, receiveLimit: machine.receivePayloadLimit)
        return route(actions)
    }

    /// Lets the machine act on time (heartbeats, reassembly expiry).
    package mutating func tick() -> [ProtocolAction] {
        let actions = machine.tick(now: clock.now)
        return route(actions)
    }

    /// Runs a machine operation that may throw, queueing its bytes.
    package mutating func perform(
        _ operation: (inout Machine, ContinuousClock.Instant) throws(ProtocolStateError) -> [ProtocolAction]
    ) throws(ProtocolStateError) -> [ProtocolAction] {
        let actions = try operation(&machine, clock.now)
        return route(actions)
    }

    /// Arms the timer for the machine's next deadline or `other` (say a request's), whichever
    /// comes first. Call after every operation; the owner's `onDeadline` then calls ``tick()``.
    ///
    /// Mutating only so that owners call it in place: a non-mutating call on a driver stored
    /// in an actor copies the whole driver, machine and buffers, on every message.
    package mutating func rearm(other: ContinuousClock.Instant? = nil) {
        guard let deadline = minimum(machine.nextDeadline, other) else { return }
        // A timer still ahead and as early needs no call (this runs twice per message, and
        // the call takes the I/O lock). One already due may not have fired yet: ask again.
        if let armed, armed <= deadline, clock.now < armed { return }
        armed = io.wake(at: deadline)
    }
}

/// Closes the link when the last copy of its driver is gone.
///
/// The reader and writer tasks wait on the transport for as long as it is open, and the
/// writer keeps the ``LinkIO`` alive: an owner dropped without closing its link (a test,
/// or a bench running thousands of scenarios in one process) would leave both tasks, the
/// transport and everything buffered behind them for the life of the process.
private final class LinkOwnership: Sendable {
    let io: LinkIO
    init(_ io: LinkIO) { self.io = io }
    deinit { io.abandon() }
}

/// The I/O half of a ``LinkDriver``: the reader, the single writer, the timer.
///
/// It holds no protocol state, so it is a `Sendable` class shared by the driver's copies
/// and its tasks. The tasks call back into the owner with `await`; on a socket the reader
/// task runs on the socket's reader thread (``ReaderThreadExecutor``).
package final class LinkIO: Sendable {
    package let transport: any SDLTransport
    private let clock: LinkClock
    private let state = Locked(State())

    /// How many queued bytes make ``waitForRoom()`` wait (streams, uploads).
    package static let highWater = 1 << 20

    private struct State {
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        /// The writer task, parked while the queue is empty.
        var writer: CheckedContinuation<[[UInt8]]?, Never>?
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var finishing = false
        var closed = false
        var timer: (deadline: ContinuousClock.Instant, generation: Int, task: Task<Void, Never>)?
        var timerGeneration = 0
        var tasks: [Task<Void, Never>] = []
        var onDeadline: (@Sendable () async -> Void)?
    }

    /// A socket queues in order itself, so bytes go to it directly, with no writer task.
    private let socket: StreamSocketTransport?
    /// A socket not yet reading hands its reads to the reader task directly.
    private let socketReads: SocketReads?

    init(transport: any SDLTransport, clock: LinkClock) {
        self.transport = transport
        self.clock = clock
        self.socket = StreamSocketTransport.under(transport)
        self.socketReads = socket?.takeReads()
    }

    /// Starts reading and writing. `onBytes` gets each read in order, `onDeadline` fires when
    /// the armed deadline passes, `onClosed` when the link ends: with nil when the peer closed
    /// it in order, else with what failed.
    package func start(
        onBytes: @escaping @Sendable ([UInt8]) async -> Void,
        onDeadline: @escaping @Sendable () async -> Void,
        onClosed: @escaping @Sendable (String?) async -> Void
    ) {
        let incoming = transport.incoming
        let transport = self.transport
        let socketReads = self.socketReads
        // On a socket the reader runs on the socket's reader thread (one wake-up less per message).
        let reader = Task(executorPreference: socket?.readerExecutor) {
            do {
                if let socketReads {
                    while let chunk = try await socketReads.next() { await onBytes(chunk) }
                } else {
                    for try await chunk in incoming { await onBytes(chunk) }
                }
                await onClosed(nil)
            } catch {
                await onClosed(Self.reason(error))
            }
        }
        // A socket orders its writes itself (see enqueue); other transports get one writer task.
        let writer = socket != nil ? nil : Task { [self] in
            while let batch = await nextBatch() {
                do {
                    try await transport.send(Self.coalesced(batch))
                } catch {
                    written(batch)
                    await onClosed(Self.reason(error))
                    return
                }
                written(batch)
            }
            // Finishing: everything queued is out; the transport closes after it.
            await transport.close()
        }
        state.withLock { state in
            state.tasks = [reader] + (writer.map { [$0] } ?? [])
            state.onDeadline = onDeadline
        }
    }

    /// Queues bytes behind everything queued before; never blocks. Ignored once closed.
    package func enqueue(_ bytes: [UInt8]) {
        if let socket {
            // One step, no hop: the socket writes now what the kernel takes and keeps the order.
            guard !state.withLock({ $0.closed || $0.finishing }) else { return }
            socket.enqueue(bytes)
            return
        }
        let writer: CheckedContinuation<[[UInt8]]?, Never>? = state.withLock { state in
            guard !state.closed, !state.finishing else { return nil }
            state.queuedBytes += bytes.count
            if let writer = state.writer {
                state.writer = nil
                return writer
            }
            state.queue.append(bytes)
            return nil
        }
        writer?.resume(returning: [bytes])
    }

    /// How long the line takes to carry what waits in the outbox (the bytes being written
    /// included), on a link that declares its rate (``SDLTransport/bytesPerSecond``); else nil.
    package func lineTime() -> Duration? {
        guard let rate = transport.bytesPerSecond, rate > 0, socket == nil else { return nil }
        return .seconds(Double(state.withLock { $0.queuedBytes }) / Double(rate))
    }

    /// Suspends while more than ``highWater`` bytes wait to be written (a slow link).
    package func waitForRoom() async {
        if let socket { return await socket.waitUntilQueued(atMost: Self.highWater) }
        guard state.withLock({ $0.queuedBytes > Self.highWater && !$0.closed }) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.queuedBytes > Self.highWater, !state.closed else { return true }
                state.roomWaiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    private func nextBatch() async -> [[UInt8]]? {
        await withCheckedContinuation { (writer: CheckedContinuation<[[UInt8]]?, Never>) in
            let ready: [[UInt8]]?? = state.withLock { state in
                if !state.queue.isEmpty {
                    defer { state.queue.removeAll(keepingCapacity: true) }
                    return .some(state.queue)
                }
                if state.closed || state.finishing { return .some(nil) }
                state.writer = writer
                return .none
            }
            if let ready { writer.resume(returning: ready) }
        }
    }

    private func written(_ batch: [[UInt8]]) {
        let count = batch.reduce(0) { $0 + $1.count }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.queuedBytes -= count
            guard state.queuedBytes <= Self.highWater else { return [] }
            defer { state.roomWaiters.removeAll() }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Why the link ended, for "connection lost: …": a closed transport says only its cause.
    private static func reason(_ error: any Error) -> String {
        if case .closed(let why)? = error as? TransportError { return why }
        return (error as? TransportError)?.description ?? "\(error)"
    }

    /// Small writes queued together go out as one: one system call, one TCP segment.
    private static func coalesced(_ batch: [[UInt8]]) -> [UInt8] {
        guard batch.count > 1 else { return batch[0] }
        var joined: [UInt8] = []
        joined.reserveCapacity(batch.reduce(0) { $0 + $1.count })
        for bytes in batch { joined.append(contentsOf: bytes) }
        return joined
    }

    /// Arms the timer for `deadline` unless it is already armed as early or earlier; returns
    /// when the timer is armed for now (nil when the link is closed or not started).
    package func wake(at deadline: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let clock = self.clock
        return state.withLock { state in
            guard !state.closed, let onDeadline = state.onDeadline else { return nil }
            if let armed = state.timer, armed.deadline <= deadline { return armed.deadline }
            state.timer?.task.cancel()
            state.timerGeneration += 1
            let generation = state.timerGeneration
            state.timer = (deadline, generation, Task { [weak self] in
                guard (try? await clock.sleep(until: deadline)) != nil, let self else { return }
                let current = self.state.withLock { state -> Bool in
                    guard state.timer?.generation == generation else { return false }
                    state.timer = nil
                    return true
                }
                if current { await onDeadline() }
            })
            return deadline
        }
    }

    /// Lets the writer send what is queued, then closes the transport (a graceful end).
    package func finish() {
        if let socket {
            state.withLock { $0.finishing = true }
            // Queued bytes go out before the close: the socket's flusher keeps writing them.
            Task { await socket.waitUntilQueued(atMost: 0); await socket.close() }
            return
        }
        let writer = state.withLock { state in
            state.finishing = true
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume(returning: nil)
    }

    /// Closes now: queued bytes are dropped, the transport is closed (which frees a write
    /// stuck on a peer that stopped reading), the timer stops. Safe to call twice.
    package func close() async {
        let tasks = markClosed()
        await transport.close()
        for task in tasks ?? [] { task.cancel() }
    }

    /// ``close()`` for an owner that is gone and cannot wait: the transport closes in the background.
    package func abandon() {
        guard let tasks = markClosed() else { return }
        for task in tasks { task.cancel() }
        let transport = self.transport
        Task { await transport.close() }
    }

    /// Marks the link closed: queued bytes are dropped, the writer and the waiters for room
    /// are let go, the timer stops. Returns the reader and writer tasks to cancel, nil when
    /// the link was closed already.
    private func markClosed() -> [Task<Void, Never>]? {
        let (wasClosed, writer, waiters, tasks) = state.withLock { state in
            let wasClosed = state.closed
            state.closed = true
            state.queue.removeAll()
            state.timer?.task.cancel()
            state.timer = nil
            defer {
                state.writer = nil
                state.roomWaiters.removeAll()
                state.tasks.removeAll()
                state.onDeadline = nil
            }
            return (wasClosed, state.writer, state.roomWaiters, state.tasks)
        }
        writer?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
        return wasClosed ? nil : tasks
    }
}

/// Decodes the bytes of each direction into frames for an observer (traces, logs), apart
/// from the machine's own decoder so that what is traced is exactly what crossed the link.
package final class FrameTap: Sendable {
    /// One direction's decoder, and what it skipped since its last frame.
    private struct Stream {
        var decoder: FrameDecoder
        var droppedAtLastFrame = 0
        var firstProblem: FrameProblem?

        /// The frames in `bytes`, each with the garbage skipped right before it.
        mutating func frames(in bytes: [UInt8]) -> [(Frame, skipped: (bytes: Int, problem: String)?)] {
            decoder.append(bytes)
            var frames: [(Frame, skipped: (bytes: Int, problem: String)?)] = []
            while let event = decoder.next() {
                switch event {
                case .malformed(let problem):
                    if firstProblem == nil { firstProblem = problem }
                case .frame(let frame):
                    let skipped = decoder.droppedByteCount - droppedAtLastFrame
                    frames.append((frame, skipped > 0 ? (skipped, firstProblem?.description ?? "not a frame") : nil))
                    droppedAtLastFrame = decoder.droppedByteCount
                    firstProblem = nil
                case .loaned:
                    break  // only with a lender, which the tap does not give
                }
            }
            return frames
        }
    }

    private let streams = Locked((sent: Stream(decoder: FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1))),
                                  received: Stream(decoder: FrameDecoder(maximumPayloadSize: Int(UInt32.max >> 1), fromHeadUnit: true))))
    private let observer: @Sendable (FrameTraceEvent) -> Void
    private let link: TransportRole

    /// One tap per link: it decodes that link's byte streams.
    package init(_ observer: @escaping @Sendable (FrameTraceEvent) -> Void, link: TransportRole = .primary) {
        self.observer = observer
        self.link = link
    }

    /// Decodes `bytes`; received ones under the machine's `receiveLimit`, so that garbage
    /// claiming a huge payload is skipped here as the machine skips it, not waited for.
    func observe(_ bytes: [UInt8], direction: FrameTraceEvent.Direction, at time: ContinuousClock.Instant, receiveLimit: Int? = nil) {
        let frames = streams.withLock { streams in
            guard direction == .received else { return streams.sent.frames(in: bytes) }
            if let receiveLimit { streams.received.decoder.maximumPayloadSize = receiveLimit }
            return streams.received.frames(in: bytes)
        }
        for (frame, skipped) in frames {
            observer(FrameTraceEvent(direction: direction, time: time, frame: frame, link: link, skippedBefore: skipped))
        }
    }
}
