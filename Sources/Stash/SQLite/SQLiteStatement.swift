internal import CSQLite

/// A prepared statement that owns its `sqlite3_stmt` and finalizes it when released.
///
/// Values are bound by index, never spliced into SQL text. Statements are cached per
/// connection by their SQL, so one statement serves every row of an entity.
package final class SQLiteStatement {
    let handle: OpaquePointer
    package let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw connection.error(code: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears bindings and rewinds, so the statement can run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Rewinds but keeps the bindings: for a loop that binds every parameter each time.
    package func rewind() {
        sqlite3_reset(handle)
    }

    /// Binds `value` to the 1-based parameter `index`.
    package func bind(_ value: SQLValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(var text):
            // Explicit byte length, so text with NUL characters survives.
            code = text.withUTF8 { bytes in
                sqlite3_bind_text(
                    handle, index, bytes.baseAddress ?? UnsafePointer(emptyBytes), Int32(bytes.count), sqliteTransient)
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(
                    handle, index, raw.baseAddress ?? UnsafeRawPointer(emptyBytes), Int32(raw.count), sqliteTransient)
            }
        }
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
    }

    // MARK: Typed binding and reading, for the per-row paths (no `SQLValue` in between)

    package func bind(_ integer: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, integer))
    }

    package func bind(_ real: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, real))
    }

    package func bind(_ text: String, at index: Int32) throws {
        var text = text
        try check(
            text.withUTF8 { bytes in
                sqlite3_bind_text(
                    handle, index, bytes.baseAddress ?? UnsafePointer(emptyBytes), Int32(bytes.count), sqliteTransient)
            })
    }

    /// The storage class of `column` in the current row.
    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    package func isInteger(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER
    }

    package func isText(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_TEXT
    }

    package func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// Calls `body` with the UTF-8 bytes of a text column, valid only during the call.
    package func withText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let bytes = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeBufferPointer(start: bytes ?? UnsafePointer(emptyBytes), count: bytes == nil ? 0 : count))
    }

    package func text(_ column: Int32) -> String {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
    }

    /// Binds each value in order, from parameter 1.
    package func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code: code, sql: sql)
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    package func run(_ values: [SQLValue] = []) throws {
        reset()
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The value of the 0-based `column` of the current row.
    package func column(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let raw = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: raw, count: count)))
        default:
            return .null
        }
    }

    package func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }
}

/// Tells SQLite to copy bound text and blobs before the call returns. Computed, not a
/// global: a global's lazy initialization check would run on every bind.
private var sqliteTransient: sqlite3_destructor_type {
    @inline(__always) get { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}

/// A non-null pointer for empty text and blobs: SQLite binds a null pointer as NULL.
nonisolated(unsafe) private let emptyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
