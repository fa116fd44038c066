import Foundation
import Synchronization

/// The SQLite store: a container's tables in one file (or in memory).
///
/// A file store has one writer connection, as SQLite wants, reached by one save at a time,
/// and a pool of readers on the WAL file (`ReaderPool`): fetches, counts and loads run on a
/// reader and never wait for a save that is committing, nor a save for them. An in-memory
/// database is private to its connection, so an in-memory store reads and writes through its
/// one connection. Opening a store migrates the tables to the entities (`SchemaMigrator`).
// `@unchecked`: the writer and the SQL caches are only touched under `writerLock`, the token
// connection under `tokenLock`; readers are lent to one caller at a time.
final class SQLiteStore: Store, @unchecked Sendable {
    /// The store file, `nil` in memory.
    let path: String?
    /// How the store is opened when it cannot be written; `nil` when it can.
    let readOnly: ReadOnlyAccess?
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    /// The thread inside `inOneTransaction`, 0 outside it: its saves and reads use the
    /// writer, which holds the open transaction (and the lock) meanwhile.
    private let transactionThread = Atomic<UInt>(0)
    private let readers: ReaderPool?
    /// A reader kept for `changeToken()`: `PRAGMA data_version` counts per connection.
    private let tokenConnection: SQLiteConnection?
    private let tokenLock = NSLock()
    /// Each entity's SQL, by entity name.
    let sql: [String: EntitySQL]
    /// UPDATE SQL by entity and changed columns, so each is built once.
    private var updateSQL: [UpdateKey: String] = [:]
    /// The operations acknowledged while fetches are in flight (see `OutboxAcknowledgements`).
    let acknowledgements = OutboxAcknowledgements()

    /// Opens (or creates) the store at `path`, `nil` for memory, for these entities, whose
    /// model is at `schemaVersion` (see `SchemaMigrator`). A file Stash did not make, or one a
    /// migration refuses, is left as it was.
    ///
    /// A store that cannot be written (a read-only file or directory), or one opened with
    /// `readOnly`, is opened read-only (`ReadOnlyAccess`): it reads, needs no migration, and
    /// its saves fail with `readOnlyStore`.
    init(
        path: String?, entities: [EntitySchema], busyTimeout: Duration, schemaVersion: Int = 0, readOnly: Bool = false
    ) throws {
        self.path = path
        if let path {
            (writer, self.readOnly) = try ReadOnlyAccess.open(path: path, busyTimeout: busyTimeout, asked: readOnly)
        } else {
            writer = try SQLiteConnection(path: nil, busyTimeout: busyTimeout)
            self.readOnly = nil
        }
        sql = Dictionary(
            entities.map { ($0.name, EntitySQL($0, lookUps: true)) }, uniquingKeysWith: { first, _ in first })
        if let path {
            _ = try StoreFile.inspect(writer, path: path, entities: entities)
            if self.readOnly == nil { try writer.useWAL() }
        }
        var migrator = SchemaMigrator(connection: writer, entities: entities, schemaVersion: Int64(schemaVersion))
        migrator.readOnly = self.readOnly.map { ($0, path ?? "") }
        try migrator.migrate()
        if let path {
            readers = ReaderPool(path: path, busyTimeout: busyTimeout, readOnly: self.readOnly)
            tokenConnection = try SQLiteConnection(
                path: path, busyTimeout: busyTimeout, role: .reader, readOnly: self.readOnly)
        } else {
            readers = nil
            tokenConnection = nil
        }
    }

    /// The last connection of this store checkpoints the WAL into the main file, even when
    /// another process has the store open too (SQLite's own checkpoint at close is skipped
    /// then), so a closed store is one file.
    deinit {
        if path != nil && readOnly == nil { checkpoint() }
    }

    var isShared: Bool { path != nil }

    /// A file's token is `PRAGMA data_version` of a connection that never writes: every
    /// commit by any other connection moves it, the `sqlite3` shell's and this store's writer's.
    /// Not a file opened `immutable=1` (read-only, in a directory it cannot write): SQLite
    /// looks for no change in it then.
    var changeTokenSeesEveryCommit: Bool { path != nil && readOnly?.isImmutable != true }

