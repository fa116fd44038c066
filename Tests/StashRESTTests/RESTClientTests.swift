import Foundation
import Stash
import StashREST
import Testing

/// One call against a real HTTP server on 127.0.0.1: request, decode, save; what it reports.
@Suite struct RESTClientTests {
    @Test func anArrayIsFetchedDecodedAndSaved() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let result = try await api.fetchReporting([Item].self, from: "items?count=5", into: context)
        #expect(result.value.map(\.id) == [1, 2, 3, 4, 5])
        #expect(result.value.allSatisfy { $0.managedObjectContext === context })
        #expect(result.value[2].title == "Item 3")
        #expect(result.value[2].tags == ["t0"])
        #expect(result.report.inserted == 5)
        #expect(result.report.updated == 0)
        #expect(result.report.pages == 1)
        #expect(result.report.bytes > 100)
        #expect(try store.count("Item") == 5)
        #expect(!context.hasChanges)

        // Again: the same rows, nothing changed.
        let again = try await api.fetchReporting([Item].self, from: "items?count=5", into: context)
        #expect(again.report.inserted == 0)
        #expect(again.report.updated == 0)
        #expect(again.report.unchanged == 5)
        #expect(again.value.map(ObjectIdentifier.init) == result.value.map(ObjectIdentifier.init))
    }

    @Test func itemsInsideAnEnvelope() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.itemsKey = "data"
        let items = try await testClient(server).fetch(
            [Item].self, from: "items?count=4&envelope=data", into: context, options: options)
        #expect(items.map(\.id) == [1, 2, 3, 4])
        #expect(try store.count("Item") == 4)
    }

    @Test func oneObject() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.itemsKey = "data"
        // The envelope's array is not one object: a decoding error, nothing saved.
        await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch(
                Item.self, from: "items?count=1&envelope=data", into: context, options: options)
        }
        #expect(try store.count("Item") == 0)
    }

    @Test func headersQueryItemsAndAuthorization() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server) { configuration in
            configuration.authorization = .bearer("s3cret")
            configuration.headers["User-Agent"] = "StashTests/1"
        }
        var options = FetchOptions()
        options.query = [URLQueryItem(name: "count", value: "2")]
        options.headers = ["X-Trace": "42"]
        _ = try await api.fetch([Item].self, from: "items", into: context, options: options)
        let basic = testClient(server) { $0.authorization = .basic(user: "ada", password: "pw") }
        _ = try await basic.fetch([Item].self, from: "items?count=1", into: context)
        let requests = try await server.requests()
        #expect(requests[0].path == "/items?count=2")
        #expect(requests[0].headers["authorization"] == "Bearer s3cret")
        #expect(requests[0].headers["user-agent"] == "StashTests/1")
        #expect(requests[0].headers["accept"] == "application/json")
        #expect(requests[0].headers["x-trace"] == "42")
        #expect(requests[1].headers["authorization"] == "Basic YWRhOnB3")
        #expect(try store.count("Item") == 2)
    }

    @Test func intoTheMainContextWhileTheMainActorRuns() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        // More than one hand-over batch: the objects come back whole and in payload order.
        let count = 4_007  // RESTClient hands 2,000 over at a time
        let (ids, ticks) = try await Self.fetchOnMain(server, container, count: count)
        #expect(ids == Array(1...count))
        #expect(try store.count("Item") == count)
        // The main actor ran other work while the call was under way.
        #expect(ticks > 0)
    }

    @MainActor static func fetchOnMain(
        _ server: TestServer, _ container: PersistentContainer, count: Int
    ) async throws -> (ids: [Int], ticks: Int) {
        let ticker = Ticker()
        let ticking = Task { @MainActor in await ticker.run() }
        let items = try await testClient(server).fetch(
            [Item].self, from: "items?count=\(count)", into: container.mainContext)
        let ticks = ticker.ticks
        ticker.running = false
        await ticking.value
        #expect(items.allSatisfy { $0.managedObjectContext === container.mainContext })
        return (items.map(\.id), ticks)
    }

    /// Counts its turns on the main actor, one a millisecond, while `running`.
    @MainActor final class Ticker {
        var ticks = 0
        var running = true

        func run() async {
            while running {
                ticks += 1
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    @Test func newPlainObjectsComeBackByValueAndTheOthersByRow() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let first = try await api.fetch(
            [Note].self,
            from: bodyPath(
                #"[{"id": 1, "title": "one", "writtenAt": "2026-11-30T10:00:00.123456Z", "link": "https://a.example/1"},"#
                    + #"{"id": 2, "title": "two", "writtenAt": "2026-11-30T11:00:00Z"}]"#),
            into: context)
        // What the caller holds is what the store holds: the date to the millisecond.
        let read = try ManagedObjectContext(try store.container()).fetch(
            FetchDescriptor<Note>(sortBy: [SortDescriptor(\.id)]))
        #expect(first.map(\.id) == [1, 2])
        #expect(first.map(\.writtenAt) == read.map(\.writtenAt))
        #expect(first.map(\.link) == read.map(\.link))
        #expect(first[0].writtenAt.timeIntervalSince1970 == 1_796_032_800.123)
        // Note 2 again (an update, read back) between two new ones, in payload order.
        let second = try await api.fetch(
            [Note].self,
            from: bodyPath(
                #"[{"id": 3, "title": "three", "writtenAt": "2026-11-30T12:00:00Z"},"#
                    + #"{"id": 2, "title": "two again", "writtenAt": "2026-11-30T11:00:00Z"},"#
                    + #"{"id": 4, "title": "four", "writtenAt": "2026-11-30T13:00:00Z"}]"#),
            into: context)
        #expect(second.map(\.id) == [3, 2, 4])
        #expect(second.map(\.title) == ["three", "two again", "four"])
        #expect(second[1] === first[1])
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 4)
    }

    @Test func anUnreasonableTimeoutDoesNotCrash() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server) { $0.timeout = .seconds(Int64.max / 4) }
        #expect(try await api.fetch([Item].self, from: "items?count=2", into: context).count == 2)
        #expect(try store.count("Item") == 2)
    }

    @Test func aSyncDeletesWhatNoPageReturned() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: "items?count=6", into: context)
        // The server now has 2…4 only (a predicate scopes what may go: ids below 6).
        let result = try await api.fetchReporting(
            [Item].self, from: "items?count=3&start=2", into: context,
            deletingMissing: .matching(#Predicate<Item> { $0.id < 6 }))
        #expect(result.report.deleted == 2)
        let left = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.id)])).map(\.id)
        #expect(left == [2, 3, 4, 6])
        #expect(try store.count("Item") == 4)
    }

    @Test func progressEvents() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let (events, continuation) = AsyncStream.makeStream(of: RESTProgress.self)
        var options = FetchOptions()
        options.progress = continuation
        _ = try await testClient(server).fetch(
            [Item].self, from: "items?count=7&per_page=3", into: context, options: options)
        var pages: [RESTProgress] = []
        var bytes = 0
        var saved: RESTProgress?
        for await event in events {
            switch event {
            case .bytes(let received, _): bytes = max(bytes, received)
            case .page: pages.append(event)
            case .saved: saved = event
            }
        }
        #expect(pages == [.page(number: 1, objects: 3), .page(number: 2, objects: 6), .page(number: 3, objects: 7)])
        #expect(bytes > 0)
        #expect(saved == .saved(inserted: 7, updated: 0, deleted: 0))
        #expect(try store.count("Item") == 7)
    }
}

