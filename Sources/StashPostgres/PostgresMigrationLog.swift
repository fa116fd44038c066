import Stash

/// What opening a PostgreSQL store changed in its tables, and what of the store's it undid,
/// gathered while `PostgresSchema` alters them in the opening transaction and checked
/// against the schema versions before that transaction commits: the rule SQLite's
/// `SchemaMigrator` applies before it writes. A model older than the store may change
/// nothing; one at the store's version may add but not undo (let a required column take
/// NULL, drop a unique index); a refusal rolls everything back.
struct PostgresMigrationLog {
    private(set) var changes: [(entity: String, summary: String)] = []
    private(set) var losses: [SchemaVersionRule.Loss] = []

    mutating func changed(_ entity: String, _ summary: String) {
        changes.append((entity, summary))
    }

    mutating func lost(_ entity: String, _ attribute: String?, _ summary: String) {
        losses.append(SchemaVersionRule.Loss(entity: entity, attribute: attribute, summary: summary))
    }

    /// Throws `migrationFailed`, naming what the model would change or undo, when a model at
    /// `modelVersion` may not do it to a store at `storeVersion` (`SchemaVersionRule`).
    func check(modelVersion: Int64, storeVersion: Int64) throws {
        try SchemaVersionRule.check(
            modelVersion: modelVersion, storeVersion: storeVersion, changes: changes, losses: losses)
    }
}
