import Stash

/// What opening a PostgreSQL store changed in its tables, and what of the store's it undid,
/// gathered while `PostgresSchema` alters them in the opening transaction and checked
/// against the schema versions before that transaction commits: the rule SQLite's
/// `SchemaMigrator` applies before it writes. A model older than the store may change
/// nothing; one at the store's version may add but not undo (let a required column take
/// NULL, drop a unique index); a refusal rolls everything back.
struct PostgresMigrationLog {
    struct Loss {
        let entity: String
        let attribute: String?
        let summary: String
    }

    private(set) var changes: [(entity: String, summary: String)] = []
    private(set) var losses: [Loss] = []

    mutating func changed(_ entity: String, _ summary: String) {
        changes.append((entity, summary))
    }

    mutating func lost(_ entity: String, _ attribute: String?, _ summary: String) {
        losses.append(Loss(entity: entity, attribute: attribute, summary: summary))
    }

    /// Throws `migrationFailed`, naming what the model would change or undo, when a model at
    /// `modelVersion` may not do it to a store at `storeVersion`.
    func check(modelVersion: Int64, storeVersion: Int64) throws {
        if modelVersion < storeVersion, let first = changes.first {
            let said = losses.isEmpty ? changes.map(\.summary) : losses.map(\.summary)
            throw StashError(
                .migrationFailed,
                "a newer model (schema version \(storeVersion)) made this store, and this one (\(modelVersion)) "
                    + "would change it: \(said.joined(separator: "; ")); the store was left untouched",
                entity: losses.first?.entity ?? first.entity, attribute: losses.first?.attribute)
        }
        if modelVersion <= storeVersion, let first = losses.first {
            throw StashError(
                .migrationFailed,
                "this model would undo what the store holds, as a newer model may have made it: "
                    + losses.map(\.summary).joined(separator: "; ")
                    + "; the store was left untouched. A model that means to drop them needs a schemaVersion above "
                    + "the store's \(storeVersion)",
                entity: first.entity, attribute: first.attribute)
        }
    }
}
