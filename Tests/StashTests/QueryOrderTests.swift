import Foundation
import Testing

@testable import Stash

/// Sorting, paging and counting in the store, and how a context's unsaved changes join in.
@Suite(.bothStores) struct QueryOrderTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        (container, context) = try seededArticles()
    }

    /// The SELECT the store runs for a descriptor.
    func select(_ descriptor: FetchDescriptor<Article>) throws -> (text: String, parameters: [StoredValue]) {
        let entity = try container.entity(for: Article.self)
        let store = try #require(container.store as? SQLiteStore)
        var query = try descriptor.storeQuery(for: entity)
        query.columns = [entity.attribute(named: "id")!.index]
        return store.renderedSelect(query)
    }

    @Test func sortKeysBothDirectionsAndTiesByRowID() throws {
        let descriptor = FetchDescriptor<Article>(
            sortBy: [SortDescriptor(\.feedID, order: .reverse), SortDescriptor(\.score)])
        #expect(try ids(context, descriptor) == [5, 6, 3, 4, 1, 2])
        // The last key descending: ties go by row id descending, so an index on it (which
        // ends with the row id) gives the whole order.
        let newest = FetchDescriptor<Article>(sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
        #expect(try ids(context, newest) == [6, 5, 4, 3, 2, 1])
    }

    @Test func everySortableTypeOrdersAsSwiftDoes() throws {
        let all = try context.fetch(FetchDescriptor<Article>())
        let sorts: [SortDescriptor<Article>] = [
            SortDescriptor(\.id), SortDescriptor(\.small), SortDescriptor(\.big, order: .reverse),
            SortDescriptor(\.rating), SortDescriptor(\.ratio), SortDescriptor(\.title), SortDescriptor(\.note),
            SortDescriptor(\.publishedAt), SortDescriptor(\.editedAt, order: .reverse), SortDescriptor(\.price),
            SortDescriptor(\.discount), SortDescriptor(\.uuid),
        ]
        for sort in sorts {
            let swift = all.sorted { first, second in
                switch sort.compare(first, second) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: sort.order == .reverse ? first.id > second.id : first.id < second.id
                }
            }
            #expect(try ids(context, FetchDescriptor(sortBy: [sort])) == swift.map(\.id), "\(sort)")
        }
    }

    /// The SELECT text SQLite runs for the orders and pages above.
    @Test(.sqliteOnly("the SELECT text SQLiteStore renders")) func theSQLiteOrderAndPageText() throws {
        #expect(
            try select(FetchDescriptor(sortBy: [SortDescriptor(\.feedID, order: .reverse), SortDescriptor(\.score)]))
                .text == #"SELECT "_pk", "id" FROM "Article" ORDER BY "feedID" DESC, "score", "_pk""#)
        #expect(
            try select(FetchDescriptor(sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])).text
                == #"SELECT "_pk", "id" FROM "Article" ORDER BY "publishedAt" DESC, "_pk" DESC"#)
        #expect(
            try select(FetchDescriptor(sortBy: [SortDescriptor(\.price)])).text.hasSuffix(
                #"ORDER BY "price" COLLATE STASH_DECIMAL, "_pk""#))
        var page = FetchDescriptor<Article>(
            predicate: #Predicate { !$0.read }, sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
        page.fetchLimit = 2
        page.fetchOffset = 1
        let sql = try select(page)
        #expect(
            sql.text
                == #"SELECT "_pk", "id" FROM "Article" WHERE ("read" = ?) ORDER BY "publishedAt" DESC, "_pk" DESC LIMIT ? OFFSET ?"#
        )
        #expect(sql.parameters == [.integer(0), .integer(2), .integer(1)])
    }

    @Test func decimalsSortByValueAndNilFirst() throws {
        let byPrice = FetchDescriptor<Article>(sortBy: [SortDescriptor(\.price)])
        // 1e-22, 9.5, 9.99, 10, 100, 12345678901234567890.123456789: not text order.
        #expect(try ids(context, byPrice) == [5, 1, 4, 2, 3, 6])
        // nil sorts first, as Swift orders optionals.
        #expect(try ids(context, FetchDescriptor(sortBy: [SortDescriptor(\.note)])) == [1, 5, 3, 6, 2, 4])
        #expect(
            try ids(context, FetchDescriptor(sortBy: [SortDescriptor(\.note, order: .reverse)])) == [4, 2, 6, 3, 5, 1])
    }

    @Test func limitAndOffsetPageInTheStore() throws {
        var page = FetchDescriptor<Article>(
            predicate: #Predicate { !$0.read }, sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
        page.fetchLimit = 2
        page.fetchOffset = 1
        #expect(try ids(context, page) == [5, 3])
        #expect(try context.fetchCount(page) == 2)
        page.fetchOffset = 3
        #expect(try ids(context, page) == [1])
        #expect(try context.fetchCount(page) == 1)
    }

    @Test(.sqliteOnly("the count SQLiteStore renders")) func countRunsInTheStore() throws {
        let store = try #require(container.store as? SQLiteStore)
        let entity = try container.entity(for: Article.self)
        let unread = FetchDescriptor<Article>(predicate: #Predicate { !$0.read && $0.score > 0 })
        #expect(
            store.renderedCount(try unread.storeQuery(for: entity)).text
                == #"SELECT count(*) FROM "Article" WHERE (("read" = ?) AND ("score" > ?))"#)
        #expect(try context.fetchCount(unread) == 3)
        // No object is made to count.
        #expect(context.registeredObjectCount == 0)
    }

    /// Unsaved inserts, changes and deletions take part in predicate, order, limit and offset
    /// exactly as they will once saved.
    @Test func unsavedChangesJoinTheQueryAsTheyWillBeSaved() throws {
        var descriptor = FetchDescriptor<Article>(
            predicate: #Predicate { $0.score >= 0 },
            sortBy: [SortDescriptor(\.score, order: .reverse)])
        let all = try context.fetch(FetchDescriptor<Article>())
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        byID[1]!.score = 7  // now ties with 5 and 6
        byID[3]!.score = 30  // now matches, and first
        byID[2]!.score = -1  // no longer matches
        context.delete(byID[4]!)
        for id in [7, 8] {
            let new = Article(context: context)
            new.id = id
            new.score = 7  // ties too: after the stored rows
        }
        let results = [nil, 1, 2, 3, 10].flatMap { limit in
            [0, 1, 2, 4].map { offset -> ([Int], Int, Int?, Int) in
                descriptor.fetchLimit = limit
                descriptor.fetchOffset = offset
                let page = (try? ids(context, descriptor)) ?? []
                let count = (try? context.fetchCount(descriptor)) ?? -1
                return (page, count, limit, offset)
            }
        }
        #expect(
            try ids(context, FetchDescriptor(predicate: descriptor.predicate, sortBy: descriptor.sortBy)) == [
                3, 8, 7, 6, 5, 1,
            ])
        try context.save()
        let fresh = ManagedObjectContext(container)
        for (page, count, limit, offset) in results {
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            #expect(try ids(fresh, descriptor) == page, "limit \(String(describing: limit)) offset \(offset)")
            #expect(try fresh.fetchCount(descriptor) == count, "limit \(String(describing: limit)) offset \(offset)")
        }
    }

    @Test func resultsAreTheRegisteredInstances() throws {
        let first = try context.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.feedID == 1 }))
        let second = try context.fetch(FetchDescriptor<Article>(sortBy: [SortDescriptor(\.id)]))
        #expect(first[0] === second[0])
        #expect(first[1] === second[1])
        #expect(Set(second.map(ObjectIdentifier.init)).count == 6)
    }

    /// Deep pages while changes are unsaved: the store skips rows itself, and every page is
    /// the one the saved store gives.
    @Test func deepPagesWithUnsavedChangesMatchTheSavedStore() throws {
        let (container, context) = try savedPosts(300)
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.id)]))
        for post in posts where post.id % 9 == 0 { post.userId = 3 }
        for post in posts where post.id % 13 == 0 { context.delete(post) }
        for post in posts where post.id % 17 == 0 { post.read = true }
        for id in 1_000..<1_020 {
            let post = Post(context: context)
            post.id = id
            post.userId = id % 5
            post.title = "New \(id)"
            post.body = ""
        }
        var descriptor = FetchDescriptor<Post>(
            predicate: #Predicate { !$0.read }, sortBy: [SortDescriptor(\.userId, order: .reverse)])
        descriptor.fetchLimit = 11
        var pages: [[Int]] = []
        for offset in stride(from: 0, through: 330, by: 11) {
            descriptor.fetchOffset = offset
            pages.append(try context.fetch(descriptor).map(\.id))
        }
        try context.save()
        let fresh = ManagedObjectContext(container)
        for (number, offset) in stride(from: 0, through: 330, by: 11).enumerated() {
            descriptor.fetchOffset = offset
            #expect(try fresh.fetch(descriptor).map(\.id) == pages[number], "offset \(offset)")
        }
        #expect(
            pages.joined().count == (try fresh.fetchCount(FetchDescriptor<Post>(predicate: #Predicate { !$0.read }))))
    }
}
