/// The time of everything above the protocol core, taken from any `Clock<Duration>`.
///
/// The sans-IO core reads time as `ContinuousClock.Instant` values it is handed. A
/// `LinkClock` maps any clock onto such instants (a fixed origin plus the injected clock's
/// elapsed time), so a test can drive heartbeats, request timeouts and emulator timers with a
/// manual clock while production code runs on `ContinuousClock`.
public struct LinkClock: Sendable {
    private let origin: ContinuousClock.Instant
    /// The injected clock's time since `origin`; nil when it is the continuous clock itself.
    /// Every message reads the time a few times, and the closure over a generic clock (a
    /// witness call and the clock's own arithmetic) was 1–2% of a round trip's profile.
    private let elapsed: (@Sendable () -> Duration)?
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Time as `clock` tells it.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        if clock is ContinuousClock {
            origin = ContinuousClock.now
            elapsed = nil
            sleeper = { [origin] offset in try await Task.sleep(until: origin + offset, clock: .continuous) }
            return
        }
        let start = clock.now
        origin = ContinuousClock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) }
    }

    /// Real time.
    public static var continuous: LinkClock { LinkClock(ContinuousClock()) }

    /// The current time, as the protocol core reads it.
    public var now: ContinuousClock.Instant {
        guard let elapsed else { return ContinuousClock.now }
        return origin + elapsed()
    }

    /// Suspends until `deadline` on the injected clock; throws when the task is cancelled.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleeper(deadline - origin)
    }

    /// Suspends for `duration` on the injected clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }
}
