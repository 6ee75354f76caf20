/// The fewest deletes and adds that turn one list into another: the longest common
/// subsequence stays where it is, everything else goes or comes.
///
/// A head unit cannot move a menu cell; it can only delete and add. Keeping the longest
/// run of unchanged cells in order therefore sends the fewest RPCs.
struct ListDiff: Sendable, Equatable {
    /// Pairs of indices (old, new) of elements that stay.
    var kept: [Pair]
    /// Indices into the old list of elements to delete.
    var deleted: [Int]
    /// Indices into the new list of elements to add.
    var added: [Int]

    struct Pair: Sendable, Equatable {
        var old: Int
        var new: Int
    }

    init<Element: Equatable>(from old: [Element], to new: [Element]) {
        // lengths[i][j]: LCS length of old[i...] and new[j...].
        let rows = old.count + 1, columns = new.count + 1
        var lengths = [Int](repeating: 0, count: rows * columns)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i * columns + j] = old[i] == new[j]
                    ? lengths[(i + 1) * columns + j + 1] + 1
                    : max(lengths[(i + 1) * columns + j], lengths[i * columns + j + 1])
            }
        }
        var kept: [Pair] = [], deleted: [Int] = [], added: [Int] = []
        var i = 0, j = 0
        while i < old.count, j < new.count {
            if old[i] == new[j] {
                kept.append(Pair(old: i, new: j))
                i += 1
                j += 1
            } else if lengths[(i + 1) * columns + j] >= lengths[i * columns + j + 1] {
                deleted.append(i)
                i += 1
            } else {
                added.append(j)
                j += 1
            }
        }
        deleted += Array(i..<old.count)
        added += Array(j..<new.count)
        self.kept = kept
        self.deleted = deleted
        self.added = added
    }
}
