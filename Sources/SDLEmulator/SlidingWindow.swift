/// Counts events within a trailing window of time, as core's MessageMeter does for its flood
/// and malformed-message filters.
///
/// Amortised O(1) per event and bounded by the events inside one window: a long run with
/// the limit lifted (benchmarks) neither grows nor slows down.
struct SlidingWindow {
    private var times: [ContinuousClock.Instant] = []
    /// Events before this index have left the window; compacted when they are half the storage.
    private var start = 0

    /// Records an event at `now` and returns how many fall within `window` before `now`.
    mutating func record(_ now: ContinuousClock.Instant, within window: Duration) -> Int {
        times.append(now)
        while now - times[start] > window { start += 1 }
        if start > 64, start * 2 > times.count {
            times.removeFirst(start)
            start = 0
        }
        return times.count - start
    }
}
