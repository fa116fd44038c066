import Foundation
import Testing

@testable import Stash

/// Predicates through relationships: a to-one's values by subquery, a to-many's `count`,
/// `isEmpty`, `contains(where:)` and `allSatisfy` by `EXISTS`; the SQL asserted, the rows
/// checked against `Predicate.evaluate`.
@Suite(.bothStores) struct GraphQueryTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        container = try graphContainer()
        try seedLibrary(container)
        let staff = ManagedObjectContext(container)
        let boss = Employee(context: staff)
        boss.id = 1
        for id in [2, 3] {
            let report = Employee(context: staff)
            report.id = id
            report.manager = boss
        }
        try staff.save()
        context = ManagedObjectContext(container)
    }

    func check<T: ManagedObject>(
        _ predicate: Predicate<T>, _ sql: String, _ parameters: [StoredValue], _ expected: [Int], id: KeyPath<T, Int>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (text, bound) = try condition(predicate)
        #expect(text == sql, sourceLocation: sourceLocation)
        #expect(bound == parameters, sourceLocation: sourceLocation)
        let all = try context.fetch(FetchDescriptor<T>())
        #expect(
            try all.filter { try predicate.evaluate($0) }.map { $0[keyPath: id] } == expected,
            sourceLocation: sourceLocation)
        #expect(
            try context.fetch(FetchDescriptor(predicate: predicate)).map { $0[keyPath: id] } == expected,
            sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count,
            sourceLocation: sourceLocation)
    }

    @Test func throughAToOneRelationship() throws {
        try check(
            #Predicate<Book> { $0.writer?.name == "Ursula" },
            #"("writer" IN (SELECT "r1"."_pk" FROM "Writer" AS "r1" WHERE "r1"."name" IS ?))"#,
            [.text("Ursula")], [10, 11], id: \.id)
        try check(#Predicate<Book> { $0.publisher == nil }, #"("publisher" IS ?)"#, [.null], [20], id: \.id)
        let octavia = try #require(
            try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 2 })).first)
        try check(
            #Predicate<Book> { $0.writer == octavia }, #"("writer" IS ?)"#, [.integer(try #require(octavia.rowID))],
            [20], id: \.id)
        try check(
            #Predicate<Review> { $0.book?.writer?.name == "Octavia" },
            // `?.` chains left to right: the writer's key is read from the book first.
            #"((SELECT "r2"."writer" FROM "Book" AS "r2" WHERE "r2"."_pk" = "Review"."book") IN (SELECT "r1"."_pk" FROM "Writer" AS "r1" WHERE "r1"."name" IS ?))"#,
            [.text("Octavia")], [200], id: \.id)
        try check(
            #Predicate<Employee> { $0.manager?.id == 1 },
            #"("manager" IN (SELECT "r1"."_pk" FROM "Employee" AS "r1" WHERE "r1"."id" IS ?))"#,
            [.integer(1)], [2, 3], id: \.id)
    }

    @Test func throughAToManyRelationship() throws {
        try check(
            #Predicate<Writer> { $0.books.count >= 2 },
            #"((SELECT count(*) FROM "Book" AS "r1" WHERE "r1"."writer" = "Writer"."_pk") >= ?)"#, [.integer(2)], [1],
            id: \.id)
        try check(
            #Predicate<Book> { $0.reviews.isEmpty },
            #"(NOT EXISTS (SELECT 1 FROM "Review" AS "r1" WHERE "r1"."book" = "Book"."_pk"))"#, [], [11], id: \.id)
        try check(
            #Predicate<Writer> { $0.books.contains { $0.title == "Book 20" } },
            #"EXISTS (SELECT 1 FROM "Book" AS "r1" WHERE "r1"."writer" = "Writer"."_pk" AND ("r1"."title" = ?))"#,
            [.text("Book 20")], [2], id: \.id)
        try check(
            #Predicate<Book> { $0.reviews.allSatisfy { $0.stars >= 4 } },
            #"(NOT EXISTS (SELECT 1 FROM "Review" AS "r1" WHERE "r1"."book" = "Book"."_pk" AND (NOT coalesce(("r1"."stars" >= ?), ?))))"#,
            [.integer(4), .integer(0)], [10, 11], id: \.id)
        try check(
            #Predicate<Writer> { $0.books.contains { $0.reviews.contains { $0.stars == 3 } } },
            #"EXISTS (SELECT 1 FROM "Book" AS "r1" WHERE "r1"."writer" = "Writer"."_pk" AND EXISTS (SELECT 1 FROM "Review" AS "r2" WHERE "r2"."book" = "r1"."_pk" AND ("r2"."stars" = ?)))"#,
            [.integer(3)], [2], id: \.id)
        try check(
            #Predicate<Employee> { $0.reports.contains { $0.id == 3 } },
            #"EXISTS (SELECT 1 FROM "Employee" AS "r1" WHERE "r1"."manager" = "Employee"."_pk" AND ("r1"."id" = ?))"#,
            [.integer(3)], [1], id: \.id)
    }

    @Test(.sqliteOnly("counts the statements SQLiteStore runs")) func relatedRowsAreFoundThroughTheForeignKeysIndex()
        throws
    {
        let store = try #require(container.store as? SQLiteStore)
        let entity = try container.entity(for: Writer.self)
        let query = try FetchDescriptor<Writer>(predicate: #Predicate { $0.books.contains { $0.title == "x" } })
            .storeQuery(for: entity)
        let plan = try store.queryPlan(query).joined(separator: "\n")
        #expect(plan.contains("SEARCH r1 USING INDEX Book_writer_index (writer=?)"), "\(plan)")
    }

    /// A to-one's value compared with a constant is the related rows that pass, found once:
    /// the rows are then looked up by the foreign key's index, not each one's related row
    /// read in turn (a full scan: 484 ms to count one feed's entries among 500,000).
    @Test(.sqliteOnly("counts the statements SQLiteStore runs"))
    func aToOneValueTestReadsTheRelatedRowsOnceAndUsesTheKeysIndex() throws {
        let store = try #require(container.store as? SQLiteStore)
        let entity = try container.entity(for: Book.self)
        let query = try FetchDescriptor<Book>(predicate: #Predicate { $0.writer?.name == "Ursula" })
            .storeQuery(for: entity)
        let plan = try store.queryPlan(query).joined(separator: "\n")
        #expect(plan.contains("USING INDEX Book_writer_index (writer=?)"), "\(plan)")
        #expect(plan.contains("LIST SUBQUERY"), "\(plan)")
        #expect(!plan.contains("CORRELATED"), "\(plan)")
    }

    @Test func aClosureCannotReachOutsideItsRows() throws {
        #expect {
            _ = try context.fetch(
                FetchDescriptor<Writer>(
                    predicate: #Predicate { writer in
                        writer.books.contains { $0.title == writer.name }
                    }))
        } throws: { error in
            (error as? StashError)?.message.contains("can only read those objects") == true
        }
    }

    @Test func unsavedObjectsAreJudgedInMemory() throws {
        let writer = try #require(
            try context.fetch(FetchDescriptor<Writer>(predicate: #Predicate { $0.id == 2 })).first)
        let book = Book(context: context)
        book.id = 21
        book.writer = writer
        let found = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.writer?.name == "Octavia" }))
        #expect(found.map(\.id) == [20, 21])
    }
}

