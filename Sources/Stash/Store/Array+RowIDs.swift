/// Lists of row ids, which most often come ascending (a save's inserts, a range scan, a page's
/// rows): each of these looks at that first and sorts or searches only when it must.
extension Array where Element == Int64 {
    /// Whether each row id is greater than the one before it: the list names each row once.
    package var ascendsStrictly: Bool {
        for index in indices.dropFirst() where self[index] <= self[index - 1] { return false }
        return true
    }

    /// The row ids ascending, each once: the list as it is when it already is.
    package func ascendingOnce() -> [Int64] {
        ascendsStrictly ? self : Set(self).sorted()
    }

    /// The position of `rowID` in this array of ascending row ids, if it holds it: looked for
    /// at `hint` first (a caller going through rows in their order finds each where the last
    /// one was, or just after), else by binary search.
    func position(ofSorted rowID: Int64, hint: Int) -> Int? {
        if hint >= 0, hint < count {
            if self[hint] == rowID { return hint }
            if hint + 1 < count, self[hint + 1] == rowID { return hint + 1 }
        }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < rowID { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] == rowID ? low : nil
    }
}
