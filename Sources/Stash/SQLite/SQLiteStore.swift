import Foundation

/// The container's database: one connection, reached by one caller at a time.
///
/// Contexts of a container share it, so an in-memory store is one database for all of
/// them, and a file store has one writer, as SQLite wants.
final class SQLiteStore: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let lock = NSLock()
    /// UPDATE statements by entity and changed columns, so their SQL is built once.
    private var updateSQL: [UpdateKey: String] = [:]

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

    /// The UPDATE for `attributes` of `entity`; the caller holds the connection.
    func updateSQL(for entity: EntityDescription, changing slots: SlotSet, _ attributes: [AttributeDescription])
        -> String
    {
        let key = UpdateKey(entity: ObjectIdentifier(entity), slots: slots)
        if let sql = updateSQL[key] { return sql }
        let sql = entity.sql.update(attributes)
        updateSQL[key] = sql
        return sql
    }

    private struct UpdateKey: Hashable {
        let entity: ObjectIdentifier
        let slots: SlotSet
    }
}
