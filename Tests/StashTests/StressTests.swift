import Foundation
import Stash
import Testing

/// Background contexts importing overlapping payloads while the main context fetches and
/// observes: nothing lost, nothing duplicated, no error.
@Suite(.bothStores) struct StressTests {
    static let importers = 4
    static let rounds = 250
    static let idSpace = 300

    /// The posts importer `importer` sends in round `round`: 40 ids that overlap the others'.
    static func payload(importer: Int, round: Int) -> Data {
        let first = (importer * 37 + round * 11) % (idSpace - 40) + 1
        return postsJSON(count: 40, firstID: first, titlePrefix: "importer \(importer) round \(round):")
    }

    /// Four importers, each in a background context of its own, then every id once more.
    static func importAll(into container: PersistentContainer) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for importer in 0..<importers {
                group.addTask {
                    let context = container.newBackgroundContext()
                    for round in 0..<rounds {
                        try await context.perform {
                            _ = try context.decode(
                                [Post].self, from: payload(importer: importer, round: round), using: JSONDecoder())
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await container.performBackgroundTask { context in
            _ = try recipeDecoder(context).decode([Post].self, from: postsJSON(count: idSpace, titlePrefix: "final"))
            try context.save()
        }
    }

    @MainActor
    @Test func backgroundImportsWhileTheMainContextReads() async throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Post.self, storeURL: directory.file())
        let main = container.mainContext
        let watcher = Task { @MainActor in
            var deliveries = 0
            var largest = 0
            for try await posts in main.observe(FetchDescriptor<Post>()) {
                deliveries += 1
                largest = max(largest, posts.count)
                #expect(Set(posts.map(\.id)).count == posts.count, "a fetch returned one id twice")
                if posts.count == Self.idSpace { break }
            }
            return (deliveries, largest)
        }
        let reader = Task { @MainActor in
            // The main context reads all along.
            for _ in 0..<200 {
                let posts = try main.fetch(FetchDescriptor<Post>())
                #expect(Set(posts.map(\.id)).count == posts.count)
                await Task.yield()
            }
        }
        try await Self.importAll(into: container)
        try await reader.value
        let (deliveries, largest) = try await watcher.value
        #expect(deliveries > 1 && largest == Self.idSpace)
        #expect(
            try sqliteShell(directory.file(), "SELECT count(*), count(DISTINCT id) FROM Post")
                == "\(Self.idSpace)|\(Self.idSpace)\n")
        #expect(try main.fetchCount(FetchDescriptor<Post>()) == Self.idSpace)
        // The main context's objects caught up with the last saves.
        let stored = try sqliteShell(directory.file(), "SELECT id, title FROM Post ORDER BY id")
        let shown = try main.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)])).map { "\($0.id)|\($0.title)" }
        #expect(shown.joined(separator: "\n") + "\n" == stored)
    }
}