/// The default decoder's dates: what feeds and APIs send, read as the instants they name
/// (no zone is UTC); a string that is no date fails the call naming the item, the key and
/// the text.
@Suite struct RESTDateTests {
    @Test func theDefaultReadsDatesAsAPIsSendThem() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let texts = [
            "2026-11-05T14:30:00Z", "2026-11-05", "2026-11-05T14:30:00", "2026-11-05 14:30:00Z",
            "Tue, 05 Nov 2026 14:30:00 GMT", "Thu, 05 Nov 2026 09:30:00 EST", "2026-11-05T14:30:00.250+00:00",
        ]
        let notes = texts.enumerated().map { #"{"id": \#($0 + 1), "title": "n", "writtenAt": "\#($1)"}"# }
        let fetched = try await testClient(server).fetch(
            [Note].self, from: bodyPath("[" + notes.joined(separator: ",") + "]"), into: context)
        let instant = 1_793_889_000.0
        let expected = [instant, instant - 52_200, instant, instant, instant, instant, instant + 0.25]
        #expect(fetched.map(\.writtenAt.timeIntervalSince1970) == expected)
        // As stored, read by another context.
        let stored = try ManagedObjectContext(try store.container()).fetch(
            FetchDescriptor<Note>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.writtenAt.timeIntervalSince1970) == expected)
    }

    @Test func aDateThatIsNoneFailsQuotingIt() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let body =
            #"[{"id": 1, "title": "n", "writtenAt": "2026-11-05"}, {"id": 2, "title": "n", "writtenAt": "31/11/2026"}]"#
        let error = await #expect(throws: RESTError.self) {
            _ = try await testClient(server).fetch([Note].self, from: bodyPath(body), into: context)
        }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains(#"found "31/11/2026""#) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("[1].writtenAt") == true, "\(error?.message ?? "")")
        #expect(try store.count("Note") == 0)
    }
}
