import Foundation
import Stash
import Testing

/// Models of the full-text search tests.
enum SearchModels {
    /// Two searchable columns, one optional; an edit whose title is "invalid" fails the save.
    final class Writeup: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute(.searchable) var title: String
        @Attribute(.searchable) var body: String?
        @Attribute var stars: Int = 0

        override func validateForUpdate() throws {
            if title == "invalid" { throw SearchInvalidTitle() }
        }

        override func validateForInsert() throws {
            if title == "invalid" { throw SearchInvalidTitle() }
        }
    }

    /// Searchable attributes decoded through a key path and normalized.
    final class Clip: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute(.searchable, key: "meta.headline") var headline: String
        @Attribute(.searchable, normalized: .trimmed) var caption: String = ""
    }

    /// No searchable attribute: no index, no trigger.
    final class Plain: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
    }

    /// `.searchable` on an `Int`: refused.
    final class Counter: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute(.searchable) var hits: Int
    }
}

private typealias Writeup = SearchModels.Writeup

struct SearchInvalidTitle: Error {}

/// A store of notes in a temporary directory, and a context on it.
private struct NoteStore {
    let directory: TemporaryDirectory
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(for: Writeup.self, storeURL: directory.file())
        context = ManagedObjectContext(container)
    }

    var file: URL { directory.file() }

    @discardableResult
    func add(_ id: Int, _ title: String, _ body: String? = nil, stars: Int = 0) -> Writeup {
        let note = Writeup(context: context)
        note.id = id
        note.title = title
        note.body = body
        note.stars = stars
        return note
    }

    /// The ids of the notes `text` finds, best first.
    func ids(_ text: String, _ descriptor: FetchDescriptor<Writeup> = FetchDescriptor()) throws -> [Int] {
        try context.search(descriptor, matching: text).map(\.object.id)
    }

    /// FTS5's own check of the index against the table: "ok" when they agree.
    func integrityCheck() throws -> String {
        try sqliteShellWriting(
            file, "INSERT INTO \"Writeup_search\" (\"Writeup_search\") VALUES ('integrity-check'); SELECT 'ok';")
    }
}

@Suite(.sqliteOnly("FTS5 in the SQLite file; PostgreSQL refuses search by name (SearchRefusalTests)"))
struct SearchTests {
    @Test func insertsUpdatesAndDeletesAreFoundOnceSaved() throws {
        let store = try NoteStore()
        let first = store.add(1, "Swift on Linux", "a server story")
        store.add(2, "Gardening", "tomatoes and swift growth")
        try store.context.save()
        #expect(try store.ids("swift").sorted() == [1, 2])
        #expect(try store.ids("tomatoes") == [2])

        first.title = "Rust on Linux"
        try store.context.save()
        #expect(try store.ids("linux") == [1])
        #expect(try store.ids("rust") == [1])
        #expect(try store.ids("swift") == [2])

        first.body = nil
        try store.context.save()
        #expect(try store.ids("server") == [])

        store.context.delete(first)
        try store.context.save()
        #expect(try store.ids("linux") == [])
        #expect(try store.integrityCheck() == "ok\n")
    }

