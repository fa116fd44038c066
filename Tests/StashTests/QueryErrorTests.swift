import Foundation
import Testing

@testable import Stash

/// What the store cannot evaluate is an error that names it, never an answer computed some
/// other way; values never become SQL.
@Suite(.bothStores) struct QueryErrorTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        (container, context) = try seededArticles()
    }

    /// The error a fetch and a count throw for the descriptor.
    func failure(_ descriptor: FetchDescriptor<Article>) -> StashError? {
        var fetchError: StashError?
        do { _ = try context.fetch(descriptor) } catch { fetchError = error as? StashError }
        var countError: StashError?
        do { _ = try context.fetchCount(descriptor) } catch { countError = error as? StashError }
        #expect(fetchError?.message == countError?.message)
        #expect(fetchError?.code == .unsupportedQuery)
        #expect(fetchError?.entity == "Article")
        return fetchError
    }

    @Test func unsupportedExpressionsAreNamed() throws {
        let live = Stage.live
        let gold = Rank.gold
        let cases: [(Predicate<Article>, String)] = [
            (#Predicate { $0.note! == "a" }, "ForcedUnwrap in a predicate"),
            (#Predicate { $0.shouting == "SWIFT" }, "computes a value from title"),
            (#Predicate { $0.price * 2 > 10 }, "Arithmetic in a predicate: arithmetic in the store is on integers"),
            (#Predicate { $0.tags.contains { $0 == "swift" } }, "SequenceContainsWhere in a predicate"),
            (#Predicate { $0.stage == live || $0.rank < gold }, "values of this type compare for equality only"),
        ]
        for (predicate, message) in cases {
            let error = failure(FetchDescriptor(predicate: predicate))
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        }
    }

    @Test func unsupportedSortsAreNamed() throws {
        let byRank = failure(FetchDescriptor(sortBy: [SortDescriptor(\.rank)]))
        #expect(byRank?.attribute == "rank")
        #expect(byRank?.message.contains("Swift orders enums by their declaration") == true)
        let computed = failure(FetchDescriptor(sortBy: [SortDescriptor(\.shouting)]))
        #expect(computed?.message.contains("computes a value from title") == true)
    }

    @Test(.sqliteOnly("stores text holding U+0000, which PostgreSQL refuses by name (invalidValue)"))
    func valuesNeverBecomeSQL() throws {
        let hostile = [
            #"x'); DROP TABLE "Article"; --"#, #"" OR 1=1 --"#, "a\"]", "\\", "\u{0}nul", "%", "_", "' OR '1'='1",
        ]
        for (offset, text) in hostile.enumerated() {
            let article = Article(context: context)
            article.id = 100 + offset
            article.title = text
        }
        try context.save()
        let fresh = ManagedObjectContext(container)
        for (offset, text) in hostile.enumerated() {
            #expect(try ids(fresh, FetchDescriptor(predicate: #Predicate { $0.title == text })) == [100 + offset])
            #expect(
                try ids(fresh, FetchDescriptor(predicate: #Predicate { $0.title.contains(text) })).contains(
                    100 + offset))
            let list = [text]
            #expect(
                try ids(fresh, FetchDescriptor(predicate: #Predicate { list.contains($0.title) })) == [100 + offset])
        }
        #expect(try fresh.fetchCount(FetchDescriptor<Article>()) == 6 + hostile.count)
        let (sql, parameters) = try condition(#Predicate<Article> { $0.title == hostile[0] })
        #expect(sql == #"("title" = ?)"#)
        #expect(parameters == [.text(hostile[0])])
    }
}