/// Prefetching: one query per relationship for all the fetched objects.
@Suite(.sqliteOnly("counts the statements SQLiteStore runs")) struct GraphPrefetchTests {
    /// Statements run on the store's connections so far.
    func statements(_ container: PersistentContainer) -> Int {
        (container.store as! SQLiteStore).statementsRun
    }

    /// Forty books by twenty writers, each with two reviews; ten tickets with topics.
    func library() throws -> PersistentContainer {
        let container = try graphContainer()
        let context = ManagedObjectContext(container)
        let books = (0..<40).map { #"{"id": \#($0), "writer": {"id": \#($0 % 20), "name": "W\#($0 % 20)"}}"# }
        _ = try recipeDecoder(context).decode([Book].self, from: json("[" + books.joined(separator: ",") + "]"))
        let reviews = (0..<80).map { #"{"id": \#($0), "stars": \#($0 % 5), "bookId": \#($0 / 2)}"# }
        _ = try recipeDecoder(context).decode([Review].self, from: json("[" + reviews.joined(separator: ",") + "]"))
        try context.save()
        return container
    }

    @Test func aToOneRelationshipLoadsInOneQuery() throws {
        let container = try library()
        let lazy = ManagedObjectContext(container)
        var before = statements(container)
        let books = try lazy.fetch(FetchDescriptor<Book>())
        #expect(Set(books.compactMap { $0.writer?.name }).count == 20)
        // Not prefetched, the first read loads the writers of all forty books, which fit in
        // one window of the fetch (`FetchedRows`): one query, not one per writer.
        #expect(statements(container) - before == 1 + 1)

        let eager = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Book>()
        descriptor.relationshipKeyPathsForPrefetching = [\.writer]
        before = statements(container)
        let prefetched = try eager.fetch(descriptor)
        #expect(Set(prefetched.compactMap { $0.writer?.name }).count == 20)
        #expect(statements(container) - before == 2)
    }

    @Test func toManyRelationshipsLoadInOneQueryEach() throws {
        let container = try library()
        let context = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)])
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        let before = statements(container)
        let writers = try context.fetch(descriptor)
        #expect(writers.map { $0.books.map(\.id) }[0...1] == [[0, 20], [1, 21]])
        #expect(writers.allSatisfy { $0.books.count == 2 })
        #expect(statements(container) - before == 2)
        // What prefetching made is what loading one list makes.
        let lazy = ManagedObjectContext(container)
        let one = try lazy.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        #expect(one.map { $0.books.map(\.id) } == writers.map { $0.books.map(\.id) })
    }

    @Test func manyToManyListsLoadInOneQueryAndKeepTheirOrder() throws {
        let container = try ticketContainer()
        let context = ManagedObjectContext(container)
        _ = try recipeDecoder(context).decode(
            [Ticket].self,
            from: json(#"[{"number": 1, "topics": ["ui", "bug"]}, {"number": 2, "topics": ["bug"]}, {"number": 3}]"#))
        try context.save()
        let fresh = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.number)])
        descriptor.relationshipKeyPathsForPrefetching = [\.topics]
        let before = statements(container)
        let tickets = try fresh.fetch(descriptor)
        #expect(tickets.map { $0.topics.map(\.name) } == [["ui", "bug"], ["bug"], []])
        #expect(statements(container) - before == 3)
    }
}

