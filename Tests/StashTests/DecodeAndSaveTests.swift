import Dispatch
import Foundation
import Stash
import Synchronization
import Testing

/// `decodeAndSave`: a payload decoded and written a batch at a time, in one transaction.
@Suite(.bothStores) struct DecodeAndSaveTests {
    final class Track: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var plays: Int = 0
        /// The user's own: no payload has it.
        @Attribute var liked: Bool = false
        @Relationship var artist: Artist?
    }

    final class Artist: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Relationship(inverse: \Track.artist) var tracks: [Track]
    }

    /// Tracks with these ids, each with its artist nested (`id % 7`, so every artist comes
    /// back in every batch). `title` names one track's title as raw JSON.
    static func tracksJSON(_ ids: [Int], prefix: String = "Track", title: (Int) -> String? = { _ in nil }) -> Data {
        let items = ids.enumerated().map { offset, id in
            let titleJSON = title(offset) ?? "\"\(prefix) \(id)\""
            return """
                {"id": \(id), "title": \(titleJSON), "plays": \(id * 3), \
                "artist": {"id": \(id % 7), "name": "Artist \(id % 7)"}}
                """
        }
        return Data("[\(items.joined(separator: ",\n"))]".utf8)
    }

    @Test(arguments: [1, 7, 250, 5_000])
    func everyObjectIsSavedOnceWhateverTheBatch(batchSize: Int) throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let imported = try context.decodeAndSave(
            [Track].self, from: Self.tracksJSON(Array(1...600)), batchSize: batchSize)
        #expect(imported.decoded == 600)
        #expect(imported.batches == (600 + batchSize - 1) / batchSize)
        #expect(imported.changes.inserted.count == 607)
        let reader = ManagedObjectContext(container)
        let tracks = try reader.fetch(FetchDescriptor<Track>(sortBy: [SortDescriptor(\.id)]))
        #expect(tracks.map(\.id) == Array(1...600))
        #expect(tracks.allSatisfy { $0.title == "Track \($0.id)" && $0.plays == $0.id * 3 })
        #expect(tracks.allSatisfy { $0.artist?.id == $0.id % 7 })
        #expect(try reader.fetchCount(FetchDescriptor<Artist>()) == 7)
        #expect(try reader.fetch(FetchDescriptor<Artist>()).allSatisfy { $0.tracks.count >= 85 })
    }

    @Test func aSecondImportWritesOnlyWhatChanged() throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let context = ManagedObjectContext(container)
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...300)), batchSize: 40)
        let again = try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...300)), batchSize: 40)
        #expect(again.decoded == 300)
        #expect(again.changes.inserted.isEmpty)
        #expect(again.changes.updated.isEmpty)
        let edited = try context.decodeAndSave(
            [Track].self, from: Self.tracksJSON(Array(1...300)) { [3, 44, 45, 299].contains($0) ? "\"edited\"" : nil },
            batchSize: 40)
        #expect(edited.changes.inserted.isEmpty)
        #expect(edited.changes.updated.count == 4)
        let titles = try ManagedObjectContext(container).fetch(
            FetchDescriptor<Track>(predicate: #Predicate { $0.title == "edited" }, sortBy: [SortDescriptor(\.id)]))
        #expect(titles.map(\.id) == [4, 45, 46, 300])
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Track>()) == 300)
    }

    @Test func theLastOfTwoObjectsWithOneIDWinsAcrossBatches() throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let ids = Array(1...10) + [5]
        let imported = try context.decodeAndSave(
            [Track].self, from: Self.tracksJSON(ids) { $0 == 10 ? "\"again\"" : nil }, batchSize: 4)
        #expect(imported.decoded == 11)
        #expect(imported.changes.inserted.count == 17)
        #expect(imported.changes.updated.isEmpty)  // inserted in this import: listed as inserted
        let reader = ManagedObjectContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Track>()) == 10)
        #expect(
            try reader.fetch(FetchDescriptor<Track>(predicate: #Predicate { $0.id == 5 })).map(\.title) == ["again"])
    }

    @Test func aFailureInALaterBatchLeavesTheStoreAsItWas() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("tracks.sqlite")
        let container = try testContainer(for: Track.self, Artist.self, storeURL: url)
        let context = ManagedObjectContext(container)
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...50), prefix: "Old"))
        let broken = Self.tracksJSON(Array(1...300), prefix: "New") { $0 == 250 ? "12" : nil }
        let expected = #expect(throws: StashError.self) {
            try ManagedObjectContext(container).decode([Track].self, from: broken)
        }
        let error = #expect(throws: StashError.self) {
            try context.decodeAndSave([Track].self, from: broken, batchSize: 100)
        }
        #expect(error?.description == expected?.description)
        #expect(error?.description.contains("[250]") == true)
        let reopened = try testContainer(for: Track.self, Artist.self, storeURL: url)
        let stored = try ManagedObjectContext(reopened).fetch(FetchDescriptor<Track>())
        #expect(stored.count == 50)
        #expect(stored.allSatisfy { $0.title.hasPrefix("Old ") })
        // The transaction is over: the next import and save go through.
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...300), prefix: "New"))
        #expect(try ManagedObjectContext(reopened).fetchCount(FetchDescriptor<Track>()) == 300)
    }

    @Test func theCallingContextTakesTheImportInAndKeepsItsEdits() throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let context = ManagedObjectContext(container)
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...20), prefix: "Old"))
        let first = try #require(context.fetch(FetchDescriptor<Track>(predicate: #Predicate { $0.id == 1 })).first)
        let second = try #require(context.fetch(FetchDescriptor<Track>(predicate: #Predicate { $0.id == 2 })).first)
        first.liked = true
        second.title = "mine"
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...20), prefix: "New"), batchSize: 6)
        #expect(first.title == "New 1")
        #expect(first.liked)
        #expect(second.title == "mine")
        #expect(context.hasChanges)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Track>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored[0].liked && stored[0].title == "New 1")
        #expect(stored[1].title == "mine")
        #expect(stored[2].title == "New 3")
    }

    @Test func theContainersListenersHearOneChangeSet() async throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        var changes = container.changes.makeAsyncIterator()
        let context = ManagedObjectContext(container)
        try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...250)), batchSize: 100)
        let other = ManagedObjectContext(container)
        let track = Track(context: other)
        track.id = 1_000
        track.title = "after"
        try other.save()
        let first = try #require(await changes.next())
        #expect(first.inserted.count == 257)
        let second = try #require(await changes.next())
        #expect(second.inserted.count == 1)
    }

    /// An observer of the main context sees the store before the import and after it, never
    /// a batch of it.
    @Test(.timeLimit(.minutes(1))) @MainActor func anObserverSeesTheImportWholeOrNotAtAll() async throws {
        // A file store: the main context's fetches read while the import writes.
        let directory = try TemporaryDirectory()
        let container = try testContainer(
            for: Track.self, Artist.self, storeURL: directory.url.appendingPathComponent("observed.sqlite"))
        var results = container.mainContext.observe(FetchDescriptor<Track>()).makeAsyncIterator()
        #expect(try await results.next()?.count == 0)
        let decoded = try await container.performBackgroundTask { context in
            try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...300)), batchSize: 50).decoded
        }
        #expect(decoded == 300)
        #expect(try await results.next()?.count == 300)
    }

    @Test func aBackgroundContextImportsOnItsOwnExecutor() async throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let imported = try await container.performBackgroundTask { context in
            try context.decodeAndSave([Track].self, from: Self.tracksJSON(Array(1...120)), batchSize: 50)
        }
        #expect(imported.decoded == 120)
        let count = try await MainActor.run { try container.mainContext.fetchCount(FetchDescriptor<Track>()) }
        #expect(count == 120)
    }

    @Test func aCompositeKeyFindsTheRowAnEarlierBatchWrote() throws {
        let container = try testContainer(for: Channel.self, Item.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let items = (0..<12).map { index in
            let guid = index == 11 ? 2 : index % 6  // every guid twice, once per channel; guid 2 of b thrice
            let channel = index < 6 || index == 11 ? "a" : "b"
            return #"{"channel": {"url": "\#(channel)"}, "guid": "g\#(guid)", "title": "t\#(index)"}"#
        }
        let imported = try context.decodeAndSave(
            [Item].self, from: Data("[\(items.joined(separator: ","))]".utf8), batchSize: 5)
        #expect(imported.decoded == 12)
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Item>())
        #expect(stored.count == 12 - 1)
        #expect(stored.filter { $0.channel?.url == "a" && $0.guid == "g2" }.map(\.title) == ["t11"])
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Channel>()) == 2)
    }

    @Test func textInTwoUnicodeFormsIsTwoRowsAcrossBatches() throws {
        let container = try testContainer(for: Label.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let labels = [
            #"{"name": "caf\u00e9", "color": "red"}"#, #"{"name": "other"}"#,
            #"{"name": "cafe\u0301", "color": "blue"}"#, #"{"name": "caf\u00e9", "color": "green"}"#,
        ]
        let imported = try context.decodeAndSave(
            [Label].self, from: Data("[\(labels.joined(separator: ","))]".utf8), batchSize: 1)
        #expect(imported.changes.inserted.count == 3)
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Label>())
        #expect(stored.count == 3)
        #expect(stored.first { $0.name == "caf\u{E9}" && $0.name.utf8.count == 5 }?.color == "green")
        #expect(stored.first { $0.name.utf8.count == 6 }?.color == "blue")
    }

    @Test func aPayloadThatIsNoArrayOrIsCutShortWritesNothing() throws {
        let container = try testContainer(for: Track.self, Artist.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let whole = Self.tracksJSON(Array(1...30))
        for payload in [whole.dropLast(40), Data(#"{"id": 1, "title": "alone"}"#.utf8), whole.dropFirst()] {
            // Not JSON, or not an array: the error `decode` gives, whatever its type.
            let expected = #expect(throws: (any Error).self) {
                try ManagedObjectContext(container).decode([Track].self, from: payload)
            }
            let error = #expect(throws: (any Error).self) {
                try context.decodeAndSave([Track].self, from: payload, batchSize: 4)
            }
            #expect(error.map { String(describing: $0) } == expected.map { String(describing: $0) })
        }
        let notAnObject = Data("[\(String(decoding: whole.dropFirst().dropLast(), as: UTF8.self)), 7]".utf8)
        let error = #expect(throws: StashError.self) {
            try context.decodeAndSave([Track].self, from: notAnObject, batchSize: 4)
        }
        #expect(error?.description.contains("[30]") == true)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Track>()) == 0)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Artist>()) == 0)
    }

    @Test func theHandWrittenIdiomImportsThroughJSONDecoder() throws {
        let container = try testContainer(for: HandPost.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let imported = try context.decodeAndSave([HandPost].self, from: postsJSON(count: 30), batchSize: 7)
        #expect(imported.decoded == 30)
        let posts = try context.fetch(FetchDescriptor<HandPost>(sortBy: [SortDescriptor(\.id)]))
        #expect(posts.map(\.title) == (1...30).map { "Title \($0)" })
    }
}

