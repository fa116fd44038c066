/// Rows of one entity and the columns a decode set in them (`DecodedValueRecord`): what
/// `PersistentContainer.pageDigests` reads to tell whether they still hold what that
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

    private enum CodingKeys: String, CodingKey {
        case entity, columns, rows
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(String.self, forKey: .entity)
        columns = try container.decode([String].self, forKey: .columns)
        rows = try container.decode(RowIDRuns.self, forKey: .rows).rowIDs
    }

    /// The rows as runs (`RowIDRuns`).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(columns, forKey: .columns)
        try container.encode(RowIDRuns(rows), forKey: .rows)
    }
}
