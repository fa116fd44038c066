import CLibPQ
import Foundation
import Stash

/// A statement's whole result, freed with it: values as text (libpq's text format), or in
/// binary (`bigint` and `double precision` as 8 big-endian bytes, `text` and `bytea` as
/// their bytes).
// `@unchecked`: a result is read by the one caller that ran its statement.
final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer
    let isBinary: Bool

    init(_ handle: OpaquePointer, binary: Bool = false) {
        self.handle = handle
        isBinary = binary
    }

    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// The rows an `INSERT`, `UPDATE` or `DELETE` wrote.
    var affectedRows: Int { Self.affectedRows(of: handle) }

    /// The rows the command of `result` wrote, for a result not kept as a `PostgresResult`
    /// (a pipeline's).
    static func affectedRows(of result: OpaquePointer) -> Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) != 0
    }

    /// The value's text, valid while the result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8> {
        let pointer = PQgetvalue(handle, Int32(row), Int32(column))!
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
    }

    func integer(_ row: Int, _ column: Int) -> Int64 {
        guard isBinary else { return strtoll(PQgetvalue(handle, Int32(row), Int32(column)), nil, 10) }
        return Int64(bitPattern: bigEndianWord(row, column))
    }

    func real(_ row: Int, _ column: Int) -> Double {
        guard isBinary else { return strtod(PQgetvalue(handle, Int32(row), Int32(column)), nil) }
        return Double(bitPattern: bigEndianWord(row, column))
    }

    /// An 8-byte binary value (`int8`, `float8`).
    private func bigEndianWord(_ row: Int, _ column: Int) -> UInt64 {
        let value = bytes(row, column)
        precondition(value.count == 8, "a binary int8 or float8 is 8 bytes, not \(value.count)")
        return UInt64(bigEndian: UnsafeRawPointer(value.baseAddress!).loadUnaligned(as: UInt64.self))
    }

    func text(_ row: Int, _ column: Int) -> String {
        String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// `bytea`: its bytes in binary; in text, `\x` and two hex digits a byte.
    func blob(_ row: Int, _ column: Int) -> [UInt8] {
        if isBinary { return Array(bytes(row, column)) }
        let hex = bytes(row, column)
        guard hex.count >= 2 else { return [] }
        func nibble(_ digit: UInt8) -> UInt8 {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: digit - UInt8(ascii: "A") + 10
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((hex.count - 2) / 2)
        var index = 2
        while index + 1 < hex.count {
            bytes.append(nibble(hex[index]) << 4 | nibble(hex[index + 1]))
            index += 2
        }
        return bytes
    }

    /// The value as a stored value of `type` (the column's kind).
    func value(_ row: Int, _ column: Int, _ type: StoredType) -> StoredValue {
        if isNull(row, column) { return .null }
        switch type {
        case .integer: return .integer(integer(row, column))
        case .real: return .real(real(row, column))
        case .text: return .text(text(row, column))
        case .blob: return .blob(blob(row, column))
        }
    }
}

/// A row of a fetch: `_pk` in the result's first column, then the query's columns, each of
/// the kind its column has (a PostgreSQL column holds one type, unlike SQLite's).
final class PostgresRow: StoreRow {
    let result: PostgresResult
    let types: [StoredType]
    var row = 0

    init(_ result: PostgresResult, types: [StoredType]) {
        self.result = result
        self.types = types
    }

    var rowID: Int64 { result.integer(row, 0) }

    /// Whether `column` holds a value of `kind` (not NULL). A `switch`, not `==`: `StoredType`'s
    /// `==` is a call through a protocol witness from this module, about 12 instructions a read.
    private func isKind(_ kind: StoredType, _ column: Int) -> Bool {
        let matches =
            switch (types[column], kind) {
            case (.integer, .integer), (.real, .real), (.text, .text), (.blob, .blob): true
            default: false
            }
        return matches && !isNull(column)
    }

    func value(_ column: Int) -> StoredValue { result.value(row, column + 1, types[column]) }

    func isNull(_ column: Int) -> Bool { result.isNull(row, column + 1) }

    func integer(_ column: Int) -> Int64? {
        isKind(.integer, column) ? result.integer(row, column + 1) : nil
    }

    func real(_ column: Int) -> Double? {
        isKind(.real, column) ? result.real(row, column + 1) : nil
    }

    func text(_ column: Int) -> String? {
        isKind(.text, column) ? result.text(row, column + 1) : nil
    }

    func withUTF8<Result>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard isKind(.text, column) else { return nil }
        return body(result.bytes(row, column + 1))
    }
}