    /// Runs `body` with the writer connection, serialized with every other use of it.
    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        if isInsideTransaction { return try body(writer) }
        writerLock.lock()
        defer { writerLock.unlock() }
        return try body(writer)
    }

    /// Runs `body` with a reader of its own (the writer, for an in-memory store).
    func withReader<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        guard let readers, !isInsideTransaction else { return try withConnection(body) }
        return try readers.withReader(body)
    }

    /// Whether the calling thread runs `inOneTransaction`'s body.
    var isInsideTransaction: Bool {
        transactionThread.load(ordering: .acquiring) == Self.currentThread
    }

    /// Refuses a write of its own (a save, the bookkeeping, the outbox) on the thread inside
    /// `inOneTransaction` (`StashError.insideBatchedImport`).
    func refuseInsideTransaction(_ what: String, entity: String? = nil) throws {
        guard isInsideTransaction else { return }
        throw StashError.insideBatchedImport(what, entity: entity)
    }

    /// The calling thread as a number, never 0.
    private static var currentThread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            pthread_self()
        #endif
    }

    /// One `BEGIN IMMEDIATE` transaction around `body` (see `Store.inOneTransaction`), whose
    /// batches are written as a save writes its change set, without a transaction of their
    /// own.
    func inOneTransaction<Result>(_ body: (TransactionWrites) throws -> Result) throws -> (Result, CommitTokens) {
        if let readOnly { throw readOnly.saveRefused(path ?? ":memory:", entity: nil) }
        guard !isInsideTransaction else { throw StashError.batchedImportInsideAnother }
        return try withConnection { connection in
            try committing(connection) {
                transactionThread.store(Self.currentThread, ordering: .releasing)
                defer { transactionThread.store(0, ordering: .releasing) }
                let writes = TransactionWrites(
                    write: { [self] changes in
                        guard isInsideTransaction else { throw StashError.batchAfterItsTransaction }
                        return try write(changes, connection)
                    }, excludesOtherWriters: true)
                return try body(writes)
            }
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the writer `connection`, with the
    /// change token read just before the commit and just after it, as a save's (see
    /// `tokenAfterOwnCommit`). A failure to read the token after the commit is no failure:
    /// without a token vouched for, what the commit vouches for is read again.
    func committing<Result>(_ connection: SQLiteConnection, _ body: () throws -> Result) throws
        -> (Result, CommitTokens)
    {
        var tokens = CommitTokens()
        var writerVersion: Int64?
        let result = try connection.transaction {
            let result = try body()
            if path != nil {
                tokens.beforeCommit = try changeToken()
                writerVersion = try connection.integer("PRAGMA data_version")
            }
            return result
        }
        if let writerVersion { tokens.afterCommit = try? tokenAfterOwnCommit(writerVersion, connection) }
        return (result, tokens)
    }

    /// How many statements have run on the store's connections (see
    /// `SQLiteConnection.statementsRun`).
    var statementsRun: Int {
        let written = (try? withConnection { $0.statementsRun }) ?? 0
        return written + (readers?.statementsRun ?? 0)
    }

    /// How many times the change token was read (`changeToken()` on its own connection).
    var tokenReads: Int {
        tokenLock.lock()
        defer { tokenLock.unlock() }
        return tokenConnection?.statementsRun ?? 0
    }

    func entitySQL(_ entity: EntitySchema) -> EntitySQL {
        sql[entity.name] ?? EntitySQL(entity)
    }

    // MARK: Reading

    func fetch(_ query: StoreQuery, _ body: (any StoreRow) throws -> Void) throws {
        var tokenLook = TokenLook(taking: false)
        try read(query, &tokenLook, { _ in false }, body)
    }

    /// `fetch`, with the token looked at once the first statement's read has begun
    /// (`TokenLook`), and read only when the reading connection saw a commit since its last look.
    func fetch(
        _ query: StoreQuery, lookingAtToken look: (Int64?) throws -> Bool, _ body: (any StoreRow) throws -> Void
    ) throws {
        var tokenLook = TokenLook(taking: true)
        try read(query, &tokenLook, look, body)
        try tokenLook.finish(self, look)
    }

    private func read(
        _ query: StoreQuery, _ tokenLook: inout TokenLook, _ look: (Int64?) throws -> Bool,
        _ body: (any StoreRow) throws -> Void
    ) throws {
        guard query.isPlain else { return try fetchRendered(query, &tokenLook, look, body) }
        let entitySQL = entitySQL(query.entity)
        let limited = query.limit != nil || query.offset != nil
        // Every column's SELECT is made once (`selectEveryColumn`); a choice of columns is
        // rendered when asked.
        func select(_ shape: EntitySQL.FilterShape, limited: Bool) -> String {
            guard let columns = query.columns else {
                return entitySQL.selectEveryColumn(where: shape, limited: limited)
            }
            return entitySQL.select(columns, where: shape, limited: limited)
        }
        try withReader { connection in
            try inPlace(query.entity.name) {
                if !limited, case .rowIDs(let rowIDs) = query.filter {
                    return try forEachRange(of: rowIDs) { range, wanted in
                        let statement = try connection.statement(select(range, limited: false))
                        defer { statement.reset() }
                        try statement.bind([.integer(wanted.first!), .integer(wanted.last!)])
                        let row = SQLiteRow(statement)
                        var next = wanted.startIndex
                        while try tokenLook.step(statement, on: connection, of: self, look) {
                            // Both in row id order: a row of the range the list skips is passed over.
                            let rowID = row.rowID
                            while next < wanted.endIndex, wanted[next] < rowID { next += 1 }
                            if next < wanted.endIndex, wanted[next] == rowID { try body(row) }
                        }
                    } inList: { shape, parameters in
                        try fetchBatch(shape, parameters, limited: false)
                    }
                }
                try forEachBatch(of: query.filter) { shape, parameters in
                    try fetchBatch(shape, parameters, limited: limited)
                }
            }

            func fetchBatch(_ shape: EntitySQL.FilterShape, _ parameters: [StoredValue], limited: Bool) throws {
                var parameters = parameters
                if limited {
                    precondition(shape == .all || parameters.count < filterBatchSize, "a limit needs one batch")
                    parameters += [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset ?? 0))]
                }
                let statement = try connection.statement(select(shape, limited: limited))
                defer { statement.reset() }
                try statement.bind(parameters)
                let row = SQLiteRow(statement)
                while try tokenLook.step(statement, on: connection, of: self, look) {
                    try body(row)
                }
            }
        }
    }

    /// Splits sorted row ids into the stretches a fetch reads: where at least half of the row
    /// ids between a stretch's first and last are wanted (rows saved together: a page
    /// imported, a fetch's result), one range scan of up to `rangeBatchSize` wanted ids that
    /// `inRange` filters, as long as the ids stay that dense; elsewhere `IN (…)` batches, as
    /// `forEachBatch` makes. An `IN` of 500 values builds an index of them per statement:
    /// reading back 100,000 rows just saved took 0.13 s in 200 such batches (stash-bench
    /// `--rest-only`, checking a page's values).
    private func forEachRange(
        of rowIDs: [Int64], inRange: (EntitySQL.FilterShape, ArraySlice<Int64>) throws -> Void,
        inList: (EntitySQL.FilterShape, [StoredValue]) throws -> Void
    ) throws {
        var start = rowIDs.startIndex
        while start < rowIDs.endIndex {
            let end = denseEnd(of: rowIDs, from: start)
            if end - start > 1 {
                try inRange(.rowRange, rowIDs[start..<end])
                start = end
                continue
            }
            let listed = min(start + filterBatchSize, rowIDs.endIndex)
            try inList(.rowIDs(count: listed - start), rowIDs[start..<listed].map { StoredValue.integer($0) })
            start = listed
        }
    }

    /// The end of the longest stretch from `start`, ascending and at most `rangeBatchSize`
    /// long, whose ids fill at least half of the range they span.
    private func denseEnd(of rowIDs: [Int64], from start: Int) -> Int {
        var end = start + 1
        var index = start + 1
        while index < min(start + rangeBatchSize, rowIDs.endIndex), rowIDs[index] >= rowIDs[index - 1] {
            let (span, overflow) = rowIDs[index].subtractingReportingOverflow(rowIDs[start])
            // Sorted: the span only grows, so past twice the longest stretch none is dense.
            if overflow || span >= Int64(2 * rangeBatchSize) { break }
            if span < Int64(2 * (index - start + 1)) { end = index + 1 }
            index += 1
        }
        return end
    }

    func count(_ query: StoreQuery) throws -> Int {
        // A limit or an offset counts a page: one statement, not batches.
        guard query.isPlain, query.limit == nil, query.offset == nil else { return try countRendered(query) }
        let entitySQL = entitySQL(query.entity)
        return try withReader { connection in
            try inPlace(query.entity.name) {
                var total: Int64 = 0
                try forEachBatch(of: query.filter) { shape, parameters in
                    total += try connection.integer(entitySQL.count(where: shape), parameters)
                }
                return Int(total)
            }
        }
    }

    /// `PRAGMA data_version` of a connection that never writes: it changes whenever any other
    /// connection commits, this store's writer included.
    func changeToken() throws -> Int64 {
        guard let tokenConnection else { return try withConnection { try $0.integer("PRAGMA data_version") } }
        tokenLock.lock()
        defer { tokenLock.unlock() }
        return try tokenConnection.integer("PRAGMA data_version")
    }

    /// The change token just after a commit the writer made, if no other connection committed
    /// after it before the token was read; `nil` if one did. `writerVersion` is the writer's
    /// own `PRAGMA data_version`, read inside the transaction: it moves only for other
    /// connections' commits, so the same value read after the token proves that the token
    /// holds this commit and nothing later (the token alone cannot tell one commit from two).
    /// Called with the writer connection, right after the commit.
    func tokenAfterOwnCommit(_ writerVersion: Int64, _ connection: SQLiteConnection) throws -> Int64? {
        let token = try changeToken()
        return try connection.integer("PRAGMA data_version") == writerVersion ? token : nil
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
/// How many wanted row ids one range scan covers (`SQLiteStore.forEachRange`).
let rangeBatchSize = 8_192
