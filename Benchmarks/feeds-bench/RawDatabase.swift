import CSQLite
import Foundation

/// A failure of the benchmark itself (a wrong count, a server that did not start): the run
/// stops and says so, since figures from a wrong data path mean nothing.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Tells SQLite to copy bound text before the bind call returns.
private var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// The sqlite3 C API with nothing in between: the baseline's side of every comparison, on
/// the store file Stash wrote. Stash's own SQLite layer is deliberately not used.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw BenchError("cannot open \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw error(sql) }
        return Statement(handle: statement, database: self)
    }

    /// The first column of every row of `sql`, as text (for `EXPLAIN QUERY PLAN` and counts).
    func strings(_ sql: String, column: Int32 = 0) throws -> [String] {
        let statement = try prepare(sql)
        var values: [String] = []
        while try statement.step() { values.append(statement.text(column) ?? "") }
        return values
    }

    fileprivate func error(_ sql: String) -> BenchError {
        BenchError("sqlite3: \(String(cString: sqlite3_errmsg(handle))) in \(sql)")
    }

    /// One prepared statement, reset and bound again for each run.
    final class Statement {
        let handle: OpaquePointer
        private let database: RawDatabase

        fileprivate init(handle: OpaquePointer, database: RawDatabase) {
            self.handle = handle
            self.database = database
        }

        deinit { sqlite3_finalize(handle) }

        func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(handle, index, text, -1, transient) }
        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
        func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

        /// Whether a row came; throws on an error.
        func step() throws -> Bool {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw BenchError("sqlite3: \(String(cString: sqlite3_errmsg(database.handle)))")
            }
        }

        func text(_ column: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, column) else { return nil }
            return String(cString: bytes)
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    }
}
