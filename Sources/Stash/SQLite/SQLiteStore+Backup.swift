internal import CSQLite
import Foundation

extension SQLiteStore {
    /// Copies the whole store to `path` with SQLite's online backup API: one read
    /// transaction on a reader connection, so the copy is the last committed state, the WAL's
    /// content included, and saves go on meanwhile. The copy is one file, needing no `-wal`.
    ///
    /// `path` must not be the store itself, and a file already there must be a Stash store
    /// (it is replaced) or empty: another app's file is refused untouched.
    func backup(to path: String) throws {
        if let storePath = self.path,
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
                == URL(fileURLWithPath: storePath).standardizedFileURL.resolvingSymlinksInPath().path
        {
            throw StashError(.storeFailed, "cannot back \(storePath) up onto itself")
        }
        let destination = try SQLiteConnection(path: path, busyTimeout: .seconds(5))
        _ = try StoreFile.inspect(destination, path: path, entities: [])
        try withReader { source in
            guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
                var error = destination.error(code: sqlite3_errcode(destination.handle), sql: nil)
                error = StashError(.storeFailed, "cannot back the store up to \(path): \(error.message)")
                throw error
            }
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                let code = step == SQLITE_DONE ? finish : step
                var error = StashError(
                    .storeFailed,
                    "cannot back the store up to \(path): \(String(cString: sqlite3_errstr(code)))")
                error.sqliteCode = code
                throw error
            }
        }
    }

    /// Copies every WAL frame into the main file and empties the WAL (`TRUNCATE`), so a
    /// closed store is its one file. Called as the store closes, so it never waits: with no
    /// busy timeout, a writer or a reader of another process in the middle of its work makes
    /// it copy what it can (as a PASSIVE checkpoint does) and leave the rest for later.
    func checkpoint() {
        _ = try? withConnection { connection in
            sqlite3_busy_timeout(connection.handle, 0)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
