internal import CSQLite
import Foundation

/// How a store that cannot be written is opened, and why it is read-only.
///
/// A store in a directory Stash cannot write to cannot even be read the usual way: WAL needs
/// its `-wal` and `-shm` files beside it (`unable to open database file`, SQLite code 14). A
/// read-only file opens, but every write fails. Either way, and when asked
/// (`readOnly: true`), every connection opens the file through a `file:` URI with
/// `mode=ro`, or, when the `-shm` file cannot be made and there is no WAL content to miss,
/// `immutable=1` (no writer can change the file then: it would need a `-wal` file there).
/// Saves fail with `readOnlyStore`, naming the file and the reason.
struct ReadOnlyAccess: Sendable {
    /// The file's `file:` URL.
    let file: String
    /// Why: "as asked", "the file is read-only", "its directory cannot be written to".
    let reason: String
    /// Opened `immutable=1`: SQLite then looks for no change in the file at all.
    let isImmutable: Bool

    /// What every connection opens.
    var uri: String { file + (isImmutable ? "?immutable=1" : "?mode=ro") }

    /// The writer connection for `path`, and the read-only access when the store cannot be
    /// written (or `asked`).
    static func open(path: String, busyTimeout: Duration, asked: Bool) throws -> (SQLiteConnection, Self?) {
        var reason = "it was opened with readOnly: true"
        if !asked {
            do {
                let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
                if !connection.isReadOnly {
                    try probe(connection)
                    return (connection, nil)
                }
                reason = "the file is read-only"
            } catch let error as StashError where error.isCannotWrite && FileManager.default.fileExists(atPath: path) {
                reason = "its directory cannot be written to"
            }
        }
        let base = URL(fileURLWithPath: path).absoluteString
        let readOnly = ReadOnlyAccess(file: base, reason: reason, isImmutable: false)
        do {
            let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout, readOnly: readOnly)
            try probe(connection)
            return (connection, readOnly)
        } catch let error as StashError where error.isCannotWrite && !hasWALContent(path) {
            let immutable = ReadOnlyAccess(file: base, reason: reason, isImmutable: true)
            let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout, readOnly: immutable)
            try probe(connection)
            return (connection, immutable)
        }
    }

    /// A first read: in WAL mode it opens (or makes) the `-wal` and `-shm` files.
    private static func probe(_ connection: SQLiteConnection) throws {
        _ = try connection.integer("SELECT count(*) FROM sqlite_master")
    }

    private static func hasWALContent(_ path: String) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
        return (attributes?[.size] as? Int ?? 0) > 0
    }

    /// The error a save of a read-only store throws.
    func saveRefused(_ path: String, entity: String?) -> StashError {
        StashError(
            .readOnlyStore, "the store \(path) is read-only (\(reason)): nothing was saved", entity: entity)
    }
}

extension StashError {
    /// SQLite could not write, or could not make a file it needs to (SQLITE_READONLY and
    /// SQLITE_CANTOPEN, with their extended codes).
    var isCannotWrite: Bool {
        guard let code = sqliteCode else { return false }
        return code & 0xff == SQLITE_READONLY || code & 0xff == SQLITE_CANTOPEN
    }
}
