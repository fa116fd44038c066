/// What `ManagedObjectContext.decodeAndSave(_:from:using:batchSize:)` did: how many objects
/// the payload held, and what its one commit wrote.
public struct SavedImport: Sendable {
    /// How many objects the payload's array held (each decoded once, duplicates included).
    public let decoded: Int
    /// How many batches were written before the commit.
    public let batches: Int
    /// What the import wrote, as `saveChanges()` answers: rows inserted, rows updated
    /// (including new objects that named a stored row), with each row once. Rows whose
    /// values the payload matched are in neither.
    public let changes: ChangeSet
    /// How many entities' inserts, over all batches, the store wrote without looking their
    /// unique values up, the import's context having proven them new (`NewRowKeys`).
    package let storeLookUpsSpared: Int
}
