@testable import SmartDeviceLink
import Testing

/// The USB transport's OUT queue: sends cut into transfers, small ones sharing one, several
/// in flight, each send reported done when its last byte went, no byte sent twice or out of order.
@Suite struct BulkOutQueueTests {
    private func finished(_ completion: BulkOutQueue<String>.Completion) -> [String]? {
        if case .progress(let done) = completion { done } else { nil }
    }

    @Test("a large send through transfers of 4 bytes, two in flight, then the next: in order, each done with its last byte")
    func cutsAndPipelines() {
        var queue = BulkOutQueue<String>()
        queue.append(Array(0..<10), "first")
        #expect(queue.nextTransfer(maxLength: 4, limit: 2).map(Array.init) == [0, 1, 2, 3])
        #expect(queue.nextTransfer(maxLength: 4, limit: 2).map(Array.init) == [4, 5, 6, 7])
        #expect(queue.nextTransfer(maxLength: 4, limit: 2) == nil, "a third transfer went in flight")
        #expect(finished(queue.completeOldest(taking: 4)) == [])
        queue.append([10, 11, 12], "second")
        #expect(queue.nextTransfer(maxLength: 4, limit: 2).map(Array.init) == [8, 9, 10, 11], "the next send shares the transfer")
        #expect(finished(queue.completeOldest(taking: 4)) == [])
        #expect(queue.pendingBytes == 5)
        #expect(finished(queue.completeOldest(taking: 4)) == ["first"])
        #expect(queue.nextTransfer(maxLength: 4, limit: 2).map(Array.init) == [12])
        #expect(finished(queue.completeOldest(taking: 1)) == ["second"])
        #expect(queue.isEmpty && queue.transfersInFlight == 0 && queue.pendingBytes == 0)
    }

    @Test("small sends queued behind one another go out in one transfer, and finish together")
    func coalescesSmallSends() {
        var queue = BulkOutQueue<String>()
        for (index, name) in ["a", "b", "c"].enumerated() { queue.append([UInt8(index), UInt8(index)], name) }
        #expect(queue.nextTransfer(maxLength: 16, limit: 2).map(Array.init) == [0, 0, 1, 1, 2, 2])
        #expect(queue.nextTransfer(maxLength: 16, limit: 2) == nil)
        #expect(finished(queue.completeOldest(taking: 6)) == ["a", "b", "c"])
    }

    @Test("a short write with nothing behind it: the rest goes again, next, across the sends it held")
    func shortWriteAlone() {
        var queue = BulkOutQueue<String>()
        queue.append(Array(0..<3), "a")
        queue.append(Array(3..<6), "b")
        #expect(queue.nextTransfer(maxLength: 6, limit: 1).map(Array.init) == [0, 1, 2, 3, 4, 5])
        #expect(finished(queue.completeOldest(taking: 4)) == ["a"])
        #expect(queue.nextTransfer(maxLength: 6, limit: 1).map(Array.init) == [4, 5])
        #expect(finished(queue.completeOldest(taking: 2)) == ["b"])
    }

    /// One send of eight bytes, in flight as two transfers of four.
    private func inTwoTransfers(_ name: String) -> BulkOutQueue<String> {
        var queue = BulkOutQueue<String>()
        queue.append(Array(0..<8), name)
        _ = queue.nextTransfer(maxLength: 4, limit: 2)
        _ = queue.nextTransfer(maxLength: 4, limit: 2)
        return queue
    }

    @Test("a short write with a later transfer in flight breaks the stream")
    func shortWriteWithMoreInFlight() {
        var queue = inTwoTransfers("send")
        guard case .broken = queue.completeOldest(taking: 3) else { Issue.record("a hole in the stream went unnoticed"); return }
    }

    @Test("a timed-out transfer fails the sends in it alone; their other transfers are ignored; the next send goes on")
    func timeoutFailsItsSends() {
        var queue = inTwoTransfers("slow")
        let failed = queue.failOldest(taking: 1)
        #expect(failed.map(\.waiter) == ["slow"] && failed.first?.sent == 1 && failed.first?.total == 8)
        #expect(finished(queue.completeOldest(taking: 4)) == [])
        queue.append([8], "next")
        #expect(queue.nextTransfer(maxLength: 4, limit: 2).map(Array.init) == [8])
        #expect(finished(queue.completeOldest(taking: 1)) == ["next"])
        #expect(queue.pendingBytes == 0)
    }

    @Test("a transfer that could not be submitted fails its sends; closing hands back the rest in order")
    func submitFailureAndClose() {
        var queue = BulkOutQueue<String>()
        queue.append([1, 2], "a")
        _ = queue.nextTransfer(maxLength: 8, limit: 1)
        #expect(queue.dropNewestTransfer() == ["a"])
        queue.append([3], "b")
        queue.append([4], "c")
        #expect(queue.nextTransfer(maxLength: 1, limit: 1).map(Array.init) == [3])
        #expect(queue.removeAll() == ["b", "c"])
        #expect(queue.isEmpty && queue.transfersInFlight == 0 && queue.pendingBytes == 0)
    }
}
