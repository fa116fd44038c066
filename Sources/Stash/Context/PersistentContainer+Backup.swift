import Foundation

extension PersistentContainer {
    /// Writes a copy of the store to `copyURL` while it stays open: SQLite's online backup,
    /// the last committed state with what is still in the WAL file, as one file that opens
    /// on its own. Copying `store.sqlite` by hand while a container has it open can miss
    /// every recent save (they live in `store.sqlite-wal` until a checkpoint).
    ///
    /// ```swift
    /// try container.backup(to: backups.appendingPathComponent("store.sqlite"))
    /// ```
    ///
    /// A file already at `copyURL` is replaced if it is a Stash store or empty; any other is
    /// refused (`foreignStore`) untouched. An in-memory container's store can be saved to a
    /// file this way too.
    public func backup(to copyURL: URL) throws {
        guard copyURL.isFileURL else {
            throw StashError(.storeFailed, "the backup URL \(copyURL) is not a file URL")
        }
        try FileManager.default.createDirectory(
            at: copyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try store.backup(to: copyURL.path)
    }
}
