import Foundation
import Testing

@testable import Stash

/// A channel's items are unique by channel and guid: two channels may share a guid.
final class Channel: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Item.channel) var items: [Item]
}

final class Item: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var channel: Channel?
    @Attribute var guid: String
    @Attribute var title: String = ""

    static var uniqueConstraints: [[PartialKeyPath<Item>]] { [[\.channel, \.guid]] }
}

/// The same entities before the constraint was declared.
enum ChannelsV1 {
    final class Channel: ManagedObject, Decodable {
        @Attribute(.unique) var url: String
        @Attribute var title: String = ""
        @Relationship(inverse: \Item.channel) var items: [Item]
    }

    final class Item: ManagedObject, Decodable {
        @Relationship var channel: Channel?
        @Attribute var guid: String
        @Attribute var title: String = ""
    }
}

@Suite(.bothStores) struct CompositeUniqueTests {
    func container(at file: URL) throws -> PersistentContainer {
        try testContainer(for: Item.self, Channel.self, storeURL: file)
    }

    /// Two channels whose items share guids, nested as a feed reader gets them.
    let channels = json(
        #"""
        [{"url": "a", "title": "A", "items": [{"guid": "1", "title": "A1"}, {"guid": "2", "title": "A2"}]},
         {"url": "b", "title": "B", "items": [{"guid": "1", "title": "B1"}]}]
        """#)

    /// A store in `directory` holding the two channels and their items.
    func savedChannels(in directory: TemporaryDirectory) throws -> URL {
        let file = directory.file()
        let context = ManagedObjectContext(try container(at: file))
        _ = try recipeDecoder(context).decode([Channel].self, from: channels)
        try context.save()
        return file
    }

    func items(_ file: URL) throws -> String {
        try sqliteShell(
            file, "SELECT c.url, i.guid, i.title FROM Item i JOIN Channel c ON c._pk = i.channel ORDER BY c.url, i.guid"
        )
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func nestedItemsAreUniquePerChannelAndReimportWritesNothing() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        let context = ManagedObjectContext(try container(at: file))
        _ = try recipeDecoder(context).decode([Channel].self, from: channels)
        try context.save()
        #expect(try items(file) == "a|1|A1\na|2|A2\nb|1|B1\n")
        #expect(
            try sqliteShell(file, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'Item_%unique'")
                == "Item_channel_guid_unique\n")

        // The same payload again, in a new context and in the same one: nothing to write.
        let watcher = try container(at: file)
        let token = try watcher.store.changeToken()
        let fresh = ManagedObjectContext(try container(at: file))
        _ = try recipeDecoder(fresh).decode([Channel].self, from: channels)
        try fresh.save()
        _ = try recipeDecoder(context).decode([Channel].self, from: channels)
        try context.save()
        #expect(try watcher.store.changeToken() == token)

        // A changed title and a new item: the row is updated, one is added.
        let changed = json(
            #"[{"url": "a", "items": [{"guid": "2", "title": "A2 again"}, {"guid": "1", "title": "A1"}, {"guid": "3", "title": "A3"}]}]"#
        )
        let again = ManagedObjectContext(try container(at: file))
        let decoded = try recipeDecoder(again).decode([Channel].self, from: changed)
        #expect(decoded[0].items.map(\.guid) == ["2", "1", "3"])
        try again.save()
        #expect(try items(file) == "a|1|A1\na|2|A2 again\na|3|A3\nb|1|B1\n")
        let reopened = ManagedObjectContext(try container(at: file))
        let a = try #require(
            try reopened.fetch(FetchDescriptor<Channel>(predicate: #Predicate { $0.url == "a" })).first)
        #expect(a.items.map(\.guid) == ["2", "1", "3"])
    }

    @Test func flatItemsNameTheirChannelByReference() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let flat = json(
            #"[{"channel": "b", "guid": "1", "title": "B1 edited"}, {"channel": "a", "guid": "1", "title": "A1"}, {"channel": "b", "guid": "1", "title": "B1 last"}]"#
        )
        let other = ManagedObjectContext(try container(at: file))
        let decoded = try recipeDecoder(other).decode([Item].self, from: flat)
        // One object per (channel, guid), whichever way it is reached.
        #expect(decoded[0] === decoded[2])
        #expect(decoded[0].title == "B1 last")
        try other.save()
        #expect(try items(file) == "a|1|A1\na|2|A2\nb|1|B1 last\n")
    }

    @Test func anObjectMadeInCodeUpdatesTheStoredRow() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)

        let other = ManagedObjectContext(try container(at: file))
        let b = try #require(try other.fetch(FetchDescriptor<Channel>(predicate: #Predicate { $0.url == "b" })).first)
        #expect(b.items.count == 1)
        let item = Item(context: other)
        item.guid = "1"
        item.title = "B1 from code"
        item.channel = b
        let twin = Item(context: other)
        twin.guid = "9"
        twin.title = "new"
        twin.channel = b
        try other.save()
        #expect(try items(file) == "a|1|A1\na|2|A2\nb|1|B1 from code\nb|9|new\n")
        #expect(b.items.map(\.guid) == ["1", "9"])
        #expect(item.title == "B1 from code")
    }

    @Test func aRowWhoseKeyMovedInMemoryIsNotTheHolder() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let other = ManagedObjectContext(try container(at: file))
        let a = try #require(try other.fetch(FetchDescriptor<Channel>(predicate: #Predicate { $0.url == "a" })).first)
        let old = try #require(a.items.first { $0.guid == "1" })
        old.guid = "9"
        let item = Item(context: other)
        item.guid = "1"
        item.title = "fresh"
        item.channel = a
        try other.save()
        #expect(try items(file) == "a|1|fresh\na|2|A2\na|9|A1\nb|1|B1\n")
        #expect(old.guid == "9")
    }

    @Test func aFailedSaveUndoesTheStandIn() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let other = ManagedObjectContext(try container(at: file))
        let b = try #require(try other.fetch(FetchDescriptor<Channel>(predicate: #Predicate { $0.url == "b" })).first)
        let item = Item(context: other)
        item.guid = "1"
        item.title = "B1 from code"
        item.channel = b
        let broken = Item(context: other)
        broken.channel = b  // no guid: the save fails
        #expect(throws: StashError.self) { try other.save() }
        #expect(item.state == .inserted)
        #expect(item.title == "B1 from code")
        // Both new objects thrown away: the stored item stays.
        other.delete(item)
        other.delete(broken)
        try other.save()
        #expect(try items(file) == "a|1|A1\na|2|A2\nb|1|B1\n")
    }

    @Test func twoContextsMakingTheSameItemSaveOneRow() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let payload = json(#"[{"channel": "a", "guid": "7", "title": "first"}]"#)
        let one = ManagedObjectContext(try container(at: file))
        let two = ManagedObjectContext(try container(at: file))
        _ = try recipeDecoder(one).decode([Item].self, from: payload)
        _ = try recipeDecoder(two).decode(
            [Item].self, from: json(#"[{"channel": "a", "guid": "7", "title": "second"}]"#))
        try one.save()
        // The second finds the first's row at its save and updates it, rather than break the index.
        try two.save()
        #expect(try items(file) == "a|1|A1\na|2|A2\na|7|second\nb|1|B1\n")
    }

    @Test func canonicallyEquivalentGuidsAreTwoItems() throws {
        // Unique text is its bytes, as for `.unique`: precomposed é and e + U+0301 differ.
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let context = ManagedObjectContext(try container(at: file))
        _ = try recipeDecoder(context).decode(
            [Item].self,
            from: json(
                #"[{"channel": "a", "guid": "caf\u00e9"}, {"channel": "a", "guid": "cafe\u0301"}, {"channel": "a", "guid": "caf\u00e9"}]"#
            ))
        try context.save()
        #expect(try sqliteShell(file, "SELECT count(*) FROM Item WHERE guid LIKE 'caf%'") == "2\n")
    }

    @Test func theFailPolicyNamesTheConstraint() throws {
        let directory = try TemporaryDirectory()
        let file = try savedChannels(in: directory)
        let strict = ManagedObjectContext(try container(at: file))
        strict.mergePolicy = .fail
        #expect {
            _ = try recipeDecoder(strict).decode([Item].self, from: json(#"[{"channel": "a", "guid": "2"}]"#))
        } throws: { error in
            let error = error as? StashError
            return error?.code == .uniqueConflict && error?.entity == "Item"
                && error?.message.contains("(channel, guid) together") == true
        }
        #expect(try items(file) == "a|1|A1\na|2|A2\nb|1|B1\n")
    }

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func aStoreThatBreaksANewConstraintIsRefusedAndKept() throws
    {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        do {
            let context = ManagedObjectContext(
                try testContainer(for: ChannelsV1.Item.self, ChannelsV1.Channel.self, storeURL: file))
            _ = try recipeDecoder(context).decode(
                [ChannelsV1.Channel].self,
                from: json(#"[{"url": "a", "items": [{"guid": "1", "title": "x"}, {"guid": "1", "title": "y"}]}]"#))
            try context.save()
        }
        #expect {
            _ = try container(at: file)
        } throws: { error in
            let error = error as? StashError
            return error?.entity == "Item"
                && error?.message.contains("cannot make (channel, guid) unique together") == true
        }
        #expect(try sqliteShell(file, "SELECT guid, title FROM Item ORDER BY title") == "1|x\n1|y\n")
        // Once the duplicate is gone, the constraint is made.
        _ = try sqliteShellWriting(file, "DELETE FROM Item WHERE title = 'y'")
        _ = try container(at: file)
        #expect(
            try sqliteShell(file, "SELECT count(*) FROM sqlite_master WHERE name = 'Item_channel_guid_unique'") == "1\n"
        )
    }

    @Test func aConstraintOfOneAttributeIsRefused() throws {
        #expect {
            _ = try testContainer(for: Lonely.self, inMemory: true)
        } throws: { error in
            (error as? StashError)?.code == .invalidModel && (error as? StashError)?.entity == "Lonely"
        }
    }
}

final class Lonely: ManagedObject, Decodable, CompositeUniqueModel {
    @Attribute var code: String

    static var uniqueConstraints: [[PartialKeyPath<Lonely>]] { [[\.code]] }
}
