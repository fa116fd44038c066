import Foundation
import Stash
import TestProcesses
import Testing

@testable import StashPostgres

/// Two containers on one database, standing for two processes: what one saves reaches the
/// other through PostgreSQL's `LISTEN`/`NOTIFY` (`PostgresListener`), in its `changes`, its
/// contexts' objects and its observed fetches.
@Suite(.enabled(if: PostgresServer.isAvailable, "needs a PostgreSQL server: STASH_POSTGRES_URL or initdb"))
struct PostgresNotificationTests {
    /// Inserts, updates and deletes arrive in the other container's `changes` with the IDs
    /// the saving container's `saveChanges()` answered.
    @Test func aSaveArrivesInAnotherContainersChangesWithItsIDs() async throws {
        let (writer, other, recorder) = try await writerAndRecordedListener()
        let context = ManagedObjectContext(writer)
        let readings = insertReadings(1...3, into: context)
        let inserted = try context.saveChanges()
        #expect(inserted.inserted.count == 3)
        var heard = await recorder.wait { $0.count == 1 }
        #expect(heard == [inserted])
        readings[0].name = "changed"
        context.delete(readings[1])
        let edited = try context.saveChanges()
        #expect(edited.updated.count == 1 && edited.deleted.count == 1)
        heard = await recorder.wait { $0.count == 2 }
        #expect(heard == [inserted, edited])
        #expect(heard.allSatisfy { $0.unlistedEntities.isEmpty })
        withExtendedLifetime(other) {}  // the listening container, to the end
    }