    @Test func aFailedSaveLeavesTheIndexAsItWas() throws {
        let store = try NoteStore()
        let note = store.add(1, "Swift on Linux")
        let other = store.add(2, "Swift on Windows")
        try store.context.save()
        note.title = "invalid"
        store.add(3, "Kotlin elsewhere")
        #expect(throws: (any Error).self) { try store.context.save() }
        let reader = ManagedObjectContext(store.container)
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "invalid").isEmpty)
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "kotlin").isEmpty)

        // A failure inside the transaction, after the delete and the update were written
        // (a save deletes, then updates, then inserts): their index changes roll back too.
        _ = try sqliteShellWriting(
            store.file,
            "CREATE TRIGGER \"no_kotlin\" BEFORE INSERT ON \"Writeup\" WHEN new.\"title\" GLOB 'Kotlin*' "
                + "BEGIN SELECT RAISE(ABORT, 'no Kotlin here'); END;")
        note.title = "Rust on Linux"
        store.context.delete(other)
        let error = #expect(throws: StashError.self) { try store.context.save() }
        #expect(error?.message.contains("no Kotlin here") == true)
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "swift").map(\.object.id) == [1, 2])
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "windows").map(\.object.id) == [2])
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "rust").isEmpty)
        #expect(try store.integrityCheck() == "ok\n")
    }

    /// A row refused in a later batch of a save's INSERTs (`INSERT OR ROLLBACK`), after the
    /// earlier batches and their index rows were written: the whole save is undone, the
    /// index agrees with the table, and the same context saves once the rule is gone.
    @Test func aRowRefusedInALaterBatchLeavesTheIndexAsItWas() throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux")
        try store.context.save()
        // Another program adds a rule the model does not know: no two notes share a title.
        _ = try sqliteShellWriting(store.file, #"CREATE UNIQUE INDEX "title_once" ON "Writeup" ("title")"#)
        for id in 2...150 { store.add(id, id == 120 ? "Swift on Linux" : "batch note \(id)") }
        let error = #expect(throws: StashError.self) { try store.context.save() }
        #expect(error?.message.contains("UNIQUE") == true)
        let reader = ManagedObjectContext(store.container)
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "batch").isEmpty)
        #expect(try reader.fetchCount(FetchDescriptor<Writeup>()) == 1)
        #expect(try store.integrityCheck() == "ok\n")

        _ = try sqliteShellWriting(store.file, #"DROP INDEX "title_once""#)
        try store.context.save()
        #expect(try reader.search(FetchDescriptor<Writeup>(), matching: "batch").count == 148)
        #expect(try store.integrityCheck() == "ok\n")
    }

    @Test func hitsAreRankedBestFirst() throws {
        let store = try NoteStore()
        store.add(1, "Cooking", "swift recipes for the weekend and a few more words of body text")
        store.add(2, "Swift and more swift", "notes")
        store.add(3, "Nothing here", "at all")
        try store.context.save()
        let hits = try store.context.search(FetchDescriptor<Writeup>(), matching: "swift")
        #expect(hits.map(\.object.id) == [2, 1])
        #expect(hits[0].score > hits[1].score)
        #expect(hits[1].score > 0)
    }

    @Test func theSnippetMarksTheMatchedWordsInTheBestColumn() throws {
        let store = try NoteStore()
        store.add(1, "Weekly digest", "this week Swift runs on Linux servers and on phones")
        try store.context.save()
        let hit = try #require(try store.context.search(FetchDescriptor<Writeup>(), matching: "linux").first)
        #expect(hit.snippet.contains("[Linux]"))
        #expect(!hit.snippet.contains("digest"))

        var options = SearchOptions()
        options.snippetMarkers = ("<b>", "</b>")
        options.snippetEllipsis = "..."
        options.snippetWords = 3
        let short = try #require(
            try store.context.search(FetchDescriptor<Writeup>(), matching: "linux", options: options).first)
        #expect(short.snippet.contains("<b>Linux</b>"))
        #expect(short.snippet.contains("..."))
    }

    @Test func thePredicateFiltersAndTheLimitAndOffsetPage() throws {
        let store = try NoteStore()
        // More "swift" in the body, a better rank, for a smaller id: 1 ranks first.
        for id in 1...6 {
            let words = Array(repeating: "swift", count: 7 - id).joined(separator: " ")
            store.add(id, "Writeup \(id)", words + " filler", stars: id % 2)
        }
        store.add(7, "Other", "nothing")
        try store.context.save()
        #expect(try store.ids("swift") == [1, 2, 3, 4, 5, 6])

        var starred = FetchDescriptor<Writeup>(predicate: #Predicate { $0.stars == 1 })
        #expect(try store.ids("swift", starred) == [1, 3, 5])
        starred.fetchLimit = 1
        starred.fetchOffset = 1
        #expect(try store.ids("swift", starred) == [3])

        var page = FetchDescriptor<Writeup>()
        page.fetchLimit = 2
        page.fetchOffset = 4
        #expect(try store.ids("swift", page) == [5, 6])
    }

    @Test func theSortDescriptorsBreakTiesOfEqualScore() throws {
        let store = try NoteStore()
        store.add(1, "Swift", "same", stars: 1)
        store.add(2, "Swift", "same", stars: 3)
        store.add(3, "Swift", "same", stars: 2)
        try store.context.save()
        #expect(try store.ids("swift") == [1, 2, 3])
        let byStars = FetchDescriptor<Writeup>(sortBy: [SortDescriptor(\.stars, order: .reverse)])
        #expect(try store.ids("swift", byStars) == [2, 3, 1])
    }

    @Test func caseAndDiacriticsDoNotCount() throws {
        let store = try NoteStore()
        store.add(1, "Café crème", "SWIFT naïve résumé")
        try store.context.save()
        #expect(try store.ids("cafe") == [1])
        #expect(try store.ids("CAFÉ") == [1])
        #expect(try store.ids("swift") == [1])
        #expect(try store.ids("naive resume") == [1])
        #expect(try store.ids("creme brulee") == [])
    }

    @Test func everyWordIsRequiredAndTheLastIsAPrefix() throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux")
        store.add(2, "Swift on macOS")
        try store.context.save()
        #expect(try store.ids("swift linux") == [1])
        #expect(try store.ids("swift lin") == [1])
        #expect(try store.ids("swi") == [1, 2])
        var exact = SearchOptions()
        exact.prefixMatchesLastWord = false
        #expect(try store.context.search(FetchDescriptor<Writeup>(), matching: "swift lin", options: exact).isEmpty)
        #expect(try store.context.search(FetchDescriptor<Writeup>(), matching: "swift", options: exact).count == 2)
    }

    @Test func textIsNeverReadAsQuerySyntax() throws {
        let store = try NoteStore()
        store.add(1, "C++ and AND or NOT", "title:foo \"quoted\" -x x-y NEAR(a b) col:* 🙂 emoji")
        store.add(2, "plain", "words")
        try store.context.save()
        let hostile = [
            "c++", "\"unbalanced", "AND", "OR", "NOT", "-x", "title:foo", "🙂", "NEAR(a b)", "*", "^", "(", ")",
            "\"", "\"\"", "'", "a'b", "col:*", "x - y", "{title body}: c", "+", "AND OR NOT", "🙂 c++",
            "\u{0}", "%", "_", "\\",
        ]
        for text in hostile {
            let ids = try store.ids(text)
            #expect(!ids.contains(2), "\(text)")
        }
        #expect(try store.ids("c++") == [1])
        #expect(try store.ids("AND") == [1])
        #expect(try store.ids("title:foo") == [1])
        #expect(try store.ids("\"quoted") == [1])
        #expect(try store.ids("🙂") == [1])
        #expect(try store.ids("😀") == [])
        #expect(try store.ids("🙂 emoji") == [1])
        #expect(try store.ids("") == [])
        #expect(try store.ids("  \n\t ") == [])
    }

    @Test func hitsAreTheContextsOwnObjects() throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux")
        try store.context.save()
        let fetched = try store.context.fetch(FetchDescriptor<Writeup>())
        let hit = try #require(try store.context.search(FetchDescriptor<Writeup>(), matching: "linux").first)
        #expect(hit.object === fetched[0])
    }

    @Test func searchReadsWhatIsSavedLeavingOutObjectsDeletedHere() throws {
        let store = try NoteStore()
        let kept = store.add(1, "Swift on Linux")
        let gone = store.add(2, "Swift on Windows")
        try store.context.save()
        kept.title = "Rust on Linux"
        store.add(3, "Swift unsaved")
        store.context.delete(gone)
        // The saved text is searched; the object carries its unsaved change.
        let hits = try store.context.search(FetchDescriptor<Writeup>(), matching: "swift")
        #expect(hits.map(\.object.id) == [1])
        #expect(hits[0].object.title == "Rust on Linux")
        #expect(try store.ids("rust") == [])
    }

    @Test func rowsOtherWritersMakeAreFound() throws {
        let store = try NoteStore()
        store.add(1, "First from Stash")
        try store.context.save()

        let second = try testContainer(for: Writeup.self, storeURL: store.file)
        let elsewhere = ManagedObjectContext(second)
        let note = Writeup(context: elsewhere)
        note.id = 2
        note.title = "Second container writes"
        try elsewhere.save()

        _ = try sqliteShellWriting(
            store.file,
            "INSERT INTO \"Writeup\" (\"id\", \"title\", \"body\", \"stars\") VALUES (3, 'Shell row', 'typed by hand', 0); "
                + "UPDATE \"Writeup\" SET \"title\" = 'First edited by hand' WHERE \"id\" = 1;")

        #expect(try store.ids("container") == [2])
        #expect(try store.ids("hand").sorted() == [1, 3])
        #expect(try store.ids("stash") == [])
        #expect(try store.integrityCheck() == "ok\n")
    }

    @Test func theShellQueriesTheIndex() throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux", "servers")
        store.add(2, "Gardening", "tomatoes")
        try store.context.save()
        let output = try sqliteShell(
            store.file,
            "SELECT \"title\" FROM \"Writeup_search\" WHERE \"Writeup_search\" MATCH 'servers'; "
                + "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'Writeup';")
        #expect(output == "Swift on Linux\n3\n")
    }

    @Test func theIndexStaysSoundThroughAMixOfWrites() throws {
        let store = try NoteStore()
        var notes: [Writeup] = []
        for id in 1...40 {
            notes.append(store.add(id, "Title \(id) swift", id % 3 == 0 ? nil : "body \(id) linux"))
        }
        try store.context.save()
        for note in notes where note.id % 4 == 0 { note.body = note.body == nil ? "now linux" : nil }
        for note in notes where note.id % 5 == 0 { store.context.delete(note) }
        for note in notes where note.id % 7 == 0 && note.id % 5 != 0 { note.stars = 9 }
        try store.context.save()
        _ = try sqliteShellWriting(
            store.file, "UPDATE \"Writeup\" SET \"title\" = \"title\" || ' edited' WHERE \"id\" % 6 = 0")
        #expect(try store.integrityCheck() == "ok\n")
        let expected = notes.map(\.id).filter { $0 % 5 != 0 && ($0 % 3 == 0) == ($0 % 4 == 0) }
        #expect(try store.ids("linux").sorted() == expected)
        #expect(try store.ids("edited").sorted() == [6, 12, 18, 24, 36])
    }

    @Test func aNonStringSearchableAttributeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: StashError.self) {
            _ = try testContainer(for: SearchModels.Counter.self, storeURL: directory.file())
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.entity == "Counter")
        #expect(error?.attribute == "hits")
        #expect(error?.message.contains(".searchable") == true)
        #expect(error?.message.contains("Int") == true)
    }

    @Test func keyPathAndNormalizedAttributesAreSearched() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: SearchModels.Clip.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [SearchModels.Clip].self,
            from: json(#"[{"id": 1, "meta": {"headline": "Penguins at dawn"}, "caption": "  cold morning  "}]"#))
        try context.save()
        let hits = try context.search(FetchDescriptor<SearchModels.Clip>(), matching: "penguin")
        #expect(hits.map(\.object.id) == [1])
        #expect(
            try context.search(FetchDescriptor<SearchModels.Clip>(), matching: "cold").first?.snippet
                == "[cold] morning")
    }

    @Test func anEntityWithoutSearchableAttributesHasNoIndexAndCannotBeSearched() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: SearchModels.Plain.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let plain = SearchModels.Plain(context: context)
        plain.id = 1
        plain.title = "Swift"
        try context.save()
        let schema = try sqliteShell(
            directory.file(), "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' OR name GLOB '*_search*';")
        #expect(schema == "0\n")
        let error = #expect(throws: StashError.self) {
            _ = try context.search(FetchDescriptor<SearchModels.Plain>(), matching: "swift")
        }
        #expect(error?.code == .unsupportedQuery)
        #expect(error?.entity == "Plain")
    }

    @Test func everyContextKindSearches() async throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux")
        try store.context.save()
        let background = try await store.container.performBackgroundTask { context in
            try context.search(FetchDescriptor<Writeup>(), matching: "linux").map(\.object.id)
        }
        #expect(background == [1])
        let context = store.container.newBackgroundContext()
        let performed = try await context.perform {
            try context.search(FetchDescriptor<Writeup>(), matching: "linux").map(\.object.title)
        }
        #expect(performed == ["Swift on Linux"])
        let main = await MainActor.run {
            (try? store.container.mainContext.search(FetchDescriptor<Writeup>(), matching: "linux"))?.count
        }
        #expect(main == 1)
    }

    @Test func aBackgroundContextSearchedOutsidePerformTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try testContainer(for: SearchModels.Writeup.self, inMemory: true)
            let background = container.newBackgroundContext()
            _ = try background.search(FetchDescriptor<SearchModels.Writeup>(), matching: "swift")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was used off its executor"))
    }
}

/// Search on either store: SQLite finds the note; PostgreSQL refuses by name, and the save
/// before it is kept.
@Suite(.bothStores) struct SearchRefusalTests {
    @Test func searchFindsOnSQLiteAndIsRefusedByNameOnPostgreSQL() throws {
        let store = try NoteStore()
        store.add(1, "Swift on Linux")
        try store.context.save()
        switch StoreKind.current {
        case .sqlite:
            #expect(try store.ids("linux") == [1])
        case .postgres:
            let error = #expect(throws: StashError.self) { try store.ids("linux") }
            #expect(error?.code == .unsupportedQuery)
            #expect(error?.entity == "Writeup")
            #expect(String(describing: error).contains("full-text search"))
        }
        #expect(try store.context.fetchCount(FetchDescriptor<Writeup>()) == 1)
    }
}
