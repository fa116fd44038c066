import Foundation
import Stash

/// One PostgreSQL run of a test body: the schemas its containers opened, by the store
/// they stand for, so that a test reopening a file reopens its schema; dropped when the
/// run ends.
final class PostgresRun: Sendable {
    @TaskLocal static var current: PostgresRun?

    /// Database URL by store file path.
    private let byPath = Locked<[String: String]>([:])
    private let created = Locked<[String]>([])

    /// The database standing for the SQLite file at `path`, made the first time.
    func database(for path: String) throws -> String {
        try byPath.withLock { byPath in
            if let url = byPath[path] { return url }
            let url = try newDatabase()
            byPath[path] = url
            return url
        }
    }

    /// A new empty database: what an in-memory store is.
    func newDatabase() throws -> String {
        let (name, url) = try PostgresDatabases.create()
        created.withLock { $0.append(name) }
        return url
    }

    func dropDatabases() {
        PostgresDatabases.drop(created.withLock { $0 })
    }
}
