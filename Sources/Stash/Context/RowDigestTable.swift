/// The digests of rows read back for `PersistentContainer.pageDigests`, by row id: the ids
/// asked for (ascending, each once) beside what the read gave each, `nil` for a row not read
/// (gone). Stores answer a read by row ids in their order, and a page lists its rows in
/// order most often, so each row is found where the last one was, or just after: a
/// dictionary of the digests cost about 370 instructions a row to fill and 150 to look up
/// (stash-bench `--rest-only` under callgrind).
struct RowDigestTable {
    private let rowIDs: [Int64]
    private var digests: [UInt64?]
    /// Where the last row was found.
    private var cursor = 0

    init(rowIDs: [Int64]) {
        self.rowIDs = rowIDs
        digests = Array(repeating: nil, count: rowIDs.count)
    }

    /// Notes what the read gave `rowID`; a row not asked for is left out.
    mutating func set(_ digest: UInt64, for rowID: Int64) {
        guard let position = rowIDs.position(ofSorted: rowID, hint: cursor) else { return }
        digests[position] = digest
        cursor = position
    }

    /// What the read gave `rowID`; `nil` if it was not read.
    mutating func digest(of rowID: Int64) -> UInt64? {
        guard let position = rowIDs.position(ofSorted: rowID, hint: cursor) else { return nil }
        cursor = position
        return digests[position]
    }
}
