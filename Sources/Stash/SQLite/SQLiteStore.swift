import Foundation

/// The container's database: one connection, reached by one caller at a time.
///
/// Contexts of a container share it, so an in-memory store is one database for all of
/// them, and a file store has one writer, as SQLite wants.
final class SQLiteStore: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let lock = NSLock()
    /// UPDATE and upsert SQL by entity and changed columns, so it is built once.
    private var statementSQL: [StatementKey: String] = [:]

    init(path: String?) throws {
        connection = try SQLiteConnection(path: path)
    }

    /// Runs `body` with the connection, serialized with every other use.
    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Runs `body` in one transaction: all of it is written, or none of it.
    func write<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try withConnection { connection in
            try connection.transaction { try body(connection) }
        }
    }

    /// Statements whose SQL depends on which attributes an object changed.
    enum StatementKind: Hashable {
        case update
    }

    /// The SQL of a `kind` statement for `entity` and `slots`, made by `make` the first
    /// time; the caller holds the connection.
    func cachedSQL(
        for entity: EntityDescription, _ kind: StatementKind, _ slots: SlotSet, make: () -> String
    ) -> String {
        let key = StatementKey(entity: ObjectIdentifier(entity), kind: kind, slots: slots)
        if let sql = statementSQL[key] { return sql }
        let sql = make()
        statementSQL[key] = sql
        return sql
    }

    private struct StatementKey: Hashable {
        let entity: ObjectIdentifier
        let kind: StatementKind
        let slots: SlotSet
    }
}
