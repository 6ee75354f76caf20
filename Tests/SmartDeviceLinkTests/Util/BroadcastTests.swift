@testable import SmartDeviceLink
import Testing

@Suite("Broadcast: every subscriber sees what is yielded after it subscribed")
struct BroadcastTests {
    @Test("values reach each current subscriber in order; a dropped stream unsubscribes; finish ends all", .timeLimit(.minutes(1)))
    func fanOut() async throws {
        let broadcast = Broadcast<Int>()
        broadcast.yield(0)  // nobody listens: dropped
        #expect(!broadcast.hasSubscribers)
        let first = broadcast.subscribe()
        var second: AsyncStream<Int>? = broadcast.subscribe(initial: 99)
        #expect(broadcast.hasSubscribers)
        broadcast.yield(1)
        broadcast.yield(2)
        var secondValues: [Int] = []
        for await value in second! {
            secondValues.append(value)
            if secondValues.count == 3 { break }
        }
        #expect(secondValues == [99, 1, 2])
        second = nil  // its consumer is gone: it unsubscribes
        broadcast.yield(3)
        broadcast.finish()
        var firstValues: [Int] = []
        for await value in first { firstValues.append(value) }
        #expect(firstValues == [1, 2, 3])
        #expect(!broadcast.hasSubscribers)
        var late: [Int] = []
        for await value in broadcast.subscribe() { late.append(value) }
        #expect(late.isEmpty)
    }

    @Test("a subscriber with a filter gets only the values it accepts; the others still get all", .timeLimit(.minutes(1)))
    func filtered() async {
        let broadcast = Broadcast<Int>()
        let evens = broadcast.subscribe { $0.isMultiple(of: 2) }
        let all = broadcast.subscribe()
        for value in 1...6 { broadcast.yield(value) }
        broadcast.finish()
        var seenEven: [Int] = []
        for await value in evens { seenEven.append(value) }
        var seenAll: [Int] = []
        for await value in all { seenAll.append(value) }
        #expect(seenEven == [2, 4, 6])
        #expect(seenAll == [1, 2, 3, 4, 5, 6])
    }
}
