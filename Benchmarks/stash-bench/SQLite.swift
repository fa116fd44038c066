import CSQLite
import Foundation

/// A failure of the benchmark itself (not a slow result): what went wrong and where.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Tells SQLite to copy bound text before the bind call returns.
var sqliteTransient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// The thinnest useful wrapper over a sqlite3 connection: open, run SQL, prepare. The
/// baseline and the checks use it; Stash's own SQLite layer is deliberately not used.
final class RawDatabase {
    let handle: OpaquePointer
    let path: String

    /// Opens `path`. A writable connection gets the settings Stash's connections get (WAL,
    /// `synchronous = NORMAL`, foreign keys, 5 s busy timeout) so the baseline writes the
    /// file the same way; a read-only one is for checking a store from outside.
    init(path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw BenchError("cannot open \(path): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, 5000)
        if !readOnly {
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
            try execute("PRAGMA foreign_keys = ON")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "code \(code)"
            sqlite3_free(message)
            throw BenchError("\(path): \(sql): \(text)")
        }
    }

    /// A prepared statement; the caller finalizes it.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(sql) }
        return statement
    }

    func failure(_ sql: String) -> BenchError {
        BenchError("\(path): \(sql): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// Runs `sql` once for each element, in one transaction, with one prepared statement
    /// that `bind` fills (answering its binds' result codes, OR-ed together).
    func run<Element>(_ sql: String, forEach elements: [Element], bind: (OpaquePointer, Element) -> Int32) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN IMMEDIATE")
        do {
            for element in elements {
                guard bind(statement, element) == SQLITE_OK, sqlite3_step(statement) == SQLITE_DONE else {
                    throw failure(sql)
                }
                sqlite3_reset(statement)
            }
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rows of `table`, counted by SQLite.
    func count(_ table: String) throws -> Int {
        try integer("SELECT count(*) FROM \"\(table)\"")
    }

    /// The one integer a query such as `SELECT sum(…)` answers.
    func integer(_ sql: String) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure(sql) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Counts the rows of `table` in the file at `path` through a connection of its own,
    /// so the check does not trust whoever wrote the rows.
    static func count(_ table: String, inFileAt path: String) throws -> Int {
        try RawDatabase(path: path, readOnly: true).count(table)
    }
}

/// Binds `text` by its UTF-8 bytes, without making a C string first.
func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) -> Int32 {
    var text = text
    return text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            sqlite3_bind_text(statement, index, $0, Int32(bytes.count), sqliteTransient)
        }
    }
}

/// The text in `column` of the current row.
func columnText(_ statement: OpaquePointer, _ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(statement, column) else { return "" }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Checks that two stores hold the same thing, column for column: the fairness check that
/// the baseline writes what Stash writes (same schema, same values, same date text).
enum StoreComparison {
    static func assertSame(table: String, _ first: String, _ second: String) throws {
        let a = try RawDatabase(path: first, readOnly: true)
        let b = try RawDatabase(path: second, readOnly: true)
        let schemaSQL = "SELECT name, type, \"notnull\", pk FROM pragma_table_info('\(table)') ORDER BY cid"
        let schemaA = try rows(schemaSQL, a)
        let schemaB = try rows(schemaSQL, b)
        guard schemaA == schemaB else {
            throw BenchError("the stores' \(table) columns differ:\n  \(schemaA)\n  \(schemaB)")
        }
        let indexSQL =
            "SELECT il.name, il.\"unique\", ii.name FROM pragma_index_list('\(table)') il "
            + "JOIN pragma_index_info(il.name) ii ORDER BY il.name"
        let indexesA = try rows(indexSQL, a)
        let indexesB = try rows(indexSQL, b)
        guard indexesA == indexesB else {
            throw BenchError("the stores' \(table) indexes differ:\n  \(indexesA)\n  \(indexesB)")
        }
        // Each schema row starts with the column's name as `text <name>`.
        let columns = schemaA.map { "\"" + $0[0].dropFirst("text ".count) + "\"" }.filter { $0 != "\"_pk\"" }
        let select = "SELECT \(columns.joined(separator: ", ")) FROM \"\(table)\" ORDER BY \"id\""
        let statementA = try a.prepare(select)
        defer { sqlite3_finalize(statementA) }
        let statementB = try b.prepare(select)
        defer { sqlite3_finalize(statementB) }
        var row = 0
        while true {
            let stepA = sqlite3_step(statementA)
            let stepB = sqlite3_step(statementB)
            guard stepA == stepB else { throw BenchError("the stores have different row counts (row \(row))") }
            guard stepA == SQLITE_ROW else { break }
            for column in 0..<Int32(columns.count) {
                let valueA = value(statementA, column)
                let valueB = value(statementB, column)
                guard valueA == valueB else {
                    throw BenchError(
                        "row \(row), column \(columns[Int(column)]): \(first) has \(valueA), \(second) has \(valueB)")
                }
            }
            row += 1
        }
    }

    /// A column's storage class and value as text: enough to compare exactly.
    private static func value(_ statement: OpaquePointer, _ column: Int32) -> String {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: "integer \(sqlite3_column_int64(statement, column))"
        case SQLITE_FLOAT: "real \(sqlite3_column_double(statement, column))"
        case SQLITE_TEXT: "text \(columnText(statement, column))"
        case SQLITE_NULL: "null"
        default: "blob"
        }
    }

    private static func rows(_ sql: String, _ database: RawDatabase) throws -> [[String]] {
        let statement = try database.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { value(statement, $0) })
        }
        return result
    }
}
