import Foundation
import Stash
import TestProcesses
import Testing

@testable import StashREST

/// An API that sends no `ETag` and no `Last-Modified`: the same answer again stands for the
/// rows its last decode wrote, as a 304 would, and is neither decoded nor saved; anything
/// that would make a full decode change a row (a changed body, a local edit, another model)
/// gets the full decode, of the body already in hand.
@Suite struct RESTBodyFingerprintTests {
    private let path = "paged/fp?pages=3&per_page=2&plain=1"

    @Test func theSameAnswerAgainIsNeitherDecodedNorSaved() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let first = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(first.report.pages == 3 && first.report.inserted == 6 && !first.report.notModified)
        #expect(try store.sqlite(#"SELECT count(*) FROM "_stash_http_validators""#) == "3")
        let files = try fileStates(store)

        let again = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(again.report.notModified)
        #expect(again.report.pages == 3 && again.report.unchanged == 6 && again.report.updated == 0)
        // The bodies came (no validators to send), and were taken whole.
        #expect(again.report.bytes == first.report.bytes)
        #expect(again.value.map(\.id) == Array(1...6))
        #expect(again.value.map(\.title) == (1...6).map { "Item \($0)" })
        let asked = try await server.requests().filter { $0.path.contains("/paged/fp") }
        #expect(asked.count == 6)
        #expect(asked.allSatisfy { $0.headers["if-none-match"] == nil })
        // Nothing was written: no save, no validator rewritten.
        #expect(try fileStates(store) == files)
        #expect(try ManagedObjectContext(try store.container()).fetchCount(FetchDescriptor<Item>()) == 6)
    }

    /// One page's body changed: that page is decoded, the others stand.
    @Test func aChangedPageIsDecoded() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        try await server.get("paged/fp/edit?page=2&title=changed")
        let edited = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!edited.report.notModified)
        #expect(edited.report.updated == 2 && edited.report.unchanged == 4)
        #expect(edited.value.map(\.title) == ["Item 1", "Item 2", "changed 3", "changed 4", "Item 5", "Item 6"])
        let titles = try ManagedObjectContext(try store.container()).fetch(FetchDescriptor<Item>()).map(\.title)
        #expect(titles.sorted() == ["Item 1", "Item 2", "Item 5", "Item 6", "changed 3", "changed 4"])
        // The new answer is what stands next time.
        let after = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(after.report.notModified && after.report.unchanged == 6)
    }

    /// A title saved locally over the server's: a full decode would put the server's back, so
    /// the same body cannot stand for the row. The body in hand is decoded (no second
    /// request), exactly as without the fingerprint.
    @Test func aLocalEditGetsTheFullDecodeOfTheBodyInHand() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let third = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 3 }))[0]
        third.title = "edited here"
        try context.save()
        let before = try await server.requests().count
        let refreshed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!refreshed.report.notModified)
        #expect(refreshed.report.updated == 1 && refreshed.report.unchanged == 5)
        #expect(try await server.requests().count - before == 3)
        let stored = try ManagedObjectContext(try store.container()).fetch(
            FetchDescriptor<Item>(predicate: #Predicate { $0.id == 3 }))
        #expect(stored.map(\.title) == ["Item 3"])

        // A row deleted locally comes back the same way.
        let fifth = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 5 }))[0]
        context.delete(fifth)
        try context.save()
        let restored = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!restored.report.notModified && restored.report.inserted == 1)
        #expect(try store.count("Item") == 6)
    }

    /// A sync keeps what the standing pages hold and deletes the rest, as with 304s.
    @Test func aSyncKeepsWhatTheSameAnswerHolds() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let local = Item(context: context)
        local.id = 99
        local.title = "only here"
        try context.save()
        let synced = try await api.fetchReporting([Item].self, from: path, into: context, deletingMissing: .all)
        #expect(synced.report.notModified)
        #expect(synced.report.deleted == 1 && synced.report.unchanged == 6 && synced.report.updated == 0)
        #expect(synced.value.map(\.id) == Array(1...6))
        #expect(try store.count("Item") == 6)
    }

    /// The same URL fetched as the children of two parents: the answer kept for one parent's
    /// children stands for no other's, and again for its own.
    @Test func anAnswerStandsOnlyForTheSameParent() async throws {
        let (server, store, _) = try await serverAndEmptyStore()
        let context = ManagedObjectContext(
            try PersistentContainer(for: Subscription.self, Headline.self, storeURL: store.file))
        for url in ["a", "b"] { Subscription(context: context).url = url }
        try context.save()
        let feeds = try context.fetch(FetchDescriptor<Subscription>(sortBy: [SortDescriptor(\.url)]))
        let api = testClient(server)
        let items = bodyPath(#"[{"id": "1", "title": "One"}, {"id": "2", "title": "Two"}]"#)
        for feed in feeds {
            let result = try await api.fetchReporting(
                [Headline].self, from: items, into: context, parent: feed, via: \.feed)
            #expect(!result.report.notModified && result.report.inserted == 2)
        }
        let again = try await api.fetchReporting(
            [Headline].self, from: items, into: context, parent: feeds[1], via: \.feed)
        #expect(again.report.notModified && again.value.allSatisfy { $0.feed === feeds[1] })
        let rows = try store.sqlite(
            "SELECT f.url, h.id FROM Headline h JOIN Subscription f ON f._pk = h.feed ORDER BY f.url, h.id")
        #expect(rows == "a|1\na|2\nb|1\nb|2")
        // Kept by the relationship's name in the model, which a relaunch reads the same.
        let parents = try store.sqlite(
            #"SELECT DISTINCT json_extract("value", '$.parent') LIKE '% Headline.feed' FROM "_stash_http_validators""#)
        #expect(parents == "1")
    }

    /// One body holding two lists, fetched for each: what it answered for one stands for no
    /// other, with validators (a 304) or without (the same body).
    @Test func anAnswerStandsOnlyForTheSameItems() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let json =
            #"{"featured": [{"id": 1, "title": "One"}, {"id": 2, "title": "Two"}], "latest": [{"id": 3, "title": "Three"}]}"#
        for path in [bodyPath(json), bodyPath(json) + "&etag=1"] {
            var featured = FetchOptions()
            featured.itemsKey = "featured"
            var latest = FetchOptions()
            latest.itemsKey = "latest"
            let first = try await api.fetchReporting([Item].self, from: path, into: context, options: featured)
            #expect(first.value.map(\.id) == [1, 2])
            let other = try await api.fetchReporting([Item].self, from: path, into: context, options: latest)
            #expect(!other.report.notModified && other.value.map(\.id) == [3])
            let again = try await api.fetchReporting([Item].self, from: path, into: context, options: latest)
            #expect(again.report.notModified && again.value.map(\.id) == [3])
        }
        #expect(try store.count("Item") == 3)
    }

    /// The same body with new validators (an ETag that counts versions): decoded in full, so
    /// that the new validators are kept and the next request gets its 304s again.
    @Test func theSameBodyWithNewValidatorsIsKeptAnew() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let withTags = "paged/tags?pages=2&per_page=2"
        _ = try await api.fetch([Item].self, from: withTags, into: context)
        try await server.get("paged/tags/bump")
        let bumped = try await api.fetchReporting([Item].self, from: withTags, into: context)
        #expect(!bumped.report.notModified && bumped.report.unchanged == 4 && bumped.report.bytes > 0)
        let after = try await api.fetchReporting([Item].self, from: withTags, into: context)
        #expect(after.report.notModified && after.report.bytes == 0)
        let sent = try await server.requests().filter { $0.path.hasPrefix("/paged/tags?") }.map {
            $0.headers["if-none-match"]
        }
        #expect(sent.suffix(2) == [#""page-1--r1""#, #""page-2--r1""#])
        #expect(try store.count("Item") == 4)
    }

    /// Pages numbered in the query (`.page`), and saved page by page: the same answers stand.
    @Test func pageNumbersAndPageByPageSaving() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        var options = FetchOptions()
        options.pagination = .page()
        options.saving = .perPage
        let numbered = "items?count=5&per_page=2"
        let first = try await api.fetchReporting([Item].self, from: numbered, into: context, options: options)
        #expect(first.report.inserted == 5 && first.report.pages == 4)
        let again = try await api.fetchReporting([Item].self, from: numbered, into: context, options: options)
        #expect(again.report.notModified && again.report.pages == 4 && again.value.map(\.id) == Array(1...5))
        #expect(try store.count("Item") == 5)
    }

    /// Two pages name the same object: the first page, changed, sets new values; the second,
    /// the same as last time, would set the old ones again, as a full decode does, after
    /// the first. It cannot stand for a row the first page changed and has not saved.
    @Test func aPageCannotStandForARowAnEarlierPageChanged() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let second = server.base.absoluteString + bodyPath(#"{"items": [{"id": 1, "title": "old"}]}"#)
        func first(_ title: String) -> String {
            bodyPath(#"{"items": [{"id": 1, "title": "\#(title)"}], "next": "\#(second)"}"#)
        }
        let options = nextURLItemsOptions()
        _ = try await api.fetch([Item].self, from: first("first"), into: context, options: options)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item""#) == "old")
        let changed = try await api.fetchReporting([Item].self, from: first("new"), into: context, options: options)
        #expect(!changed.report.notModified)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item""#) == "old")
        #expect(changed.value.map(\.title) == ["old", "old"])
    }

    /// An answer kept under another model (an app upgrade changed what decoding sets) stands
    /// for nothing: the page is decoded in full, and kept anew under this model.
    @Test func anAnswerKeptUnderAnotherModelIsDecoded() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: path, into: context)
        let model = try store.sqlite(#"SELECT DISTINCT json_extract("value", '$.model') FROM "_stash_http_validators""#)
        #expect(model == context.container.modelDigest(of: ["Item"]))
        try store.write(#"UPDATE "_stash_http_validators" SET "value" = json_set("value", '$.model', 'f00')"#)
        let refreshed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(!refreshed.report.notModified && refreshed.report.unchanged == 6)
        let kept = try store.sqlite(#"SELECT DISTINCT json_extract("value", '$.model') FROM "_stash_http_validators""#)
        #expect(kept == context.container.modelDigest(of: ["Item"]))
        let after = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(after.report.notModified)
    }

    /// The fingerprint reads every byte, the length and the content type.
    @Test func theFingerprintTellsBodiesApart() {
        let body = Data(#"[{"id":1,"title":"Item 1","tags":[]}]"#.utf8)
        let json = BodyFingerprint(body, contentType: "application/json")
        #expect(json == BodyFingerprint(body, contentType: "application/json"))
        #expect(json != BodyFingerprint(body, contentType: "text/plain"))
        #expect(json != BodyFingerprint(body, contentType: nil))
        for index in body.indices {
            var changed = body
            changed[index] ^= 0x01
            #expect(json != BodyFingerprint(changed, contentType: "application/json"), "byte \(index)")
        }
        #expect(
            BodyFingerprint(Data([1, 2, 3]), contentType: nil) != BodyFingerprint(Data([1, 2, 3, 0]), contentType: nil))
        #expect(BodyFingerprint(Data(), contentType: nil) != BodyFingerprint(Data([0]), contentType: nil))
        let eight = Data(repeating: 7, count: 8)
        #expect(BodyFingerprint(eight, contentType: nil) != BodyFingerprint(eight + Data([0]), contentType: nil))
    }

    /// The size and modification time of the store's file and its write-ahead log: a save,
    /// or a validator written, changes the log.
    private func fileStates(_ store: TemporaryStore) throws -> [String] {
        try [store.file.path, store.file.path + "-wal"].map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(attributes[.size] ?? 0) \(modified)"
        }
    }

    private func nextURLItemsOptions() -> FetchOptions {
        var options = FetchOptions()
        options.itemsKey = "items"
        options.pagination = .nextURL(key: "next")
        return options
    }
}
