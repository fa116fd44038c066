import CLibPQ
import Foundation
import Stash

/// A statement's whole result, values as text (libpq's text format), freed with it.
// `@unchecked`: a result is read by the one caller that ran its statement.
final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

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
        strtoll(PQgetvalue(handle, Int32(row), Int32(column)), nil, 10)
    }

    func real(_ row: Int, _ column: Int) -> Double {
        strtod(PQgetvalue(handle, Int32(row), Int32(column)), nil)
    }

    func text(_ row: Int, _ column: Int) -> String {
        String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// `bytea` in its text form, `\x` and two hex digits a byte.
    func blob(_ row: Int, _ column: Int) -> [UInt8] {
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

    func value(_ column: Int) -> StoredValue { result.value(row, column + 1, types[column]) }

    func isNull(_ column: Int) -> Bool { result.isNull(row, column + 1) }

    func integer(_ column: Int) -> Int64? {
        types[column] == .integer && !isNull(column) ? result.integer(row, column + 1) : nil
    }

    func real(_ column: Int) -> Double? {
        types[column] == .real && !isNull(column) ? result.real(row, column + 1) : nil
    }

    func text(_ column: Int) -> String? {
        types[column] == .text && !isNull(column) ? result.text(row, column + 1) : nil
    }

    func withUTF8<Result>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard types[column] == .text, !isNull(column) else { return nil }
        return body(result.bytes(row, column + 1))
    }
}