    /// `decodeAndSave`'s batches commit once, and the other container hears them once, as
    /// one change set listing every row the import answered.
    @Test func anImportSavedInBatchesArrivesOnce() async throws {
        let (writer, other, recorder) = try await writerAndRecordedListener()
        let context = ManagedObjectContext(writer)
        insertReadings([3], into: context)[0].name = "before"
        try context.save()
        let payload = Data("[\((1...45).map { "{\"id\": \($0), \"name\": \"r\($0)\"}" }.joined(separator: ","))]".utf8)
        let imported = try context.decodeAndSave([Reading].self, from: payload, batchSize: 10)
        #expect(imported.batches == 5)
        #expect(imported.changes.inserted.count == 44 && imported.changes.updated.count == 1)
        let heard = await recorder.wait { $0.count == 2 }
        #expect(heard.last == imported.changes)
        withExtendedLifetime(other) {}
    }

    /// An object the other container's context holds takes the saved values when that
    /// context next runs; its unsaved edits stay, as the merge policy says: under
    /// `.incomingWins` an attribute edited on both sides keeps the local value, under
    /// `.storedWins` it takes the stored one.
    @Test func anObjectHeldElsewhereIsMergedAndKeepsItsUnsavedEdits() async throws {
        let url = try PostgresServer.newDatabase()
        let writer = try PersistentContainer(for: Reading.self, postgres: url)
        let other = try PersistentContainer(for: Reading.self, postgres: url)
        let context = ManagedObjectContext(writer)
        let reading = Reading(context: context)
        reading.id = 1
        reading.name = "first"
        reading.score = 1
        try context.save()

        let recorder = ChangeRecorder(other)
        let incoming = ManagedObjectContext(other)
        let stored = ManagedObjectContext(other)
        stored.mergePolicy = .storedWins
        let held = try #require(try incoming.fetch(FetchDescriptor<Reading>()).first)
        let heldStored = try #require(try stored.fetch(FetchDescriptor<Reading>()).first)
        held.note = "mine"
        held.score = 9
        heldStored.score = 7
        #expect(await listening(other))

        reading.name = "second"
        reading.score = 2
        try context.save()
        let heard = await recorder.wait { $0.count == 1 }
        #expect(heard.first?.updated == [reading.objectID])
        // The next call into each context merges.
        #expect(incoming.hasChanges)
        #expect(!stored.hasChanges)
        #expect(held.name == "second")
        #expect(held.note == "mine")
        #expect(held.score == 9)
        #expect(heldStored.name == "second")
        #expect(heldStored.score == 2)
        try incoming.save()
        let row = try #require(try ManagedObjectContext(writer).fetch(FetchDescriptor<Reading>()).first)
        #expect(row.name == "second" && row.note == "mine" && row.score == 9)
    }

    /// An `observe` in the other container's context delivers again once the save is merged.
    @Test func anObservedFetchYieldsAnotherProcesssSave() async throws {
        let url = try PostgresServer.newDatabase()
        let writer = try PersistentContainer(for: Reading.self, postgres: url)
        let other = try PersistentContainer(for: Reading.self, postgres: url)
        let watching = other.newBackgroundContext()
        // What each delivery held: the objects are the context's, read only on its queue, so
        // their row ids (`objectID` is Sendable).
        let yields = Locked<[[Int64]]>([])
        // A fetch that fails ends the sequence with its error: kept, for the test to show.
        let ended = Locked<String?>(nil)
        let stream = await watching.perform {
            let readings = watching.observe(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
            return Task {
                do {
                    for try await found in readings {
                        let rows = found.compactMap(\.objectID.rowID)
                        yields.withLock { $0.append(rows) }
                    }
                } catch {
                    ended.withLock { $0 = "\(error)" }
                }
            }
        }
        defer { stream.cancel() }
        #expect(await listening(other))
        let context = ManagedObjectContext(writer)
        let readings = insertReadings([3, 1, 2], into: context)
        try context.save()
        let rows = readings.sorted { $0.id < $1.id }.compactMap(\.objectID.rowID)
        _ = await eventually { yields.withLock { $0.last } == rows || ended.withLock { $0 } != nil }
        #expect(yields.withLock { $0 } == [[], rows])
        #expect(ended.withLock { $0 } == nil)
    }

    /// A container's own save comes to its `changes` once, from the save: the notification it
    /// sent is recognised by its origin and dropped. Notifications come in commit order, so
    /// a second copy of the first save would come before the other container's save.
    @Test func ownSavesAreNotDeliveredTwice() async throws {
        let url = try PostgresServer.newDatabase()
        let first = try PersistentContainer(for: Reading.self, postgres: url)
        let second = try PersistentContainer(for: Reading.self, postgres: url)
        let recorder = ChangeRecorder(first)
        #expect(await listening(first))
        let mine = ManagedObjectContext(first)
        Reading(context: mine).id = 1
        let own = try mine.saveChanges()
        let theirs = ManagedObjectContext(second)
        Reading(context: theirs).id = 2
        let foreign = try theirs.saveChanges()
        let heard = await recorder.wait { $0.contains(foreign) }
        #expect(heard == [own, foreign])
    }

    /// A save whose rows do not fit in one notification (2,000 scattered row ids) arrives as
    /// its entities only (`unlistedEntities`): the other container's objects of them are read
    /// again and its observed fetches run again. One of 4,000 consecutive new rows fits.
    @Test func aSaveTooLargeForOneNotificationNamesItsEntities() async throws {
        let (writer, other, recorder) = try await writerAndRecordedListener()
        let context = ManagedObjectContext(writer)
        let readings = insertReadings(1...4000, into: context)
        try context.save()
        var heard = await recorder.wait { $0.count == 1 }
        #expect(heard.first?.inserted.count == 4000)
        #expect(heard.first?.unlistedEntities == [])

        let elsewhere = ManagedObjectContext(other)
        let held = try elsewhere.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.id == 1 || $0.id == 2 }))
        var observed = elsewhere.observe(FetchDescriptor<Reading>(predicate: #Predicate { $0.name == "odd" }))
            .makeAsyncIterator()
        #expect(try await observed.next()?.count == 0)
        for reading in readings where !reading.id.isMultiple(of: 2) { reading.name = "odd" }
        try context.save()
        heard = await recorder.wait { $0.count == 2 }
        #expect(heard.count == 2)
        #expect(heard.last?.unlistedEntities == ["Reading"])
        #expect(heard.last?.updated.isEmpty == true)
        #expect(heard.last?.touches(entityNamed: "Reading") == true)
        _ = elsewhere.hasChanges
        #expect(held.map(\.name).sorted() == ["", "odd"])
        #expect(try await observed.next()?.count == 2000)
    }

    /// The listening connection ended by the server (`pg_terminate_backend`) is made again,
    /// and the container then says that any entity may have changed: its contexts read
    /// their objects again, so a save made while it was down is not missed. Later saves
    /// arrive with their IDs again.
    @Test func aKilledListeningConnectionReconnectsAndSaysSavesMayHaveBeenMissed() async throws {
        let url = try PostgresServer.newDatabase()
        let writer = try PersistentContainer(for: Reading.self, postgres: url)
        let other = try PersistentContainer(for: Reading.self, postgres: url)
        let context = ManagedObjectContext(writer)
        let reading = Reading(context: context)
        reading.id = 1
        try context.save()
        let recorder = ChangeRecorder(other)
        let elsewhere = ManagedObjectContext(other)
        let held = try #require(try elsewhere.fetch(FetchDescriptor<Reading>()).first)
        #expect(await listening(other))
        let listener = try #require(other.changeNotifications as? PostgresListener)
        let killed = listener.backendPID

        let admin = try PostgresConnection(url)
        #expect(
            try admin.execute("SELECT pg_terminate_backend($1::int)", [.integer(Int64(killed))]).text(0, 0) == "t")
        reading.name = "while down"
        try context.save()
        let heard = await recorder.wait { $0.contains { $0.unlistedEntities == ["Reading"] } }
        #expect(heard.contains { $0.unlistedEntities == ["Reading"] })
        _ = elsewhere.hasChanges
        #expect(held.name == "while down")

        #expect(await listening(other))
        #expect(listener.backendPID != killed)
        reading.name = "after"
        let after = try context.saveChanges()
        let later = await recorder.wait { $0.contains(after) }
        #expect(later.contains(after))
    }

    /// SQLite has no notifications: its container starts none.
    @Test func sqliteHasNoNotifications() throws {
        let store = try StoreKind.sqlite.newStore()
        let container = try store.open(Reading.self)
        _ = ManagedObjectContext(container)
        #expect(container.changeNotifications == nil)
    }
}

