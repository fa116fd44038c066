import Foundation
import Stash
import StashREST
import Testing

/// Servers that lie or misbehave, and callers whose input would put something else on the
/// wire: pages in a cycle, 304s to anything, injected headers, trickled bodies.
@Suite struct RESTHostileServerTests {
    /// 70 rows stored before the sync, ids 1 to 70: what a sync must not delete on a
    /// failure.
    func seventyStoredItems(in container: PersistentContainer) throws {
        let context = ManagedObjectContext(container)
        for id in 1...70 {
            let item = Item(context: context)
            item.id = id
            item.title = "stored \(id)"
        }
        try context.save()
    }

    /// Pages 1, 2, 3, then 1 again: an error, not the end of the list, and the sync deletes
    /// nothing (it deleted the 70 rows no page held, and reported success).
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aPaginationCycleIsAnErrorAndTheSyncDeletesNothing(saving: FetchOptions.Saving) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        try seventyStoredItems(in: context.container)
        var options = FetchOptions()
        options.saving = saving
        let error = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetchReporting(
                [Item].self, from: "cycle?pages=3&page=1", into: context, options: options, deletingMissing: .all)
        }
        #expect(error?.code == .pageCycle)
        #expect(error?.url?.absoluteString.hasSuffix("/cycle?pages=3&page=3") == true)
        #expect(
            error?.message.hasPrefix("page 3 leads back to \(server.base.absoluteString)cycle?pages=3&page=1") == true)
        #expect(try await server.requests().map(\.path) == (1...3).map { "/cycle?pages=3&page=\($0)" })
        // Nothing deleted; page by page, the pages before the error are kept.
        let ids = try ManagedObjectContext(try store.container()).fetch(FetchDescriptor<Item>()).map(\.id).sorted()
        #expect(ids == Array(1...70) + (saving == .perPage ? Array(1000...1005) : []))
        #expect(!context.hasChanges)
    }
}
