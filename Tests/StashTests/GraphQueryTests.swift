import Foundation
import Testing

@testable import Stash

/// Predicates through relationships: a to-one's values by subquery, a to-many's `count`,
/// `isEmpty`, `contains(where:)` and `allSatisfy` by `EXISTS`; the SQL asserted, the rows
/// checked against `Predicate.evaluate`.
@Suite struct GraphQueryTests {
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
            #"((SELECT "r1"."name" FROM "Writer" AS "r1" WHERE "r1"."_pk" = "Book"."writer") IS ?)"#,
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
            #"((SELECT "r1"."name" FROM "Writer" AS "r1" WHERE "r1"."_pk" = (SELECT "r2"."writer" FROM "Book" AS "r2" WHERE "r2"."_pk" = "Review"."book")) IS ?)"#,
            [.text("Octavia")], [200], id: \.id)
        try check(
            #Predicate<Employee> { $0.manager?.id == 1 },
            #"((SELECT "r1"."id" FROM "Employee" AS "r1" WHERE "r1"."_pk" = "Employee"."manager") IS ?)"#,
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

    @Test func relatedRowsAreFoundThroughTheForeignKeysIndex() throws {
        let store = try #require(container.store as? SQLiteStore)
        let entity = try container.entity(for: Writer.self)
        let query = try FetchDescriptor<Writer>(predicate: #Predicate { $0.books.contains { $0.title == "x" } })
            .storeQuery(for: entity)
        let plan = try store.queryPlan(query).joined(separator: "\n")
        #expect(plan.contains("SEARCH r1 USING INDEX Book_writer_index (writer=?)"), "\(plan)")
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
