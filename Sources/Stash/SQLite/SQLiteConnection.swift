internal import CSQLite
import Foundation

/// One SQLite connection: opens the file, caches prepared statements, runs transactions.
///
/// Not thread-safe by itself: `SQLiteStore` reaches it only under its lock.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// How many statements ran (were stepped from the start) on this connection: lets tests
    /// check that a path runs a bounded number of queries, not one per object.
    private(set) var statementsRun = 0
    /// The main file's data version as this connection's last fetch found it, once the store
    /// had counted what was committed up to then (`TokenLook`); `nil` before the first.
    var dataVersionLookedAt: UInt32?

    /// What a connection is for: the store's one writer, or one of its readers.
    enum Role {
        case writer
        /// Reads only (`PRAGMA query_only`); never creates the file or changes its mode.
        case reader
    }

    /// Opens (creating if needed) the database at `path`; `nil` opens a private in-memory
    /// database. Opening changes nothing in the file (see `useWAL`). Connections wait up to
    /// `busyTimeout` for another process's lock instead of failing at once.
    ///
    /// With `readOnly`, the file is opened through that access's URI, read-only.
    init(path: String?, busyTimeout: Duration, role: Role = .writer, readOnly: ReadOnlyAccess? = nil) throws {
        var handle: OpaquePointer?
        let flags =
            readOnly != nil
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
            : role == .writer
                ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(readOnly?.uri ?? path ?? ":memory:", &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            var error = StashError(.storeFailed, "cannot open \(path ?? ":memory:"): \(message)")
            error.sqliteCode = code
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        SQLiteFunctions.register(on: handle)
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: max(milliseconds, 0)))
        if role == .reader {
            try execute("PRAGMA query_only = 1")
            return
        }
        if path != nil { try execute("PRAGMA synchronous = NORMAL") }
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Switches the file to WAL, which changes the file: called once `StoreFile` has found
    /// it is Stash's. Asked first: switching needs a lock that another process's write would
    /// make this wait for, and a store made by Stash is in WAL already.
    ///
    /// Saves go to the WAL file; SQLite copies them into the main file (a PASSIVE
    /// checkpoint) after a commit leaves more than `checkpointPages` pages in the WAL, a
    /// quarter of SQLite's default, so less of the store lives only in the WAL; the WAL file
    /// is cut back to that size once it starts over.
    func useWAL() throws {
        var mode = ""
        try forEachRow("PRAGMA journal_mode") { mode = $0.text(0) }
        if mode.lowercased() != "wal" { try execute("PRAGMA journal_mode = WAL") }
        try execute(
            "PRAGMA wal_autocheckpoint = \(Self.checkpointPages); PRAGMA journal_size_limit = \(Self.checkpointPages * 4096)"
        )
    }

    /// WAL pages after which a commit is followed by a checkpoint: 1 MB of 4 KB pages.
    static let checkpointPages = 256

    deinit {
        recent.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The cached statement for `sql`, prepared on first use.
    func statement(_ sql: String) throws -> SQLiteStatement {
        statementsRun += 1
        for statement in recent where statement.sql.utf8.count == sql.utf8.count && statement.sql == sql {
            statement.reset()
            return statement
        }
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            cached.reset()
            statement = cached
        } else {
            statement = try SQLiteStatement(connection: self, sql: sql)
            statements[sql] = statement
        }
        if recent.count == Self.recentCount { recent.removeLast() }
        recent.insert(statement, at: 0)
        return statement
    }

    /// The statements last taken from the dictionary or made, newest first, compared before the dictionary hashes the
    /// text: a fetch's text is mostly one the store made once (a look-up's, the change
    /// token's), so the same `String` comes back and `==` answers from its identity, where
    /// hashing a 200-byte SELECT took about 1k instructions, twice a look-up (callgrind).
    private var recent: [SQLiteStatement] = []
    private static let recentCount = 4

    /// Runs `sql` with `parameters` and calls `body` for each row. The statement is reset
    /// afterwards, so it holds no lock on the tables it read.
    func forEachRow(
        _ sql: String, _ parameters: [StoredValue] = [], _ body: (SQLiteStatement) throws -> Void
    ) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(parameters)
        while try statement.step() {
            try body(statement)
        }
    }

    /// The integer in the first column of the first row, as for `SELECT count(*)`.
    func integer(_ sql: String, _ parameters: [StoredValue] = []) throws -> Int64 {
        var result: Int64 = 0
        try forEachRow(sql, parameters) { result = $0.int64(0) }
        return result
    }

    /// Runs one statement (or several separated by semicolons) with no parameters.
    func execute(_ sql: String) throws {
        statementsRun += 1
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw error(code: code, sql: sql, message: text)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed if it returns,
    /// rolled back if it throws, so a failure leaves the file as it was.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Whether SQLite opened the main file read-only (it does when the file cannot be
    /// written, even if asked for read-write).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// The main file's data version as this connection last read it
    /// (`SQLITE_FCNTL_DATA_VERSION`): it moves whenever a read or a write of this connection
    /// finds the file changed, by any connection or process. Unlike `PRAGMA data_version`, no
    /// statement runs: it is as fresh as the connection's last read.
    var dataVersion: UInt32? {
        var version: UInt32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else {
            return nil
        }
        return version
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    func error(code: Int32, sql: String?, message: String? = nil) -> StashError {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        var error = StashError(.storeFailed, text)
        error.sqliteCode = sqlite3_extended_errcode(handle) != 0 ? sqlite3_extended_errcode(handle) : code
        error.sql = sql
        return error
    }
}
