import Testing

/// The store `testContainer` opens: SQLite unless a `.bothStores` run says PostgreSQL.
/// A task-local, so each run of a test body (and the tasks it starts, not detached ones)
/// sees its own.
enum StoreKind: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    @TaskLocal static var current: StoreKind = .sqlite

    var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}
