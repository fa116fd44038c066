/// What a store's SQL differs in, for `QueryRenderer`: SQLite's (`?` parameters, integers
/// for booleans, Swift functions registered on the connection) or PostgreSQL's (`$1`, a
/// real boolean type, `= ANY($1)` for lists, NULLs ordered as SQLite orders them).
///
/// One renderer for both stores, so that a predicate means the same on each; what one
/// dialect cannot answer as Swift would is refused by name (`QueryRenderer.refusal`).
package struct SQLDialect: Sendable, Equatable {
    /// PostgreSQL's SQL: conditions are `boolean`, not integers, and parameters are numbered.
    package let isPostgres: Bool

    package static let sqlite = SQLDialect(isPostgres: false)
    package static let postgres = SQLDialect(isPostgres: true)
}
