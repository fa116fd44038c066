/// Rows of one entity and the columns a decode set in them (`DecodedValueRecord`): what
/// `PersistentContainer.valueDigest(of:)` reads to tell whether they still hold what that
/// decode gave them. Kept by StashREST in its validators, as JSON.
package struct ValueCoverage: Codable, Sendable, Equatable {
    package var entity: String
    /// Column names, as the `sqlite3` shell shows them.
    package var columns: [String]
    /// Row ids, ascending.
    package var rows: [Int64]

    package init(entity: String, columns: [String], rows: [Int64]) {
        self.entity = entity
        self.columns = columns
        self.rows = rows
    }
}
