import Foundation
import Stash

extension PersistentContainer {
    /// Opens the PostgreSQL database at `url` (a libpq connection string or URI: TLS,
    /// passwords and timeouts go in it as libpq reads them) for these model classes,
    /// creating their tables if the database has none: the same as
    /// `store: .postgres(url, connections: connections)`.
    ///
    /// ```swift
    /// import StashPostgres
    /// let server = try PersistentContainer(for: Post.self, User.self, postgres: "postgresql:///app?host=/run/pg")
    /// ```
    ///
    /// `connections` is the most connections the container holds at once: contexts that
    /// fetch or save while all are busy wait for one. Saves from every process take turns
    /// (see `PostgresStore`); reads never wait for them.
    public convenience init(for types: ManagedObject.Type..., postgres url: String, connections: Int = 4) throws {
        try self.init(types: types, store: .postgres(url, connections: connections))
    }
}
