import CLibPQ
import Foundation
import Stash

/// One libpq connection: runs a statement with bound parameters and answers its whole
/// result (`PostgresResult`).
///
/// Every value is a parameter (`$1`), typed by its kind (`int8`, `float8`, `text`, `bytea`;
/// NULL left for the server to infer), never spliced into the SQL text.
// `@unchecked`: `OpaquePointer` is not Sendable; `PostgresPool` lends a connection to one
// caller at a time, so it is never used from two threads at once.
final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer

    /// `lockTimeout`, when given, is how long a statement waits for a lock another
    /// connection holds (the writer row of `_stash_commits`, the migration's advisory lock)
    /// before it fails with SQLSTATE 55P03.
    init(_ conninfo: String, lockTimeout: Duration? = nil) throws {
        guard let handle = PQconnectdb(conninfo) else {
            throw StashError(.storeFailed, "cannot connect to PostgreSQL: libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw StashError(.storeFailed, "cannot connect to PostgreSQL: \(message)")
        }
        self.handle = handle
        // Notices (`CREATE TABLE IF NOT EXISTS` of a table that exists) are not errors.
        _ = try execute("SET client_min_messages = warning")
        if let lockTimeout {
            let (seconds, attoseconds) = lockTimeout.components
            let milliseconds = max(seconds * 1000 + attoseconds / 1_000_000_000_000_000, 1)
            _ = try execute("SET lock_timeout = \(milliseconds)")
        }
    }

    deinit { PQfinish(handle) }

    /// The connection is gone (the server restarted, the network dropped): the pool makes
    /// a new one rather than lend this one again.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Where the connection goes, for messages: `database app on /run/pg`.
    var place: String {
        let database = PQdb(handle).map { String(cString: $0) } ?? "?"
        let host = PQhost(handle).map { String(cString: $0) } ?? "?"
        return "database \(database) on \(host)"
    }

    /// Runs `sql` with `parameters` as `$1`, `$2`, …; the result's values come as text, or
    /// in binary with `binary` (a fetch's, whose columns are all `bigint`, `double
    /// precision`, `text` or `bytea`: no number is parsed from text).
    @discardableResult
    func execute(_ sql: String, _ parameters: [StoredValue] = [], binary: Bool = false) throws -> PostgresResult {
        let result: OpaquePointer? = try withParameters(parameters) { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, binary ? 1 : 0)
        }
        guard let result else { throw failure(nil, sql) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            defer { PQclear(result) }
            throw failure(result, sql)
        }
        return PostgresResult(result, binary: binary)
    }

    /// Runs statements that answer no rows (a save's batches of INSERTs, its UPDATEs) in
    /// pipeline mode: every one is sent before the first answer is read, so the server works
    /// while the next is built and sent, and a save of 10,000 changed rows waits for one round
    /// trip, not 10,000. The first failure is thrown once the pipeline is drained; the ones
    /// after it were not run (the save's transaction rolls back). Answers how many rows each
    /// statement changed.
    @discardableResult
    func executePipelined(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [Int] {
        guard statements.count > 1 else {
            return try statements.map { try execute($0.sql, $0.parameters).affectedRows }
        }
        guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, statements[0].sql) }
        var sent = 0
        var refused: Error?
        for statement in statements {
            let queued: Int32
            do {
                queued = try withParameters(statement.parameters) { count, types, values, lengths, formats in
                    PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
                }
            } catch {
                // A value refused before sending: drain what was sent, then throw it.
                refused = error
                break
            }
            guard queued == 1 else { break }
            sent += 1
        }
        _ = PQpipelineSync(handle)
        var firstError: StashError?
        var affected = Array(repeating: 0, count: statements.count)
        for offset in 0..<sent {
            // Each statement's results, then a NULL.
            while let result = PQgetResult(handle) {
                let status = PQresultStatus(result)
                if firstError == nil, status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK {
                    firstError = failure(result, statements[offset].sql)
                }
                if status == PGRES_COMMAND_OK { affected[offset] = PostgresResult.affectedRows(of: result) }
                PQclear(result)
            }
        }
        while let result = PQgetResult(handle) {
            let isSync = PQresultStatus(result) == PGRES_PIPELINE_SYNC
            PQclear(result)
            if isSync { break }
        }
        _ = PQexitPipelineMode(handle)
        if let firstError { throw firstError }
        if let refused { throw refused }
        if sent < statements.count { throw failure(nil, statements[sent].sql) }
        return affected
    }

    /// Calls `body` with the parameters as libpq takes them: typed by kind (`int8`,
    /// `float8`, `text`; `bytea` in binary), NULL untyped for the server to infer.
    ///
    /// PostgreSQL's text cannot hold U+0000 (SQLite's can): such a value is refused, never
    /// cut short at the NUL as a C string would be.
    private func withParameters<Result>(
        _ parameters: [StoredValue],
        _ body: (Int32, [Oid], UnsafePointer<UnsafePointer<CChar>?>?, [Int32], [Int32]) -> Result
    ) throws -> Result {
        var types: [Oid] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var values: [UnsafeMutablePointer<CChar>?] = []
        types.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        values.reserveCapacity(parameters.count)
        defer { for value in values { free(value) } }
        for parameter in parameters {
            switch parameter {
            case .null:
                types.append(0)
                values.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let integer):
                types.append(20)
                values.append(strdup(String(integer)))
                lengths.append(0)
                formats.append(0)
            case .real(let real):
                types.append(701)
                values.append(strdup("\(real)"))
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                if text.utf8.contains(0) {
                    throw StashError(
                        .invalidValue, "PostgreSQL cannot store text holding U+0000 (NUL); nothing was written")
                }
                types.append(25)
                values.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            case .blob(let bytes):
                // Binary format: the bytes as they are.
                types.append(17)
                let copy = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { buffer in
                    if let base = buffer.baseAddress { memcpy(copy, base, bytes.count) }
                }
                values.append(copy)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        return values.withUnsafeBufferPointer { valueBuffer in
            valueBuffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constValues in
                body(Int32(parameters.count), types, constValues.baseAddress, lengths, formats)
            }
        }
    }

    /// The error for a failed statement: what the server said and where, the SQLSTATE
    /// (`23505` a unique value taken, `23502` a NULL in a required column, `23503` a
    /// relationship to a missing row, `40001` a serialization failure), or a lost connection.
    /// Bound values stay out of it (they may be private data), as in SQLite's errors.
    private func failure(_ result: OpaquePointer?, _ sql: String) -> StashError {
        func field(_ code: Int32) -> String? {
            guard let result, let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        if isBroken || result == nil {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            var error = StashError(.storeFailed, "the connection to PostgreSQL was lost: \(message)")
            error.storeCode = .sqlstate("08006")  // connection_failure: libpq has no answer from the server
            error.sql = sql
            return error
        }
        let state = field(STASH_PG_DIAG_SQLSTATE) ?? "?"
        let primary = field(STASH_PG_DIAG_MESSAGE_PRIMARY) ?? "failed"
        let table = field(STASH_PG_DIAG_TABLE_NAME)
        let constraint = field(STASH_PG_DIAG_CONSTRAINT_NAME)
        var column = field(STASH_PG_DIAG_COLUMN_NAME)
        let text: String
        switch state {
        case "23505":
            // Stash names unique indexes `<table>_<columns>_unique`.
            if column == nil, let constraint, let table, constraint.hasPrefix(table + "_"),
                constraint.hasSuffix("_unique")
            {
                column = String(constraint.dropFirst(table.count + 1).dropLast("_unique".count))
            }
            text = "a unique value is already stored (constraint \(constraint ?? "?"))"
        case "23502":
            text = "a required value is missing: \(primary)"
        case "23503":
            text = "a relationship names a row that is not stored (constraint \(constraint ?? "?"))"
        case "55P03":
            text =
                "another connection held a lock for longer than the store's lockTimeout (\(primary)); nothing was saved"
        case "40001", "40P01":
            text = "PostgreSQL aborted the transaction to keep another one consistent (\(primary)); nothing was saved"
        default:
            text = primary
        }
        var error = StashError(.storeFailed, text, entity: table, attribute: column)
        if state != "?" { error.storeCode = .sqlstate(state) }
        error.sql = sql
        return error
    }
}
