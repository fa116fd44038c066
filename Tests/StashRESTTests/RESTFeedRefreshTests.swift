import Foundation
import Stash
import StashREST
import Testing

/// A feed whose items are a window: JSON Feed's shape.
final class Subscription: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Headline.feed, key: "items", decoding: .merge)
    var headlines: [Headline]
}

final class Headline: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var feed: Subscription?
    @Attribute var id: String
    @Attribute var title: String = ""
    @Attribute var read: Bool = false

    static var uniqueConstraints: [[PartialKeyPath<Headline>]] { [[\.feed, \.id]] }
}

/// What an app written as the README shows meets on its second refresh, and its third.
@Suite struct RESTFeedRefreshTests {
    func container(_ store: TemporaryStore) throws -> PersistentContainer {
        try PersistentContainer(for: Subscription.self, Headline.self, storeURL: store.file)
    }

    func itemsJSON(_ ids: ClosedRange<Int>, title: String = "Item") -> String {
        "[" + ids.map { #"{"id": "\#($0)", "title": "\#(title) \#($0)"}"# }.joined(separator: ", ") + "]"
    }

    func rows(_ store: TemporaryStore) throws -> String {
        try store.sqlite(
            "SELECT f.url, h.id, h.read FROM Headline h JOIN Subscription f ON f._pk = h.feed ORDER BY f.url, h.id + 0")
    }

    /// The issue's case: a feed's items fetched as a plain list belonged to no feed, and the
    /// README's scoped sync replaced the feed's whole history. As the feed's children they
    /// find their rows, keep their flags, and a sync deletes only this feed's missing items.
    @Test func aFeedsItemsAreItsChildrenAndASyncIsScopedToThem() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try container(store)
        let context = ManagedObjectContext(container)
        for url in ["a", "b"] {
            let feed = Subscription(context: context)
            feed.url = url
        }
        try context.save()
        let feeds = try context.fetch(FetchDescriptor<Subscription>(sortBy: [SortDescriptor(\.url)]))
        let api = testClient(server)
        for feed in feeds {
            _ = try await api.fetch(
                [Headline].self, from: bodyPath(itemsJSON(1...3)), into: context, parent: feed, via: \.feed)
        }
        let second = try context.fetch(FetchDescriptor<Headline>()).first { $0.feed === feeds[0] && $0.id == "2" }
        second?.read = true
        try context.save()
        // The window moves on: 2…4. A sync of feed a deletes a's item 1, and nothing of b's.
        let result = try await api.fetchReporting(
            [Headline].self, from: bodyPath(itemsJSON(2...4)), into: context, parent: feeds[0], via: \.feed,
            deletingMissing: .all)
        #expect(result.report.inserted == 1)
        #expect(result.report.deleted == 1)
        #expect(result.value.allSatisfy { $0.feed === feeds[0] })
        #expect(try rows(store) == "a|2|1\na|3|0\na|4|0\nb|1|0\nb|2|0\nb|3|0")
    }

    /// A feed document with its items nested, and a `next_url` to older items: one call, one
    /// report, every page's items merged into the feed, the user's flag kept.
    @Test func aFeedDocumentWithNestedItemsAndANextURL() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try container(store))
        let older = bodyPath(#"{"url": "f", "items": \#(itemsJSON(4...5))}"#)
        let first = bodyPath(
            #"{"url": "f", "title": "F", "items": \#(itemsJSON(1...3)), "next_url": "\#(server.base.absoluteString + older)"}"#
        )
        var options = FetchOptions()
        options.pagination = .nextURL(key: "next_url")
        let api = testClient(server)
        let result = try await api.fetchReporting(Subscription.self, from: first, into: context, options: options)
        #expect(result.report.pages == 2)
        #expect(result.value.title == "F")
        #expect(result.value.headlines.map(\.id) == ["1", "2", "3", "4", "5"])
        result.value.headlines[3].read = true
        try context.save()
        // The next refresh has only the newest page, edited: nothing is lost or duplicated.
        let newest = bodyPath(#"{"url": "f", "items": \#(itemsJSON(2...3, title: "Edited"))}"#)
        let again = try await api.fetchReporting(Subscription.self, from: newest, into: context)
        #expect(again.value === result.value)
        #expect(try rows(store) == "f|1|0\nf|2|0\nf|3|0\nf|4|1\nf|5|0")
        #expect(try store.sqlite("SELECT title FROM Headline WHERE id = '3'") == "Edited 3")
    }

    /// A parent with no row cannot scope anything: said before anything is sent.
    @Test func anUnsavedParentIsRefused() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let context = ManagedObjectContext(try container(store))
        let feed = Subscription(context: context)
        feed.url = "new"
        await #expect {
            _ = try await testClient(server).fetch(
                [Headline].self, from: bodyPath(itemsJSON(1...2)), into: context, parent: feed, via: \.feed)
        } throws: { error in
            (error as? RESTError)?.code == .invalidRequest && "\(error)".contains("save it")
        }
    }
}
