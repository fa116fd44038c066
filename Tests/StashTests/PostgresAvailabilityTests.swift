import Foundation
import TestProcesses
import Testing

@testable import Stash

/// The `.bothStores` suites run on PostgreSQL only when a server is there; this test says so
/// once: disabled, with the reason, when there is none (and the suites then run on SQLite).
@Suite(.bothStores)
struct PostgresAvailabilityTests {
    @Test(
        .enabled(
            if: PostgresCluster.isAvailable,
            Comment(rawValue: "the .bothStores suites run on SQLite only: \(PostgresCluster.unavailableReason)")))
    func theBothStoresSuitesRunOnPostgreSQLToo() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let post = Post(context: context)
        post.id = 1
        post.userId = 2
        post.body = "body"
        post.title = "on \(StoreKind.current)"
        try context.save()
        let again = ManagedObjectContext(container)
        #expect(try again.fetch(FetchDescriptor<Post>()).map(\.title) == ["on \(StoreKind.current)"])
        #expect(container.storeURL == nil)
        // The run's store is the one it says it is.
        #expect(
            String(describing: type(of: container.store)).hasPrefix(
                StoreKind.current == .postgres ? "Postgres" : "SQLite"))
    }
}
