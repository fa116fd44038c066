import Foundation

/// Where a container keeps its data, said the same way for every store: an SQLite file, a
/// private SQLite database in memory, or (from StashPostgres) a PostgreSQL database.
///
/// ```swift
/// let local = try PersistentContainer(for: Post.self, store: .file(url))
/// let scratch = try PersistentContainer(for: Post.self, store: .inMemory)
/// let server = try PersistentContainer(for: Post.self, store: .postgres("postgresql:///app"))  // import StashPostgres
/// ```
///
/// `lockTimeout` is how long a save (or a migration on open) waits for another process's
/// write to end before it fails with a store error whose `storeCode.isBusy` is true:
/// SQLite's busy timeout, PostgreSQL's `lock_timeout`.
public struct StoreDescription: Sendable {
    /// The store file, `nil` for a store in memory or one that is not a file.
    public let url: URL?
    /// Opens the store for the models' schemas (entities and join tables) and the model's
    /// `schemaVersion`: the seam another store builds on.
    package let open: @Sendable (_ schemas: [EntitySchema], _ schemaVersion: Int) throws -> any Store

    package init(
        url: URL?, open: @escaping @Sendable (_ schemas: [EntitySchema], _ schemaVersion: Int) throws -> any Store
    ) {
        self.url = url
        self.open = open
    }

    /// The SQLite file at `url`, created (with its directory) if missing. With `readOnly`,
    /// or when the file cannot be written, fetches work and a save fails with
    /// `readOnlyStore`.
    public static func file(_ url: URL, lockTimeout: Duration = .seconds(5), readOnly: Bool = false)
        -> StoreDescription
    {
        StoreDescription(url: url) { schemas, schemaVersion in
            guard url.isFileURL else {
                throw StashError(.storeFailed, "the store URL \(url) is not a file URL")
            }
            let directory = url.deletingLastPathComponent()
            if !FileManager.default.fileExists(atPath: directory.path) {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            return try SQLiteStore(
                path: url.path, entities: schemas, busyTimeout: lockTimeout, schemaVersion: schemaVersion,
                readOnly: readOnly)
        }
    }

    /// A private SQLite database in memory, gone with its container.
    public static var inMemory: StoreDescription {
        StoreDescription(url: nil) { schemas, schemaVersion in
            try SQLiteStore(path: nil, entities: schemas, busyTimeout: .seconds(5), schemaVersion: schemaVersion)
        }
    }
}