/// The payload a save sends (`PostgresNotification`), read back.
struct PostgresNotificationPayloadTests {
    @Test func rowsAreListedInRuns() throws {
        #expect(PostgresNotification.runs([5, 1, 2, 3, 7, 9, 10]) == "1-3,5,7,9-10")
        let payload = PostgresNotification.payload(
            origin: "ab12", commit: 7,
            rows: [
                ("Post", RowChanges(inserted: [1, 2, 3], updated: [9], deleted: [])),
                ("Empty", RowChanges()), ("Author", RowChanges(deleted: [4])),
            ])
        #expect(payload == "stash1 ab12 7\nPost i1-3 u9\nAuthor d4")
        let text = try #require(payload)
        let notice = try #require(PostgresNotification.notice(text, ownOrigin: "cd34"))
        #expect(
            notice
                == CommitNotice(rows: [
                    "Post": RowChanges(inserted: [1, 2, 3], updated: [9]), "Author": RowChanges(deleted: [4]),
                ]))
        #expect(PostgresNotification.notice(text, ownOrigin: "ab12") == nil)
        #expect(PostgresNotification.payload(origin: "ab12", commit: 8, rows: [("Post", RowChanges())]) == nil)
    }

    @Test func aPayloadTooLargeNamesItsEntitiesOrAll() throws {
        let scattered = RowChanges(updated: stride(from: 1, to: 6000, by: 2).map { Int64($0) })
        let payload = try #require(
            PostgresNotification.payload(
                origin: "ab12", commit: 9, rows: [("Post", scattered), ("Author", RowChanges(inserted: [1]))]))
        #expect(payload == "stash1 ab12 9 unlisted\nPost\nAuthor")
        #expect(
            PostgresNotification.notice(payload, ownOrigin: "x")
                == CommitNotice(unlisted: .entities(["Post", "Author"])))
        let tiny = try #require(
            PostgresNotification.payload(origin: "ab12", commit: 9, rows: [("Post", scattered)], limit: 20))
        #expect(tiny == "stash1 ab12 9 all")
        #expect(PostgresNotification.notice(tiny, ownOrigin: "x") == CommitNotice(unlisted: .all))
        #expect(payload.utf8.count < 8000)
    }

    /// Another program's notification on the channel says nothing Stash can list: anything
    /// may have changed.
    @Test func aPayloadOfAnotherFormatMeansAnything() {
        #expect(PostgresNotification.notice("hello", ownOrigin: "x") == CommitNotice(unlisted: .all))
        #expect(PostgresNotification.notice("stash1 ab 3\nPost q1", ownOrigin: "x") == CommitNotice(unlisted: .all))
        #expect(PostgresNotification.notice("stash9 ab 3", ownOrigin: "x") == CommitNotice(unlisted: .all))
    }
}
