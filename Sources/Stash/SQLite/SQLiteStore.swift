import Foundation

/// The container's database: one connection, reached by one caller at a time.
///
/// Contexts of a container share it, so an in-memory store is one database for all of
/// them, and a file store has one writer, as SQLite wants.
final class SQLiteStore: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let lock = NSLock()
    /// UPDATE SQL by entity and changed columns, so it is built once.
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

    /// The UPDATE for `entity` that sets the attributes in `slots`, made by `make` the
    /// first time; the caller holds the connection.
    func updateSQL(for entity: EntityDescription, _ slots: SlotSet, make: () -> String) -> String {
        let key = StatementKey(entity: ObjectIdentifier(entity), slots: slots)
        if let sql = statementSQL[key] { return sql }
        let sql = make()
        statementSQL[key] = sql
        return sql
    }

    private struct StatementKey: Hashable {
        let entity: ObjectIdentifier
        let slots: SlotSet
    }
}
