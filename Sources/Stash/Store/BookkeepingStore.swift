/// A store that keeps Stash's own records beside the models' tables: text by key, in tables
/// whose names start with `_stash_` (`BookkeepingTable`), which no model can take.
///
/// These records are Stash's business, not the app's: StashREST keeps the validators of
/// conditional GET here without the app declaring a model for them. A store that cannot
/// keep them (none today) simply does not conform, and what needs them goes without.
package protocol BookkeepingStore: Store {
    /// The values kept in `table` for those of `keys` it holds; none if the table was never
    /// written.
    func bookkeepingValues(in table: BookkeepingTable, forKeys keys: [String]) throws -> [String: String]

    /// Sets (or, for `nil`, removes) these values in `table`, made if need be, in one
    /// transaction of its own. Answers the store's change token just before it committed and
    /// just after, as a save does (`SaveResult.tokens`): `afterCommit` is `nil` when another
    /// commit came between, or could have.
    func setBookkeepingValues(in table: BookkeepingTable, _ values: [String: String?]) throws -> CommitTokens
}

/// A table of Stash's own records: `_stash_` and a name of letters, digits and underscores.
package struct BookkeepingTable: Sendable, Hashable {
    package let name: String

    /// `_stash_<suffix>`.
    package init(_ suffix: String) {
        precondition(
            !suffix.isEmpty && suffix.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) },
            "a bookkeeping table's name is letters, digits and underscores: \(suffix)")
        name = "_stash_" + suffix
    }

    /// Where StashREST keeps the validators of conditional GET, one record per URL.
    package static let httpValidators = BookkeepingTable("http_validators")
}
