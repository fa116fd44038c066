import Foundation
import Testing

@testable import Stash

/// Related objects in JSON: nested, or as references to their unique values, linked into
/// one graph with no duplicates.
@Suite(.bothStores) struct GraphDecodingTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        container = try graphContainer()
        context = ManagedObjectContext(container)
    }

    func decode<T: Decodable>(
        _ type: T.Type, _ text: String, snakeCase: Bool = false, into context: ManagedObjectContext? = nil
    )
        throws -> T
    {
        let decoder = recipeDecoder(context ?? self.context)
        if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        return try decoder.decode(type, from: json(text))
    }

    @Test func nestedObjectsUpsertIntoOneGraph() throws {
        let books = try decode(
            [Book].self,
            #"""
            [{"id": 10, "title": "A", "writer": {"id": 1, "name": "Ursula"}},
             {"id": 11, "title": "B", "writer": {"id": 1, "name": "Ursula K."}},
             {"id": 20, "title": "C", "writer": {"id": 2, "name": "Octavia"}}]
            """#)
        #expect(books[0].writer === books[1].writer)
        #expect(books[0].writer?.name == "Ursula K.")
        #expect(books[0].writer?.books.map(\.id) == [10, 11])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Writer>()) == 2)
    }

    /// A nested object's decoding takes the container its relationship made (no second read
    /// of its keys): only the object at that coding path takes it, not one nested inside it.
    @Test func objectsNestedInObjectsOfTheirOwnEntityEachTakeTheirOwnValues() throws {
        let employees = try decode(
            [Employee].self,
            #"""
            [{"id": 1, "manager": {"id": 2, "manager": {"id": 3, "manager": null}}},
             {"id": 4, "manager": {"id": 3}}, {"id": 5, "manager": {"id": 2, "manager": {"id": 1}}}]
            """#)
        #expect(employees.map(\.id) == [1, 4, 5])
        #expect(employees.map { $0.manager?.id } == [2, 3, 2])
        // The last payload moved 2 under 1, which makes a loop: decoding does not judge it.
        #expect(employees[0].manager?.manager?.id == 1)
        #expect(employees[1].manager?.manager == nil)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 5)
    }

    /// The unique value a nested object was found by is not compared again; every other
    /// value is, each time the object comes.
    @Test func aNestedObjectFoundAgainTakesEachChangeItCarries() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let first = ManagedObjectContext(container)
        _ = try decode([Book].self, #"[{"id": 10, "writer": {"id": 1, "name": "Ursula"}}]"#, into: first)
        try first.save()
        let again = ManagedObjectContext(container)
        let books = try decode(
            [Book].self,
            #"""
            [{"id": 10, "writer": {"id": 1, "name": "Ursula"}}, {"id": 11, "writer": {"id": 1, "name": "U. K."}},
             {"id": 12, "writer": {"id": 1, "name": "U. K."}}, {"id": 13, "writer": {"id": 1, "name": "Ursula"}}]
            """#, into: again)
        #expect(Set(books.map { ObjectIdentifier($0.writer!) }).count == 1)
        #expect(books[0].writer?.name == "Ursula")
        try again.save()
        #expect(try sqliteShell(directory.file(), "SELECT id, name FROM Writer") == "1|Ursula\n")
        _ = try decode([Book].self, #"[{"id": 11, "writer": {"id": 1, "name": "U. K."}}]"#, into: again)
        try again.save()
        #expect(try sqliteShell(directory.file(), "SELECT id, name FROM Writer") == "1|U. K.\n")
    }

    @Test func reimportingTheSameGraphWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let payload = #"""
            [{"id": 10, "title": "A", "writer": {"id": 1, "name": "Ursula"}},
             {"id": 11, "title": "B", "writer": 1}, {"id": 12, "title": "C", "writer": null}]
            """#
        let first = ManagedObjectContext(container)
        _ = try decode([Book].self, payload, into: first)
        try first.save()
        let watcher = try graphContainer(at: directory.file())
        let token = try watcher.store.changeToken()
        let again = ManagedObjectContext(container)
        _ = try decode([Book].self, payload, into: again)
        try again.save()
        #expect(!again.hasChanges)
        #expect(try watcher.store.changeToken() == token)  // nothing was committed
        // A changed link is a change.
        _ = try decode([Book].self, #"[{"id": 12, "writer": 1}]"#, into: again)
        try again.save()
        #expect(try watcher.store.changeToken() != token)
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Book WHERE writer IS NOT NULL") == "3\n")
    }

    @Test func referencesByValueInEveryForm() throws {
        _ = try decode([Writer].self, #"[{"id": 1, "name": "Ursula"}, {"id": 2, "name": "Octavia"}]"#)
        try context.save()
        let fresh = ManagedObjectContext(container)
        let books = try decode(
            [Book].self, #"[{"id": 10, "writer": 1}, {"id": 11, "writerId": 2}, {"id": 12, "writer_id": 1}]"#,
            into: fresh)
        #expect(books.map { $0.writer?.name } == ["Ursula", "Octavia", "Ursula"])
        let snake = try decode(Book.self, #"{"id": 13, "writer_id": 2}"#, snakeCase: true, into: fresh)
        #expect(snake.writer?.name == "Octavia")
        try fresh.save()
        #expect(try fresh.fetchCount(FetchDescriptor<Writer>()) == 2)
    }

    @Test func aReferenceToAnUnknownObjectIsAPlaceholderUntilFilled() throws {
        let book = try decode(Book.self, #"{"id": 10, "writer": 7}"#)
        #expect(book.writer?.id == 7)
        // The placeholder has no name, which a writer requires: the save says so.
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? StashError
            return error?.code == .missingValue && error?.entity == "Writer" && error?.attribute == "name"
                && error?.message.contains("the new Writer with id 7, which has nothing else set") == true
        }
        let writer = try decode(Writer.self, #"{"id": 7, "name": "Ted"}"#)
        #expect(writer === book.writer)
        try context.save()
        let fresh = ManagedObjectContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Book>()).first?.writer?.name == "Ted")
    }

    /// A reference of the wrong kind says what it should have been, where it stands in the
    /// JSON, and what it found (not "the stored value", as a row's would).
    @Test func aReferenceOfTheWrongKindSaysWhatItShouldBe() throws {
        let cases = [
            (#"[{"id": 1, "writer": true}]"#, "[0].writer", "expected a Writer object, or its id (Int), found true"),
            (
                #"[{"id": 1, "writer": 1.5}]"#, "[0].writer",
                "expected a Writer object, or its id (Int), found the number 1.5"
            ),
            (#"[{"id": 1, "writerId": "x"}]"#, "[0].writerId", #"expected Writer's id (Int), found the string "x""#),
            (#"[{"id": 1, "writerId": {"id": 2}}]"#, "[0].writerId", "expected Writer's id (Int), found an object"),
            (#"[{"id": 1, "writer": [2]}]"#, "[0].writer", "expected a Writer object, or its id (Int), found an array"),
        ]
        for (payload, path, message) in cases {
            let error = #expect(throws: StashError.self) { try decode([Book].self, payload) }
            #expect(error?.code == .decodingFailed, "\(payload)")
            #expect(error?.entity == "Book" && error?.attribute == "writer", "\(payload)")
            #expect(error?.codingPath == path, "\(payload)")
            #expect(error?.message.hasSuffix(message) == true, "\(payload): \(error?.message ?? "")")
        }
    }

    /// A to-many key that holds references (`bookIds`) holds only unique values, as a to-one
    /// one (`writerId`) does: an object there says so, where it is, and nothing is decoded.
    @Test func aListOfIdsHoldsOnlyIds() throws {
        let cases = [
            (#"{"id": 1, "name": "U", "bookIds": [10, {"id": 11}]}"#, "bookIds[1]", "found an object"),
            (#"{"id": 1, "name": "U", "bookIds": [[10]]}"#, "bookIds[0]", "found an array"),
            (#"{"id": 1, "name": "U", "book_ids": [{"id": 11}]}"#, "book_ids[0]", "found an object"),
        ]
        for (payload, path, found) in cases {
            // Through the byte-level reader, which leaves the context as it was, and through
            // the recipe's JSONDecoder.
            let fresh = ManagedObjectContext(container)
            let errors = [
                #expect(throws: StashError.self) { try fresh.decode(Writer.self, from: json(payload)) },
                #expect(throws: StashError.self) { try decode(Writer.self, payload) },
            ]
            #expect(!fresh.hasChanges)
            for error in errors {
                #expect(error?.entity == "Writer" && error?.attribute == "books", "\(payload)")
                #expect(error?.codingPath == path, "\(payload)")
                #expect(
                    error?.message.hasSuffix("expected Book's id (Int), \(found)") == true, "\(error?.message ?? "")")
            }
        }
        // The relationship's own key takes either.
        let writer = try decode(Writer.self, #"{"id": 1, "name": "U", "books": [10, {"id": 11, "title": "B"}]}"#)
        #expect(writer.books.map(\.id) == [10, 11])
    }

    @Test func toManyNestedOrByReferenceKeepsThePayloadsOrder() throws {
        let writer = try decode(
            Writer.self, #"{"id": 1, "name": "Ursula", "books": [{"id": 11, "title": "B"}, {"id": 10, "title": "A"}]}"#)
        #expect(writer.books.map(\.id) == [11, 10])
        #expect(writer.books.allSatisfy { $0.writer === writer })
        try context.save()
        // Read again from the store after the save (which let go of the list it set).
        #expect(writer.books.map(\.id) == [11, 10])
        _ = try decode(Writer.self, #"{"id": 1, "name": "Ursula", "bookIds": [10, 12]}"#)
        #expect(writer.books.map(\.id) == [10, 12])
        let dropped = try #require(
            try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 11 })).first)
        #expect(dropped.writer == nil)
        // Absent: left as it is. Empty: emptied.
        _ = try decode(Writer.self, #"{"id": 1, "name": "Ursula"}"#)
        #expect(writer.books.map(\.id) == [10, 12])
        _ = try decode(Writer.self, #"{"id": 1, "name": "Ursula", "books": []}"#)
        #expect(writer.books.isEmpty)
    }

    @Test func nullClearsAToOneRelationship() throws {
        let book = try decode(Book.self, #"{"id": 10, "writer": {"id": 1, "name": "Ursula"}}"#)
        try context.save()
        _ = try decode(Book.self, #"{"id": 10, "writer": null}"#)
        #expect(book.writer == nil)
        try context.save()
        #expect(try ManagedObjectContext(container).fetch(FetchDescriptor<Book>()).first?.writer == nil)
    }

    /// The recipe takes a to-one's own key without asking whether it is there, while the last
    /// object had it (`RelationshipDescription.ownKeyHoldsValues`): objects that name their
    /// target every way in turn, absent and `null` among them, each get what they say, with
    /// and without the snake-case key strategy.
    @Test func objectsNamingTheirTargetEveryWayInTurnEachGetWhatTheySay() throws {
        _ = try decode([Book].self, #"[{"id": 1, "writer": {"id": 1, "name": "Ursula"}}, {"id": 2, "writerId": 1}]"#)
        try context.save()
        let payload = [
            #"{"id": 1, "writer": {"id": 2, "name": "Octavia"}}"#,  // own key, an object
            #"{"id": 8, "writer": 1}"#,  // own key, a reference, taken without asking
            #"{"id": 2}"#,  // absent: left as it is
            #"{"id": 3, "writerId": 2}"#,  // another key
            #"{"id": 4, "writer": 1}"#,  // own key, a reference, after another key
            #"{"id": 5, "writer": null}"#,  // own key, null
            #"{"id": 1, "writer_id": 1}"#,  // another key again: Ursula once more
            #"{"id": 6, "writer": {"id": 2, "name": "Octavia E."}}"#,
            #"{"id": 7, "writer": null, "writerId": 2}"#,  // the own key comes first, and says null
            #"{"id": 9, "wr\#u{0456}ter": 1}"#,  // a look-alike key (Cyrillic і): not the writer
        ]
        for snakeCase in [false, true] {
            let books = try decode([Book].self, "[" + payload.joined(separator: ",") + "]", snakeCase: snakeCase)
            #expect(books.map(\.id) == [1, 8, 2, 3, 4, 5, 1, 6, 7, 9])
            // Book 1 is named twice: the second time by writer_id.
            #expect(books.map { $0.writer?.id } == [1, 1, 1, 2, 1, nil, 1, 2, nil, nil])
        }
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.id)]))
        #expect(
            stored.map { $0.writer?.name } == [
                "Ursula", "Ursula", "Octavia E.", "Ursula", nil, "Octavia E.", nil, "Ursula", nil,
            ])
    }

    /// Another decoder than JSONDecoder may throw for a missing key's super decoder, or answer
    /// it otherwise: its to-ones are read key by key, as before, and say the same.
    @Test func aPropertyListDecoderNamesTargetsEveryWayToo() throws {
        let books: [[String: Any]] = [
            ["id": 1, "writer": ["id": 1, "name": "Ursula"]], ["id": 2, "writerId": 1], ["id": 3],
            ["id": 4, "writer": 1], ["id": 1, "writerId": 1],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: books, format: .binary, options: 0)
        let decoder = PropertyListDecoder()
        decoder.userInfo[.managedObjectContext] = context
        let decoded = try decoder.decode([Book].self, from: data)
        #expect(decoded.map { $0.writer?.id } == [1, 1, nil, 1, 1])
        #expect(decoded[0].writer?.name == "Ursula")
    }

    @Test func aHundredBooksByTenWritersMakeTenWriters() throws {
        let payload = (0..<100).map { #"{"id": \#($0), "writer": {"id": \#($0 % 10), "name": "W\#($0 % 10)"}}"# }
        _ = try decode([Book].self, "[" + payload.joined(separator: ",") + "]")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Writer>()) == 10)
        let fresh = ManagedObjectContext(container)
        let writers = try fresh.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(writers.map { $0.books.count } == Array(repeating: 10, count: 10))
    }

    @Test func errorsInsideANestedObjectNameItsPath() throws {
        #expect {
            _ = try decode([Book].self, #"[{"id": 10, "writer": {"id": 1, "name": 5}}]"#)
        } throws: { error in
            let error = error as? StashError
            return error?.entity == "Writer" && error?.attribute == "name" && error?.codingPath == "[0].writer.name"
        }
        #expect {
            _ = try decode(Book.self, #"{"id": 10, "writer": [1]}"#)
        } throws: { error in
            let error = error as? StashError
            return error?.code == .decodingFailed && error?.attribute == "writer"
        }
    }

    @Test func encodingNamesRelatedObjectsByTheirUniqueValues() throws {
        let writer = try decode(
            Writer.self, #"{"id": 1, "name": "Ursula", "books": [{"id": 11, "title": "B"}, {"id": 10, "title": "A"}]}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(writer), as: UTF8.self) == #"{"books":[11,10],"id":1,"name":"Ursula"}"#)
        #expect(
            String(decoding: try encoder.encode(writer.books[0]), as: UTF8.self)
                == #"{"id":11,"publisher":null,"reviews":[],"title":"B","writer":1}"#)
    }
}
