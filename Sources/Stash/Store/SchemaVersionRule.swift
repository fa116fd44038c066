/// What a model may do to a store another model made, by their `schemaVersion`s: the one
/// rule both stores apply before they write (`SchemaMigrator` on SQLite, `PostgresSchema`'s
/// log on PostgreSQL). A model older than the store may change nothing; one at the store's
/// version may add but not undo (let a required column take NULL, drop a unique index); a
/// newer one may do both.
package enum SchemaVersionRule {
    /// A constraint of the store's that the model would drop.
    package struct Loss {
        package let entity: String
        package let attribute: String?
        package let summary: String

        package init(entity: String, attribute: String?, summary: String) {
            self.entity = entity
            self.attribute = attribute
            self.summary = summary
        }
    }

    /// Throws `migrationFailed`, naming what the model would change or undo, when a model at
    /// `modelVersion` may not make `changes` (each step's entity and summary, in order) with
    /// these `losses` to a store at `storeVersion`.
    package static func check(
        modelVersion: Int64, storeVersion: Int64, changes: [(entity: String, summary: String)], losses: [Loss]
    ) throws {
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
