/// Stash's bookkeeping table, `_stash_schema`: it marks a file as a Stash store and keeps the
/// schema version of the newest model that migrated it.
///
/// The tables themselves say what the newest model made (columns, NOT NULL, unique indexes);
/// the version says whether a model that would undo some of it means to (see
/// `SchemaMigrator`). A file without this table is not Stash's unless it is empty or was
/// made by a Stash from before the table (`StoreFile`).
///
/// ```sql
/// CREATE TABLE "_stash_schema" ("key" TEXT PRIMARY KEY NOT NULL, "value" NOT NULL) WITHOUT ROWID
/// -- ('format', 1): keys are AUTOINCREMENT; ('schemaVersion', 3)
/// ```
struct SchemaRecord: Equatable {
    static let table = "_stash_schema"
    /// What Stash's tables look like: 1 is `_pk INTEGER PRIMARY KEY AUTOINCREMENT`.
    static let currentFormat: Int64 = 1

    var format: Int64
    /// The highest `schemaVersion` of a model that opened the store.
    var schemaVersion: Int64

    /// The store's record, `nil` when it has none (a new file, or one from an earlier Stash).
    static func read(_ connection: SQLiteConnection) throws -> SchemaRecord? {
        let exists = try connection.integer(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
        guard exists != 0 else { return nil }
        var record = SchemaRecord(format: 0, schemaVersion: 0)
        try connection.forEachRow("SELECT \"key\", \"value\" FROM \(quoted(table))") { row in
            guard case .text(let key) = row.column(0) else { return }
            switch key {
            case "format": record.format = row.int64(1)
            case "schemaVersion": record.schemaVersion = row.int64(1)
            default: break
            }
        }
        return record
    }

    /// Writes the record, making the table if needed; the caller holds a write transaction.
    func write(_ connection: SQLiteConnection) throws {
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS \(quoted(Self.table)) (\"key\" TEXT PRIMARY KEY NOT NULL, \"value\" NOT NULL) WITHOUT ROWID"
        )
        let upsert = try connection.statement(
            "INSERT INTO \(quoted(Self.table)) (\"key\", \"value\") VALUES (?, ?) "
                + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
        try upsert.run([.text("format"), .integer(format)])
        try upsert.run([.text("schemaVersion"), .integer(schemaVersion)])
    }
}
