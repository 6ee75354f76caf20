/// Gestures on a navigation or projection app's video screen, from the head unit's
/// OnTouchEvent notifications, as sdl_ios's SDLTouchManager reports them: tap, double
/// tap, pan and pinch (see ``TouchThresholds`` for when touches become which).
///
/// ```swift
/// for await gesture in await manager.touchManager.gestures() {
///     if case .pinchMoved(let center, let scale) = gesture { map.zoom(by: scale, around: center) }
/// }
/// ```
public actor TouchManager {
    private let channel: any RPCChannel
    private let clock: LinkClock
    private var recognizer: TouchGestureRecognizer
    private let observers = Broadcast<TouchGesture>()
    private var listening = false
    /// The last event's `ts` and when it arrived here: maps local time onto the head
    /// unit's touch timeline, to confirm a lone tap once its double-tap window has passed.
    private var lastEvent: (ts: Int, at: ContinuousClock.Instant)?
    private var flushTask: Task<Void, Never>?

    /// A manager that reads OnTouchEvent from `channel` and recognises gestures with `thresholds`.
    public init(channel: any RPCChannel, thresholds: TouchThresholds = TouchThresholds(), clock: LinkClock = .continuous) {
        self.channel = channel
        self.clock = clock
        self.recognizer = TouchGestureRecognizer(thresholds: thresholds)
    }

    /// Every gesture from now on.
    public func gestures() async -> AsyncStream<TouchGesture> {
        let stream = observers.subscribe()
        await startListening()
        return stream
    }

    private func startListening() async {
        guard !listening else { return }
        listening = true
        await channel.forEach(OnTouchEvent.self, on: self) { await $0.handle($1) }
    }

    func handle(_ notification: OnTouchEvent) {
        if let ts = notification.event.compactMap({ $0.ts.last }).max() { lastEvent = (ts, clock.now) }
        for gesture in recognizer.handle(notification.type, notification.event) { observers.yield(gesture) }
        scheduleFlush()
    }

    /// A tap waits out the double-tap window before it is reported.
    private func scheduleFlush() {
        flushTask?.cancel()
        let window = recognizer.thresholds.tapTime + .milliseconds(10)
        flushTask = Task { [weak self, clock] in
            try? await clock.sleep(for: window)
            guard !Task.isCancelled else { return }
            await self?.flush()
        }
    }

    private func flush() {
        guard let last = lastEvent else { return }
        let now = last.ts + (clock.now - last.at).milliseconds
        for gesture in recognizer.flush(at: now) { observers.yield(gesture) }
    }
}
