import Foundation
import Testing

@testable import Stash

@Suite(.bothStores) struct ParentDecodingTests {
    let items = json(#"[{"guid": "1", "title": "one"}, {"guid": "2", "title": "two"}]"#)

    func feedRows(_ file: URL) throws -> String {
        try sqliteShell(
            file,
            "SELECT coalesce(f.url, 'NULL'), e.guid, e.title, e.read FROM WindowEntry e "
                + "LEFT JOIN WindowFeed f ON f._pk = e.feed ORDER BY f.url, e.guid")
    }

    /// The issue's case: a feed's items fetched as a list named no feed, so each refresh made
    /// 25 more rows that belonged to none. As the parent's children they find their rows.
    @Test func childrenOfAParentAreMatchedWithTheParentFilledIn() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, storeURL: file)
        let setup = ManagedObjectContext(container)
        _ = try setup.decode([WindowFeed].self, from: json(#"[{"url": "a"}, {"url": "b"}]"#))
        try setup.save()
        for (round, url) in ["a", "b", "a"].enumerated() {
            let context = ManagedObjectContext(container)
            let feed = try context.fetch(FetchDescriptor<WindowFeed>(predicate: #Predicate { $0.url == url }))[0]
            let entries = try context.decode([WindowEntry].self, from: items, parent: feed, via: \.feed)
            #expect(entries.allSatisfy { $0.feed === feed })
            #expect(feed.items.map(\.guid) == ["1", "2"])
            if round == 0 { entries[1].read = true }
            try context.save()
        }
        #expect(try feedRows(file) == "a|1|one|0\na|2|two|1\nb|1|one|0\nb|2|two|0\n")
    }

    /// The parent may be new, and a single child decodes the same way; the JSON's own value
    /// for the relationship is not read.
    @Test func aNewParentAndOneChild() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, storeURL: file)
        let context = ManagedObjectContext(container)
        let feed = WindowFeed(context: context)
        feed.url = "new"
        let entry = try context.decode(
            WindowEntry.self, from: json(#"{"guid": "9", "feed": {"url": "elsewhere"}}"#), parent: feed, via: \.feed)
        #expect(entry.feed === feed)
        try context.save()
        #expect(try feedRows(file) == "new|9||0\n")
        #expect(try sqliteShell(file, "SELECT url FROM WindowFeed") == "new\n")
    }

    /// A failed decode leaves nothing, and the decoder the caller passed is not changed.
    @Test func allOrNothingAndTheDecoderIsLeftAsItWas() throws {
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let feed = WindowFeed(context: context)
        feed.url = "f"
        try context.save()
        let decoder = JSONDecoder()
        let bad = json(#"[{"guid": "1"}, {"guid": 2}]"#)
        #expect(throws: StashError.self) {
            _ = try context.decode([WindowEntry].self, from: bad, using: decoder, parent: feed, via: \.feed)
        }
        #expect(!context.hasChanges)
        #expect(feed.items.isEmpty)
        #expect(decoder.userInfo[.managedObjectContext] == nil)
        // Without a parent, the children are decoded as before: they name no feed.
        let orphans = try context.decode([WindowEntry].self, from: items, using: decoder)
        #expect(orphans.allSatisfy { $0.feed == nil })
    }

    /// A parent of another context is refused, naming it.
    @Test func aParentOfAnotherContextIsRefused() throws {
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, inMemory: true)
        let other = ManagedObjectContext(container)
        let feed = WindowFeed(context: other)
        feed.url = "f"
        try other.save()
        let context = ManagedObjectContext(container)
        let error = #expect(throws: StashError.self) {
            _ = try context.decode([WindowEntry].self, from: items, parent: feed, via: \.feed)
        }
        #expect(error?.message.contains("existingObject(with:)") == true)
        #expect(!context.hasChanges)
    }

    /// Two contexts decoding with one decoder at once each get their own objects (the call
    /// used to put its context into the caller's decoder's `userInfo`).
    @Test func oneDecoderServesTwoContextsAtOnce() async throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        let decoder = JSONDecoder()
        let strays = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        var strays = 0
                        for _ in 0..<50 {
                            let posts = try context.decode([Post].self, from: postsJSON(count: 20), using: decoder)
                            strays += posts.filter { $0.managedObjectContext !== context }.count
                        }
                        return strays
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        // Every object decoded is its own context's.
        #expect(strays == 0)
        #expect(decoder.userInfo.isEmpty)
    }
}
