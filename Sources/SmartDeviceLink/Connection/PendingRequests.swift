/// The requests waiting for their responses, with their deadlines: a plain value that the
/// connection keeps and a driver asks for its next deadline.
struct PendingRequests<Waiter: Sendable>: Sendable {
    struct Entry: Sendable {
        var functionName: String
        var deadline: ContinuousClock.Instant
        /// The time limit this request got (shown in its timeout error).
        var limit: Duration
        var waiter: Waiter
    }

    private(set) var entries: [Int32: Entry] = [:]
    private var lastID: Int32 = 0
    /// The earliest deadline, kept as entries come and go: it is read twice per message.
    private(set) var nextDeadline: ContinuousClock.Instant?

    /// A correlation id for a new request: positive (negative ones are INVALID_ID), wrapping
    /// to 1, and never one that is still pending.
    mutating func nextID() -> Int32 {
        repeat {
            lastID = lastID == Int32.max ? 1 : lastID + 1
        } while entries[lastID] != nil
        return lastID
    }

    mutating func insert(_ entry: Entry, for id: Int32) {
        if let replaced = entries.updateValue(entry, forKey: id), replaced.deadline == nextDeadline {
            recomputeNextDeadline()
        } else {
            nextDeadline = minimum(nextDeadline, entry.deadline)
        }
    }

    mutating func remove(_ id: Int32) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.deadline == nextDeadline { recomputeNextDeadline() }
        return entry
    }

    /// Takes out every request whose deadline has passed.
    mutating func removeExpired(now: ContinuousClock.Instant) -> [(id: Int32, entry: Entry)] {
        let expired = entries.filter { $0.value.deadline <= now }.map { (id: $0.key, entry: $0.value) }
        for (id, _) in expired { entries[id] = nil }
        recomputeNextDeadline()
        return expired.sorted { $0.id < $1.id }
    }

    mutating func removeAll() -> [Entry] {
        defer {
            entries.removeAll()
            nextDeadline = nil
        }
        return Array(entries.values)
    }

    /// A few requests are in flight at most, so a scan is cheapest.
    private mutating func recomputeNextDeadline() {
        nextDeadline = entries.values.reduce(nil) { minimum($0, $1.deadline) }
    }

    var isEmpty: Bool { entries.isEmpty }
}
