import Foundation
import Stash

extension FeedLibrary {
    /// Runs `body` in a background context, again (at most three times in all) when its
    /// save met a row another process wrote meanwhile under the same unique key: two `feeds`
    /// processes adding or refreshing one feed at once. The next try reads that row first.
    ///
    /// Stash matches a new object to a stored row by its own unique values at the save, but
    /// not yet a new entry whose composite key holds a feed that was itself matched there;
    /// until it does, the write is retried here.
    func writing<Result: Sendable>(_ body: @escaping @Sendable (ManagedObjectContext) throws -> Result) async throws
        -> Result
    {
        var attempt = 1
        while true {
            do {
                return try await container.performBackgroundTask(body)
            } catch let error as StashError where attempt < 3 && Self.isUniqueRace(error) {
                attempt += 1
            }
        }
    }

    /// A save that failed on a unique constraint: the store's unique index (SQLite's 2067,
    /// PostgreSQL's 23505) or Stash's own unique conflict.
    static func isUniqueRace(_ error: StashError) -> Bool {
        error.code == .uniqueConflict || error.storeCode?.isUniqueViolation == true
    }
}
