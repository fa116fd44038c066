import Foundation

/// The SQLite store: a container's tables in one file (or in memory), reached through one
/// connection by one caller at a time.
///
/// Contexts of a container share it, so an in-memory store is one database for all of
/// them, and a file store has one writer, as SQLite wants. Opening it migrates the tables
/// to the entities (see `SchemaMigrator`).
// `@unchecked`: the connection and the caches are only touched under `lock`.
final class SQLiteStore: Store, @unchecked Sendable {
    private let connection: SQLiteConnection
    private let lock = NSLock()
    /// Each entity's SQL, by entity name.
    let sql: [String: EntitySQL]
    /// UPDATE SQL by entity and changed columns, so each is built once.
    private var updateSQL: [UpdateKey: String] = [:]

    /// Opens (or creates) the store at `path`, `nil` for memory, for these entities.
    init(path: String?, entities: [EntitySchema], busyTimeout: Duration) throws {
        connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        sql = Dictionary(entities.map { ($0.name, EntitySQL($0)) }, uniquingKeysWith: { first, _ in first })
        try SchemaMigrator(connection: connection, entities: entities).migrate()
    }

    /// Runs `body` with the connection, serialized with every other use.
    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// How many statements have run on the connection (see `SQLiteConnection.statementsRun`).
    var statementsRun: Int {
        lock.lock()
        defer { lock.unlock() }
        return connection.statementsRun
    }

    func entitySQL(_ entity: EntitySchema) -> EntitySQL {
        sql[entity.name] ?? EntitySQL(entity)
    }

    // MARK: Reading

    func fetch(_ query: StoreQuery, _ body: (any StoreRow) throws -> Void) throws {
        let entitySQL = entitySQL(query.entity)
        let columns = query.selectedColumns
        try withConnection { connection in
            try inPlace(query.entity.name) {
                try forEachBatch(of: query.filter) { shape, parameters in
                    var parameters = parameters
                    let limited = query.limit != nil || query.offset != nil
                    if limited {
                        precondition(shape == .all || parameters.count < filterBatchSize, "a limit needs one batch")
                        parameters += [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset ?? 0))]
                    }
                    let sql = entitySQL.select(columns, where: shape, limited: limited)
                    let statement = try connection.statement(sql)
                    defer { statement.reset() }
                    try statement.bind(parameters)
                    let row = SQLiteRow(statement)
                    while try statement.step() {
                        try body(row)
                    }
                }
            }
        }
    }

    func count(_ query: StoreQuery) throws -> Int {
        let entitySQL = entitySQL(query.entity)
        return try withConnection { connection in
            try inPlace(query.entity.name) {
                var total: Int64 = 0
                try forEachBatch(of: query.filter) { shape, parameters in
                    total += try connection.integer(entitySQL.count(where: shape), parameters)
                }
                return Int(total)
            }
        }
    }

    /// `PRAGMA data_version`: SQLite changes it when another connection commits.
    func changeToken() throws -> Int64 {
        try withConnection { try $0.integer("PRAGMA data_version") }
    }

    /// Splits a filter's values into batches SQLite can bind, and calls `body` per batch.
    private func forEachBatch(
        of filter: StoreQuery.Filter, _ body: (EntitySQL.FilterShape, [StoredValue]) throws -> Void
    ) throws {
        switch filter {
        case .all:
            try body(.all, [])
        case .rowIDs(let rowIDs):
            for start in stride(from: 0, to: rowIDs.count, by: filterBatchSize) {
                let batch = rowIDs[start..<min(start + filterBatchSize, rowIDs.count)].map { StoredValue.integer($0) }
                try body(.rowIDs(count: batch.count), batch)
            }
        case .values(let column, let values):
            for start in stride(from: 0, to: values.count, by: filterBatchSize) {
                let batch = Array(values[start..<min(start + filterBatchSize, values.count)])
                try body(.values(column: column, count: batch.count), batch)
            }
        }
    }

    /// The UPDATE for `entity` that sets `columns`, built the first time; the caller holds
    /// the connection.
    func updateSQL(_ entity: EntitySQL, _ columns: AttributeSet) -> String {
        let key = UpdateKey(entity: entity.schema.name, columns: columns)
        if let sql = updateSQL[key] { return sql }
        let sql = entity.update(columns.positions(below: entity.schema.columns.count))
        updateSQL[key] = sql
        return sql
    }

    private struct UpdateKey: Hashable {
        let entity: String
        let columns: AttributeSet
    }
}

/// How many values one `IN (…)` binds: well under SQLite's parameter limit.
let filterBatchSize = 500
