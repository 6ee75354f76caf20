@testable import SmartDeviceLink
import SDLTestSupport
import Testing

@Suite("ListDiff: the fewest deletes and adds")
struct ListDiffTests {
    @Test("a change in the middle keeps the rest")
    func middle() {
        let diff = ListDiff(from: ["a", "b", "c"], to: ["a", "c", "d"])
        #expect(diff.kept == [.init(old: 0, new: 0), .init(old: 2, new: 1)])
        #expect(diff.deleted == [1])
        #expect(diff.added == [2])
    }

    @Test("from nothing everything is added; to nothing everything is deleted; equal lists change nothing")
    func edges() {
        #expect(ListDiff(from: [String](), to: ["x", "y"]).added == [0, 1])
        #expect(ListDiff(from: ["x", "y"], to: [String]()).deleted == [0, 1])
        let same = ListDiff(from: [1, 2, 3], to: [1, 2, 3])
        #expect(same.added.isEmpty && same.deleted.isEmpty && same.kept.count == 3)
    }

    @Test("reversing keeps only one element")
    func reversed() {
        let diff = ListDiff(from: [1, 2, 3], to: [3, 2, 1])
        #expect(diff.kept.count == 1)
        #expect(diff.deleted.count == 2 && diff.added.count == 2)
    }

    @Test("for random lists the kept pairs are an LCS, in order, and deletes and adds cover the rest")
    func randomLists() {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let old = (0..<Int(generator.next() % 9)).map { _ in Int(generator.next() % 4) }
            let new = (0..<Int(generator.next() % 9)).map { _ in Int(generator.next() % 4) }
            let diff = ListDiff(from: old, to: new)
            #expect(diff.kept.count == lcsLength(old, new), "\(old) → \(new)")
            #expect(diff.kept.allSatisfy { old[$0.old] == new[$0.new] })
            #expect(zip(diff.kept, diff.kept.dropFirst()).allSatisfy { $0.old < $1.old && $0.new < $1.new })
            #expect(Set(diff.kept.map(\.old) + diff.deleted) == Set(old.indices) && diff.kept.count + diff.deleted.count == old.count)
            #expect(Set(diff.kept.map(\.new) + diff.added) == Set(new.indices) && diff.kept.count + diff.added.count == new.count)
        }
    }

    /// The LCS length by plain recursion, as an independent check.
    private func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
        guard let x = a.first, let y = b.first else { return 0 }
        if x == y { return 1 + lcsLength(Array(a.dropFirst()), Array(b.dropFirst())) }
        return max(lcsLength(Array(a.dropFirst()), b), lcsLength(a, Array(b.dropFirst())))
    }
}
