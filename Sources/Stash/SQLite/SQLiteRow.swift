/// The current row of a statement that selects `"_pk"` and then the query's columns, as
/// the `StoreRow` the layers above read. One reader serves every row of a query.
final class SQLiteRow: StoreRow {
    let statement: SQLiteStatement

    init(_ statement: SQLiteStatement) { self.statement = statement }

    var rowID: Int64 { statement.int64(0) }

    func value(_ column: Int) -> StoredValue { statement.column(Int32(truncatingIfNeeded: column &+ 1)) }

    func isNull(_ column: Int) -> Bool { statement.isNull(Int32(truncatingIfNeeded: column &+ 1)) }

    func integer(_ column: Int) -> Int64? { statement.integer(Int32(truncatingIfNeeded: column &+ 1)) }

    func real(_ column: Int) -> Double? { statement.real(Int32(truncatingIfNeeded: column &+ 1)) }

    func text(_ column: Int) -> String? {
        statement.withTextIfText(Int32(truncatingIfNeeded: column &+ 1)) { String(decoding: $0, as: UTF8.self) }
    }

    func withUTF8<Result>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        statement.withTextIfText(Int32(truncatingIfNeeded: column &+ 1), body)
    }

    /// One type test, then the value: through `withUTF8`'s generic closure and the other
    /// accessors a column cost about 500 instructions (checking a 20,000-row page's values,
    /// callgrind).
    func digest(_ column: Int, into digest: inout RowDigest) {
        statement.digest(Int32(truncatingIfNeeded: column &+ 1), into: &digest)
    }
}
