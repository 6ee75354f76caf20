@testable import SmartDeviceLink
import Testing

@Suite("Pending requests keep their earliest deadline as they come and go")
struct PendingRequestsTests {
    typealias Pending = PendingRequests<Int>
    let start = ContinuousClock.now

    func entry(_ name: String, at seconds: Int) -> Pending.Entry {
        Pending.Entry(functionName: name, deadline: start + .seconds(seconds), limit: .seconds(seconds), waiter: 0)
    }

    /// The earliest deadline as a scan of every entry finds it.
    func scanned(_ pending: Pending) -> ContinuousClock.Instant? {
        pending.entries.values.map(\.deadline).min()
    }

    @Test("inserting, removing the earliest or a later one, replacing, expiring and clearing")
    func tracksEarliest() {
        var pending = Pending()
        #expect(pending.nextDeadline == nil)
        pending.insert(entry("Show", at: 10), for: 1)
        pending.insert(entry("Alert", at: 5), for: 2)
        pending.insert(entry("Speak", at: 20), for: 3)
        #expect(pending.nextDeadline == start + .seconds(5))
        #expect(pending.remove(3)?.functionName == "Speak")
        #expect(pending.nextDeadline == start + .seconds(5))
        #expect(pending.remove(2)?.functionName == "Alert")
        #expect(pending.nextDeadline == start + .seconds(10))
        #expect(pending.remove(2) == nil)
        // Replacing the earliest with a later deadline moves the earliest on.
        pending.insert(entry("Speak", at: 30), for: 4)
        pending.insert(entry("Show", at: 40), for: 1)
        #expect(pending.nextDeadline == start + .seconds(30))
        #expect(pending.nextDeadline == scanned(pending))
        let expired = pending.removeExpired(now: start + .seconds(35))
        #expect(expired.map(\.id) == [4])
        #expect(pending.nextDeadline == start + .seconds(40))
        #expect(pending.removeAll().count == 1)
        #expect(pending.nextDeadline == nil)
    }

    @Test("after a thousand random changes the kept deadline is the scanned one")
    func randomChanges() {
        var pending = Pending()
        var generator = SystemRandomNumberGenerator()
        for step in 0..<1000 {
            let id = Int32.random(in: 1...8, using: &generator)
            if Bool.random(using: &generator) {
                pending.insert(entry("Show", at: Int.random(in: 1...50, using: &generator)), for: id)
            } else {
                _ = pending.remove(id)
            }
            #expect(pending.nextDeadline == scanned(pending), "step \(step)")
        }
    }
}
