/// How uploads pace their PutFile requests: how many chunks are in flight at once, and how
/// many requests a second at most.
///
/// A window of chunks keeps the link busy while the head unit writes the last one to disk
/// (one chunk at a time waits a round trip per chunk). The rate cap keeps an upload under
/// the head unit's flood limit: sdl_core closes an app's session that sends more than
/// `FrequencyCount` messages in `FrequencyTime` (1,000 a second by default), and small
/// chunks on a fast link reach that.
public struct UploadPacing: Sendable, Hashable {
    /// PutFile requests in flight at once; 1 sends a chunk only after the last one's answer.
    public var window: Int
    /// The most PutFile requests in any one second; nil for no cap.
    public var maximumRequestsPerSecond: Int?

    /// A pacing; a window below 1 and a cap below 1 are raised to 1.
    public init(window: Int, maximumRequestsPerSecond: Int?) {
        self.window = max(1, window)
        self.maximumRequestsPerSecond = maximumRequestsPerSecond.map { max(1, $0) }
    }

    /// Four chunks in flight and at most 800 requests a second: a fifth under sdl_core's
    /// default flood limit, leaving room for the app's other messages.
    public static let standard = UploadPacing(window: 4, maximumRequestsPerSecond: 800)
}

/// Spaces requests evenly, one every `1/limit` seconds, so that no second holds more than
/// `limit` of them. Even spacing rather than a burst of `limit` then a pause: the head unit
/// counts arrivals, and a burst delayed on the way would land in the next second's count.
struct RequestPacer: Sendable {
    private let interval: Duration?
    private let clock: LinkClock
    private var last: ContinuousClock.Instant?

    init(limit: Int?, clock: LinkClock) {
        self.interval = limit.map { .seconds(1) / $0 }
        self.clock = clock
    }

    /// Reserves the next request's place: the time it may go out (now, or an interval after
    /// the last one). Nil: no cap.
    mutating func reserve() -> ContinuousClock.Instant? {
        guard let interval else { return nil }
        let now = clock.now
        let at = last.map { max(now, $0 + interval) } ?? now
        last = at
        return at
    }

    /// Waits until `instant` on the pacer's clock.
    func wait(until instant: ContinuousClock.Instant?) async throws {
        guard let instant, instant > clock.now else { return }
        try await clock.sleep(until: instant)
    }
}