/// Sort descriptors through to-one relationships: the related value by subquery, nil first,
/// the unsaved changes merged as Swift orders them.
@Suite(.bothStores) struct GraphSortTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    /// Writers Ursula (books 10, 11) and Octavia (book 20), a book with no writer (30), and
    /// reviews of books 10, 11, 20.
    init() throws {
        container = try graphContainer()
        try seedLibrary(container)
        let seed = ManagedObjectContext(container)
        let orphan = Book(context: seed)
        orphan.id = 30
        try seed.save()
        context = ManagedObjectContext(container)
    }

    func sql<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) throws -> String {
        let entity = try container.entity(for: T.self)
        let store = try #require(container.store as? SQLiteStore)
        var query = try descriptor.storeQuery(for: entity)
        query.columns = []
        return store.renderedSelect(query).text
    }

    @Test(.sqliteOnly("the SELECT text SQLiteStore renders")) func byAValueOfTheRelatedObject() throws {
        let byWriter = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.writer?.name), SortDescriptor(\.id)])
        #expect(
            try sql(byWriter)
                == #"SELECT "_pk" FROM "Book" ORDER BY (SELECT "r1"."name" FROM "Writer" AS "r1" WHERE "r1"."_pk" = "Book"."writer"), "id", "_pk""#
        )
        #expect(try context.fetch(byWriter).map(\.id) == [30, 20, 10, 11])
        let reversed = FetchDescriptor<Book>(
            sortBy: [SortDescriptor(\.writer?.name, order: .reverse), SortDescriptor(\.id, order: .reverse)])
        #expect(try context.fetch(reversed).map(\.id) == [11, 10, 20, 30])
    }

    @Test(.sqliteOnly("the SELECT text SQLiteStore renders")) func throughTwoRelationships() throws {
        let descriptor = FetchDescriptor<Review>(sortBy: [SortDescriptor(\.book?.writer?.name), SortDescriptor(\.id)])
        #expect(
            try sql(descriptor)
                == #"SELECT "_pk" FROM "Review" ORDER BY (SELECT (SELECT "r2"."name" FROM "Writer" AS "r2" WHERE "r2"."_pk" = "r1"."writer") FROM "Book" AS "r1" WHERE "r1"."_pk" = "Review"."book"), "id", "_pk""#
        )
        #expect(try context.fetch(descriptor).map(\.id) == [200, 100, 101])
        let all = try context.fetch(FetchDescriptor<Review>())
        #expect(all.sorted(using: descriptor.sortBy).map(\.id) == [200, 100, 101])
    }

    @Test func unsavedChangesTakeTheirPlace() throws {
        let writers = try context.fetch(FetchDescriptor<Writer>(sortBy: [SortDescriptor(\.id)]))
        let book = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.id == 11 })).first)
        book.writer = writers[1]
        let ada = Writer(context: context)
        ada.id = 3
        ada.name = "Ada"
        let new = Book(context: context)
        new.id = 40
        new.writer = ada
        let descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.writer?.name), SortDescriptor(\.id)])
        let expected = [30, 40, 11, 20, 10]
        #expect(try context.fetch(descriptor).map(\.id) == expected)
        try context.save()
        #expect(try ManagedObjectContext(container).fetch(descriptor).map(\.id) == expected)
    }

    @Test func aComputedValueOrAToManyIsRefusedByName() throws {
        let computed = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.writer?.name.count)])
        #expect {
            _ = try context.fetch(computed)
        } throws: { error in
            let error = error as? StashError
            return error?.code == .unsupportedQuery && error?.entity == "Writer" && error?.attribute == "name"
        }
        let throughObject = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.writer?.id)])
        #expect(try context.fetch(throughObject).map(\.id) == [30, 10, 11, 20])
    }
}
