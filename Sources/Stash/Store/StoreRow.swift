/// One row a store query returns: its row id and its columns, in the query's column order.
///
/// The typed accessors let a codec read a column without building a `StoredValue` (a text
/// column read as a date never becomes a `String`); each returns `nil` when the column holds
/// another kind of value, and the codec then falls back to `value(_:)`.
package protocol StoreRow: AnyObject {
    var rowID: Int64 { get }
    func value(_ column: Int) -> StoredValue
    func isNull(_ column: Int) -> Bool
    func integer(_ column: Int) -> Int64?
    func real(_ column: Int) -> Double?
    func text(_ column: Int) -> String?
    /// Calls `body` with the UTF-8 bytes of a text column, valid only during the call.
    func withUTF8<Result>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result?
    /// Adds the column's value to `digest`, as `digest.add(value(column))` would: read in
    /// place, once (see `RowDigest`).
    func digest(_ column: Int, into digest: inout RowDigest)
}

extension StoreRow {
    /// Through the typed accessors, text first: most columns digested hold text.
    package func digest(_ column: Int, into digest: inout RowDigest) {
        if withUTF8(column, { digest.add(text: UnsafeRawBufferPointer($0)) }) != nil { return }
        if let integer = integer(column) { return digest.add(integer: integer) }
        if isNull(column) { return digest.addNull() }
        if let real = real(column) { return digest.add(real: real) }
        digest.add(value(column))
    }
}
