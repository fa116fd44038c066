internal import CSQLite
import Foundation

/// A prepared statement that owns its `sqlite3_stmt` and finalizes it when released.
///
/// Values are bound by index, never spliced into SQL text. Statements are cached per
/// connection by their SQL, so one statement serves every row of an entity.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
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
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Rewinds but keeps the bindings: for a loop that binds every parameter each time.
    func rewind() {
        sqlite3_reset(handle)
    }

    /// Binds `value` to the 1-based parameter `index`.
    func bind(_ value: StoredValue, at index: Int32) throws {
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

    /// `bind(_:at:)`, with text and blobs copied into `arena` and bound from there without
    /// SQLite copying them again (`SQLITE_STATIC`): the statement must be stepped, then reset
    /// or bound again, before `arena` rewinds (see `BindArena`).
    func bind(_ value: StoredValue, at index: Int32, copyingInto arena: BindArena) throws {
        let code: Int32
        switch value {
        case .null, .integer, .real:
            return try bind(value, at: index)
        case .text(var text):
            code = text.withUTF8 { bytes in
                let copy = arena.copy(UnsafeRawBufferPointer(bytes))
                return sqlite3_bind_text(
                    handle, index, copy.assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteStatic)
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, index, arena.copy(raw), Int32(raw.count), sqliteStatic)
            }
        }
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
    }

    /// Binds each value in order, from parameter `first`.
    func bind(_ values: some Sequence<StoredValue>, from first: Int32 = 1) throws {
        var index = first
        for value in values {
            try bind(value, at: index)
            index += 1
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code: code, sql: sql)
        }
    }

    /// Runs the statement to completion with `values` bound, ignoring any rows.
    func run(_ values: [StoredValue] = []) throws {
        reset()
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    // MARK: Reading the current row (0-based columns)

    // Each column is read through its `sqlite3_value`, taken once: every `sqlite3_column_*`
    // call finds the column again, and a fetch asks each column its kind before its value
    // (about 60 instructions a call, 1.6k of a fetched row's 18k under callgrind). SQLite calls
    // the value it hands out "unprotected" (no mutex held for it), which changes nothing here:
    // connections are opened `SQLITE_OPEN_NOMUTEX`, so there is no connection mutex to hold,
    // and each is used by one thread at a time (see `SQLiteConnection`). It is valid until
    // the statement steps or resets, which no caller outlives.

    /// The value in `column` of the current row.
    @inline(__always)
    func cell(_ column: Int32) -> OpaquePointer {
        sqlite3_column_value(handle, column)
    }

    func column(_ column: Int32) -> StoredValue {
        let cell = cell(column)
        switch sqlite3_value_type(cell) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(cell))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(cell))
        case SQLITE_TEXT:
            return .text(Self.withText(of: cell) { String(decoding: $0, as: UTF8.self) })
        case SQLITE_BLOB:
            let raw = sqlite3_value_blob(cell)
            let count = Int(sqlite3_value_bytes(cell))
            guard count > 0, let raw else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: raw, count: count)))
        default:
            return .null
        }
    }

    /// Whether `column` holds `value`, as `column(column) == value` answers, without making a
    /// String where the text's bytes are the same: a re-import compares every column it
    /// decoded with its row, and nearly all hold what they held (making the Strings cost a
    /// quarter of stash-bench's re-import write). Other cases take `column(_:)`.
    func column(_ column: Int32, holds value: StoredValue) -> Bool {
        let cell = cell(column)
        switch (sqlite3_value_type(cell), value) {
        case (SQLITE_INTEGER, .integer(let integer)): return sqlite3_value_int64(cell) == integer
        case (SQLITE_FLOAT, .real(let real)): return sqlite3_value_double(cell) == real
        case (SQLITE_NULL, .null): return true
        case (SQLITE_TEXT, .text(var text)):
            let sameBytes = text.withUTF8 { expected in
                Self.withText(of: cell) { stored in
                    stored.count == expected.count
                        && (stored.isEmpty || memcmp(stored.baseAddress!, expected.baseAddress!, stored.count) == 0)
                }
            }
            // Other bytes: `StoredValue` compares text by its UTF-8 bytes, but stored bytes that
            // are not valid UTF-8 read as a repaired String, which the value may hold.
            if sameBytes { return true }
        default: break
        }
        return self.column(column) == value
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_value_type(cell(column)) == SQLITE_NULL
    }

    /// Adds `column`'s value to `digest` as `digest.add(column(column))` would, reading the
    /// value in place (see `RowDigest`).
    func digest(_ column: Int32, into digest: inout RowDigest) {
        let cell = cell(column)
        switch sqlite3_value_type(cell) {
        case SQLITE_INTEGER: digest.add(integer: sqlite3_value_int64(cell))
        case SQLITE_FLOAT: digest.add(real: sqlite3_value_double(cell))
        case SQLITE_TEXT: Self.withText(of: cell) { digest.add(text: UnsafeRawBufferPointer($0)) }
        case SQLITE_BLOB: digest.add(self.column(column))
        default: digest.addNull()
        }
    }

    /// The integer in `column`, `nil` when it holds anything else (NULL included).
    func integer(_ column: Int32) -> Int64? {
        let cell = cell(column)
        return sqlite3_value_type(cell) == SQLITE_INTEGER ? sqlite3_value_int64(cell) : nil
    }

    /// The floating-point number in `column`, `nil` when it holds anything else.
    func real(_ column: Int32) -> Double? {
        let cell = cell(column)
        return sqlite3_value_type(cell) == SQLITE_FLOAT ? sqlite3_value_double(cell) : nil
    }

    /// Calls `body` with the UTF-8 bytes of `column` if it holds text (not converted from
    /// another kind); `nil` otherwise.
    func withTextIfText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        let cell = cell(column)
        guard sqlite3_value_type(cell) == SQLITE_TEXT else { return nil }
        return Self.withText(of: cell, body)
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// Calls `body` with the UTF-8 bytes of a text column, valid only during the call.
    func withText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        Self.withText(of: cell(column), body)
    }

    func text(_ column: Int32) -> String {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with a value's bytes as UTF-8 text: the text first, then its length, as
    /// SQLite asks, so that a conversion does not move the bytes after they were measured.
    @inline(__always)
    private static func withText<Result>(
        of cell: OpaquePointer, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let bytes = sqlite3_value_text(cell)
        let count = Int(sqlite3_value_bytes(cell))
        return body(UnsafeBufferPointer(start: bytes ?? UnsafePointer(emptyBytes), count: bytes == nil ? 0 : count))
    }
}

/// Tells SQLite to copy bound text and blobs before the call returns. Computed, not a
/// global: a global's lazy initialization check would run on every bind.
private var sqliteTransient: sqlite3_destructor_type {
    @inline(__always) get { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}

/// Tells SQLite that bound text and blobs stay where they are until the statement is reset
/// or bound again (`BindArena`).
private var sqliteStatic: sqlite3_destructor_type? {
    @inline(__always) get { nil }
}

/// A non-null pointer for empty text and blobs: SQLite binds a null pointer as NULL.
/// `nonisolated(unsafe)`: it is allocated once and never written; SQLite reads no byte of it.
nonisolated(unsafe) private let emptyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