/// What another connection to the store sees while `decodeAndSave` writes its batches, and
/// what a hook may do meanwhile: another container on the same store stands for another
/// process. Serialized: the hooks' settings are the models' own.
@Suite(.bothStores, .serialized)
struct DecodeAndSaveIsolationTests {
    final class Watched: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String

        /// The other container, and the counts of rows it saw, every 100th object.
        static let peer = Mutex<PersistentContainer?>(nil)
        static let seen = Mutex<[Int]>([])

        override func validateForInsert() throws {
            guard id % 100 == 0, let peer = Self.peer.withLock({ $0 }) else { return }
            let count = try ManagedObjectContext(peer).fetchCount(FetchDescriptor<Watched>())
            Self.seen.withLock { $0.append(count) }
        }
    }

    final class Refused: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int

        /// What the hook does at id 777: refuse, or save another context.
        static let hook = Mutex<(refuse: Bool, saveIn: PersistentContainer?)>((false, nil))

        override func validateForInsert() throws {
            guard id == 777 else { return }
            let (refuse, container) = Self.hook.withLock { $0 }
            if refuse { throw StashError(.validationFailed, "no 777", entity: "Refused", attribute: "id") }
            if let container {
                let other = ManagedObjectContext(container)
                let made = Refused(context: other)
                made.id = 1_000_000
                try other.save()
            }
        }
    }

    /// A hook that refuses an object of the last batch, and one that saves another context
    /// from the import's thread: both fail the import, and the store stays as it was.
    @Test(arguments: [true, false])
    func aHookThatFailsOrSavesFailsTheWholeImport(refusing: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("refused.sqlite")
        let container = try testContainer(for: Refused.self, storeURL: url)
        Refused.hook.withLock { $0 = (refusing, refusing ? nil : container) }
        defer { Refused.hook.withLock { $0 = (false, nil) } }
        let payload = Data("[\((1...800).map { "{\"id\": \($0)}" }.joined(separator: ","))]".utf8)
        let error = #expect(throws: StashError.self) {
            try ManagedObjectContext(container).decodeAndSave([Refused].self, from: payload, batchSize: 100)
        }
        #expect(error?.description.contains(refusing ? "no 777" : "inside decodeAndSave's transaction") == true)
        // Object 777 is element 776, whose object the hook refused.
        #expect(error?.codingPath == "[776]")
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Refused>()) == 0)
        let reopened = try testContainer(for: Refused.self, storeURL: url)
        #expect(try ManagedObjectContext(reopened).fetchCount(FetchDescriptor<Refused>()) == 0)
        // And the store takes saves again, from this thread too.
        let context = ManagedObjectContext(container)
        Refused(context: context).id = 1
        try context.save()
        #expect(try ManagedObjectContext(reopened).fetchCount(FetchDescriptor<Refused>()) == 1)
    }

    final class Renumbered: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String

        /// Gives object 105 the id of a row an earlier batch wrote, after it was decoded as new.
        override func willSave() {
            if id == 105 { id = 3 }
        }
    }

    /// The store is spared looking up new rows' unique values only where the context's
    /// indexes prove them new at the save: a value a hook set after decoding is still found,
    /// and upserts the row an earlier batch wrote (as one save of the whole payload does).
    @Test func aValueSetByAHookAfterDecodingStillFindsItsRow() throws {
        let payload = Data(
            "[\((1...200).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ","))]".utf8)
        var rows: [[String]] = []
        for batchSize in [50, 1_000] {
            let container = try testContainer(for: Renumbered.self, inMemory: true)
            let imported = try ManagedObjectContext(container).decodeAndSave(
                [Renumbered].self, from: payload, batchSize: batchSize)
            #expect(imported.decoded == 200)
            let stored = try ManagedObjectContext(container).fetch(
                FetchDescriptor<Renumbered>(sortBy: [SortDescriptor(\.id)]))
            rows.append(stored.map { "\($0.id) \($0.title)" })
        }
        #expect(rows[0].count == 199)
        #expect(rows[0].contains("3 t105"))
        #expect(rows[0] == rows[1])
    }

    final class Counted: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String = ""

        /// Objects alive now, and the most seen alive by a hook.
        static let alive = Atomic<Int>(0)
        static let mostAlive = Atomic<Int>(0)

        required init() {
            super.init()
            Self.alive.add(1, ordering: .relaxed)
        }

        deinit { Self.alive.subtract(1, ordering: .relaxed) }

        override func validateForInsert() throws {
            Self.mostAlive.max(Self.alive.load(ordering: .relaxed), ordering: .relaxed)
        }
    }

    /// The import holds a batch of objects, not the payload's: each batch is let go once
    /// written.
    @Test func noMoreThanABatchOfObjectsIsAlive() throws {
        let container = try testContainer(for: Counted.self, inMemory: true)
        Counted.mostAlive.store(0, ordering: .relaxed)
        let payload = Data("[\((1...3_000).map { "{\"id\": \($0)}" }.joined(separator: ","))]".utf8)
        let imported = try ManagedObjectContext(container).decodeAndSave([Counted].self, from: payload, batchSize: 250)
        #expect(imported.decoded == 3_000)
        let most = Counted.mostAlive.load(ordering: .relaxed)
        #expect(most >= 250 && most <= 300)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Counted>()) == 3_000)
    }

    final class Contested: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String = ""

        /// As object 150 is saved, another context of the container saves object 5 (written
        /// by the first batch) on another thread; the test waits for it with `done`.
        static let rival = Mutex<PersistentContainer?>(nil)
        static let done = DispatchSemaphore(value: 0)
        static let rivalError = Mutex<String?>(nil)

        override func validateForInsert() throws {
            guard id == 150, let container = Self.rival.withLock({ $0 }) else { return }
            Thread.detachNewThread {
                do {
                    let other = ManagedObjectContext(container)
                    let rival = Contested(context: other)
                    rival.id = 5
                    rival.title = "rival"
                    try other.save()
                } catch {
                    Contested.rivalError.withLock { $0 = "\(error)" }
                }
                Contested.done.signal()
            }
        }
    }

    /// A second context saves a row of the import while it runs: its save waits for the
    /// import's commit, then finds the row the import wrote and updates it. One row, the
    /// later save's values.
    @Test func aSecondContextSavingTheSameRowWaitsAndUpdatesIt() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(
            for: Contested.self, storeURL: directory.url.appendingPathComponent("c.sqlite"))
        Contested.rival.withLock { $0 = container }
        Contested.rivalError.withLock { $0 = nil }
        defer { Contested.rival.withLock { $0 = nil } }
        let payload = Data(
            "[\((1...300).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ","))]".utf8)
        let imported = try ManagedObjectContext(container).decodeAndSave(
            [Contested].self, from: payload, batchSize: 100)
        #expect(imported.decoded == 300)
        #expect(Contested.done.wait(timeout: .now() + 60) == .success)
        #expect(Contested.rivalError.withLock { $0 } == nil)
        let reader = ManagedObjectContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Contested>()) == 300)
        #expect(
            try reader.fetch(FetchDescriptor<Contested>(predicate: #Predicate { $0.id == 5 })).map(\.title) == ["rival"]
        )
    }

    /// Another process holds the store's write lock as the import begins: the import waits
    /// its busy timeout, fails saying so, and writes nothing; once the lock is let go, the
    /// same import goes through.
    @Test(.sqliteOnly("python3's sqlite3 holds an SQLite file's lock"))
    func anotherProcessHoldingTheFileFailsTheImportWhole() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let container = try testContainer(for: Watched.self, storeURL: url, busyTimeout: .milliseconds(300))
        let holder = try LockHolder(file: url)
        let payload = Data(
            "[\((1...250).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ","))]".utf8)
        let context = ManagedObjectContext(container)
        let error = #expect(throws: StashError.self) {
            try context.decodeAndSave([Watched].self, from: payload, batchSize: 100)
        }
        #expect(error?.storeCode?.isBusy == true)
        holder.release()
        #expect(try context.fetchCount(FetchDescriptor<Watched>()) == 0)
        let imported = try context.decodeAndSave([Watched].self, from: payload, batchSize: 100)
        #expect(imported.changes.inserted.count == 250)
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<Watched>()) == 250)
    }

    @Test func anotherConnectionSeesNothingBeforeTheCommit() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("watched.sqlite")
        let container = try testContainer(for: Watched.self, storeURL: url)
        let peer = try testContainer(for: Watched.self, storeURL: url)
        Watched.peer.withLock { $0 = peer }
        Watched.seen.withLock { $0 = [] }
        defer { Watched.peer.withLock { $0 = nil } }
        let items = (1...450).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }
        let imported = try ManagedObjectContext(container).decodeAndSave(
            [Watched].self, from: Data("[\(items.joined(separator: ","))]".utf8), batchSize: 100)
        #expect(imported.batches == 5)
        #expect(Watched.seen.withLock { $0 } == [0, 0, 0, 0])
        #expect(try ManagedObjectContext(peer).fetchCount(FetchDescriptor<Watched>()) == 450)
    }
}
