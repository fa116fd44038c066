extension Array where Element == Int64 {
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
