import Foundation
import Stash
import StashREST
import TestProcesses
import Testing

/// What a hostile user tries: imports racing each other, another process holding the store,
/// payloads that are not what the model says.
@Suite struct RESTAttackTests {
    @Test func twoImportsOfOverlappingItemsAtOnce() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let api = testClient(server)
        // Items 1…200 and 101…300, each in its own context, at the same time: the second
        // save finds the first's rows and updates them instead of breaking the unique index.
        async let first = api.fetch([Item].self, from: "items?count=200", into: ManagedObjectContext(container))
        async let second = api.fetch(
            [Item].self, from: "items?count=200&start=101", into: ManagedObjectContext(container))
        let (a, b) = try await (first, second)
        #expect(a.map(\.id) == Array(1...200))
        #expect(b.map(\.id) == Array(101...300))
        #expect(try store.count("Item") == 300)
    }

    @Test func twoTasksFetchingIntoTheMainContextAtOnce() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try store.container()
        let (a, b) = try await Self.twoFetchesOnMain(server, container)
        #expect(a == Array(1...3_000))
        #expect(b == Array(2_001...5_000))
        #expect(try store.count("Note") == 5_000)
    }

    /// Two calls into `mainContext` at once, each handing over in batches: the overlap is
    /// one object per row, whichever call made it. The calls' objects are kept alive while
    /// they are compared: the context holds its objects weakly (as Core Data does), so a row
    /// whose object nobody holds gets a new one when next fetched, and comparing only
    /// `ObjectIdentifier`s of released objects would fail whenever the first call ends
    /// before the second hands its overlap over.
    @MainActor static func twoFetchesOnMain(
        _ server: TestServer, _ container: PersistentContainer
    ) async throws -> ([Int], [Int]) {
        let api = testClient(server)
        let kept = KeptNotes()
        // Two main-actor tasks (an `async let` would run the call off the main actor, where
        // `mainContext` may not be used: that traps before the download, see
        // `aCallIntoTheMainContextOffTheMainActorTrapsBeforeTheDownload`).
        let first = Task { @MainActor in
            kept.first = try await api.fetch([Note].self, from: "notes?count=3000", into: container.mainContext)
        }
        let second = Task { @MainActor in
            kept.second = try await api.fetch(
                [Note].self, from: "notes?count=3000&start=2001", into: container.mainContext)
        }
        try await first.value
        try await second.value
        let a = Dictionary(uniqueKeysWithValues: kept.first.map { ($0.id, $0) })
        let b = Dictionary(uniqueKeysWithValues: kept.second.map { ($0.id, $0) })
        #expect((2_001...3_000).allSatisfy { a[$0] != nil && a[$0] === b[$0] })
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Note>()) == 5_000)
        return (a.keys.sorted(), b.keys.sorted())
    }

    /// What the two main-actor calls return, held until they are compared.
    @MainActor final class KeptNotes {
        var first: [Note] = []
        var second: [Note] = []
    }

    @Test func aCallIntoTheMainContextOffTheMainActorTrapsBeforeTheDownload() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let server = try await TestServer.start()
            let store = try TemporaryStore()
            let container = try store.container()
            _ = try await testClient(server).fetch([Note].self, from: "notes?count=2", into: container.mainContext)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("mainContext was used off its executor"))
    }

    @Test func aPayloadThatNamesAnObjectTwiceStoresItOnce() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let json = #"[{"id": 1, "title": "first"}, {"id": 2, "title": "two"}, {"id": 1, "title": "again"}]"#
        let result = try await testClient(server).fetchReporting(
            [Item].self, from: bodyPath(json),
            into: context)
        #expect(result.report.inserted == 2)
        #expect(try store.count("Item") == 2)
        let stored = try ManagedObjectContext(try store.container()).fetch(
            FetchDescriptor<Item>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.title) == ["again", "two"])
    }

    @Test(arguments: [
        (#"{"id": 1, "title": "an object, not a list"}"#, ""),
        (#"[{"id": 1, "title": "one"}, {"id": "two", "title": "two"}]"#, "[1].id"),
        (#"[{"id": 1, "title": "one"}, {"id": 2, "title": "#, ""),
        ("", ""),
    ])
    func aMalformedPayloadSavesNothingAndSaysWhere(json: String, path: String) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let url = bodyPath(json)
        await #expect {
            _ = try await testClient(server).fetch([Item].self, from: url, into: context)
        } throws: { error in
            guard let error = error as? RESTError, error.code == .decoding else { return false }
            return error.url?.path.hasSuffix("/body") == true && (path.isEmpty || error.message.contains(path))
        }
        #expect(try store.count("Item") == 0)
        #expect(!context.hasChanges)
    }

    /// A payload that names a row twice, or out of order: each row counts once in the report
    /// (the count takes the rows' ascending order as proof only when they ascend), and the
    /// call answers an object per item, the same object for the same row.
    @Test func aPayloadThatNamesARowTwiceCountsItOnce() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        func note(_ id: Int, _ title: String) -> String {
            #"{"id": \#(id), "title": "\#(title)", "writtenAt": "2026-01-02T03:04:05Z"}"#
        }
        let cases: [(items: [(Int, String)], inserted: Int, updated: Int, unchanged: Int)] = [
            ([(1, "a"), (2, "b"), (2, "b")], 2, 0, 0),
            ([(3, "c"), (1, "a"), (3, "c")], 1, 0, 1),
            ([(1, "a"), (2, "b"), (3, "c")], 0, 0, 3),
            ([(3, "c"), (2, "b2"), (1, "a")], 0, 1, 2),
        ]
        for (items, inserted, updated, unchanged) in cases {
            let json = "[" + items.map { note($0.0, $0.1) }.joined(separator: ", ") + "]"
            let result = try await api.fetchReporting([Note].self, from: bodyPath(json), into: context)
            let (notes, report) = (result.value, result.report)
            #expect(notes.map(\.id) == items.map(\.0), "\(items)")
            #expect(notes.map(\.title) == items.map(\.1), "\(items)")
            #expect(report.inserted == inserted && report.updated == updated, "\(items)")
            #expect(report.unchanged == unchanged, "\(items): \(report.unchanged) unchanged")
            for (index, item) in items.enumerated() {
                let same = items.firstIndex { $0.0 == item.0 }!
                #expect(notes[index] === notes[same])
            }
        }
        #expect(try store.count("Note") == 3)
    }

    @Test func theHandWrittenInitFromIdiom() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let first = try await api.fetch(
            [HandNote].self, from: bodyPath(#"[{"id": 1, "title": "one"}, {"id": 2, "title": "two"}]"#), into: context)
        #expect(first.map(\.title) == ["one", "two"])
        // Again, changed: the same rows, updated, and the caller's same objects.
        let second = try await api.fetchReporting(
            [HandNote].self, from: bodyPath(#"[{"id": 2, "title": "two again"}, {"id": 1, "title": "one"}]"#),
            into: context)
        #expect(second.value.map(\.title) == ["two again", "one"])
        #expect(second.value[0] === first[1])
        #expect(second.report.inserted == 0)
        // The idiom sets every attribute; only the one whose value differs is a change.
        #expect(second.report.updated == 1)
        #expect(second.report.unchanged == 1)
        // A bad item in a later payload: nothing of it is kept, in the store or the context.
        await #expect(throws: RESTError.self) {
            _ = try await api.fetch(
                [HandNote].self, from: bodyPath(#"[{"id": 3, "title": "three"}, {"id": 1, "title": 1}]"#),
                into: context)
        }
        let stored = try ManagedObjectContext(try store.container()).fetch(
            FetchDescriptor<HandNote>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.title) == ["one", "two again"])
        #expect(!context.hasChanges)
    }

    @Test func aNextPageOnAnotherSchemeIsRefusedAndNothingIsSaved() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let options = nextURLOptions()
        await #expect {
            _ = try await testClient(server).fetch(
                [Item].self, from: bodyPath(#"{"data": [{"id": 1, "title": "one"}], "next": "file:///etc/passwd"}"#),
                into: context, options: options)
        } throws: { error in
            guard let error = error as? RESTError else { return false }
            return error.code == .schemeNotAllowed && error.message.contains("file:///etc/passwd")
        }
        #expect(try store.count("Item") == 0)
    }

    @Test func credentialsAreNotSentToANextPageOnAnotherOrigin() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = nextURLOptions()
        options.headers["Cookie"] = "session=secret"
        let last = server.otherOrigin.absoluteString + bodyPath(#"{"data": [{"id": 3, "title": "three"}]}"#)
        let second =
            server.base.absoluteString + bodyPath(#"{"data": [{"id": 2, "title": "two"}], "next": "\#(last)"}"#)
        let items = try await testClient(server) { $0.authorization = .basic(user: "me", password: "pw") }.fetch(
            [Item].self, from: bodyPath(#"{"data": [{"id": 1, "title": "one"}], "next": "\#(second)"}"#),
            into: context, options: options)
        #expect(items.map(\.id) == [1, 2, 3])
        let requests = try await server.requests()
        #expect(requests.count == 3)
        #expect(requests.map { $0.headers["authorization"] != nil } == [true, true, false])
        #expect(requests.map { $0.headers["cookie"] } == ["session=secret", "session=secret", nil])
        #expect(try store.count("Item") == 3)
    }

    @Test func anotherProcessHoldingTheStoreFailsTheSaveAndLosesNothing() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        _ = try await api.fetch([Item].self, from: "items?count=2", into: context)
        // The sqlite3 shell takes the write lock and keeps it.
        let shell = try ChildProcess(
            "/usr/bin/env", ["sqlite3", store.file.path], standardInput: .pipe, standardOutput: .pipe,
            standardError: .nullDevice)
        defer {
            shell.kill()
            shell.waitUntilExit()
        }
        let input = shell.standardInputWriter!
        let output = shell.standardOutputReader!
        input.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        let said = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: output.availableData) }.start()
        }
        #expect(String(decoding: said, as: UTF8.self).contains("locked"))
        let shortWait = try PersistentContainer(
            for: Item.self, Issue.self, GitHubUser.self, Note.self, HandNote.self, storeURL: store.file,
            busyTimeout: .milliseconds(200))
        let blocked = ManagedObjectContext(shortWait)
        await #expect {
            _ = try await api.fetch([Item].self, from: "items?count=5", into: blocked)
        } throws: { error in
            (error as? StashError)?.code == .storeFailed && "\(error)".contains("locked")
        }
        input.write(Data("ROLLBACK;\n.quit\n".utf8))
        #expect(try store.count("Item") == 2)
        #expect(!blocked.hasChanges)
        // Once the lock is gone, the same call goes through.
        let items = try await api.fetch([Item].self, from: "items?count=5", into: blocked)
        #expect(items.count == 5)
        #expect(try store.count("Item") == 5)
    }
}
