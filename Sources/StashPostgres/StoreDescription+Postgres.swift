import Foundation
import Stash

extension StoreDescription {
    /// The PostgreSQL database at `url`, a libpq connection string or URI (TLS, passwords
    /// and connection timeouts go in it as libpq reads them).
    ///
    /// ```swift
    /// let server = try PersistentContainer(for: Post.self, store: .postgres("postgresql:///app?host=/run/pg"))
    /// ```
    ///
    /// `connections` is the most connections the container holds at once. `lockTimeout` is
    /// how long a save waits for another process's save (they take turns on one row) and
    /// opening waits for another process's migration, as PostgreSQL's `lock_timeout` on
    /// each connection; past it the save fails with `storeCode.isBusy` and writes nothing.
    public static func postgres(_ url: String, connections: Int = 4, lockTimeout: Duration = .seconds(5))
        -> StoreDescription
    {
        StoreDescription(url: nil) { schemas, schemaVersion in
            try PostgresStore(
                conninfo: url, entities: schemas, connections: connections, lockTimeout: lockTimeout,
                schemaVersion: schemaVersion)
        }
    }
}
