import Foundation
import Testing

@testable import Stash

/// Six articles whose values reach every corner a query has: NULLs, negative numbers,
/// `%`, `_`, `'` and `\` in text, composed and decomposed accents, emoji sequences,
/// decimals whose text order is not their value order, dates a fraction apart.
func seededArticles() throws -> (PersistentContainer, ManagedObjectContext) {
    let container = try testContainer(for: Article.self, inMemory: true)
    let context = ManagedObjectContext(container)
    func article(_ id: Int, _ fill: (Article) -> Void) {
        let article = Article(context: context)
        article.id = id
        fill(article)
    }
    article(1) {
        $0.feedID = 1
        $0.title = "Swift 6 released"
        $0.score = 10
        $0.small = -3
        $0.big = 1
        $0.rating = 4.5
        $0.ratio = 0.5
        $0.starred = true
        $0.publishedAt = day(1)
        $0.price = Decimal(string: "9.5")!
        $0.link = URL(string: "https://swift.org")
        $0.stage = .live
        $0.priority = .high
        $0.tags = ["swift", "news"]
        $0.bytes = Data([1])
    }
    article(2) {
        $0.feedID = 1
        $0.title = "100% pure_SQL"
        $0.note = "a"
        $0.score = 20
        $0.small = 5
        $0.big = 1 << 40
        $0.rating = 3
        $0.read = true
        $0.starred = false
        $0.publishedAt = day(2)
        $0.editedAt = day(2).addingTimeInterval(0.5)
        $0.price = 10
        $0.discount = Decimal(string: "0.5")!
        $0.stage = .draft
        $0.tags = []
    }
    article(3) {
        $0.feedID = 2
        $0.title = "Caf\u{E9} \u{2615}\u{FE0F} O'Reilly \\ back"
        $0.note = ""
        $0.score = -5
        $0.rating = -1.25
        $0.publishedAt = day(3).addingTimeInterval(0.5)
        $0.price = 100
        $0.discount = 2
        $0.stage = .review
        $0.priority = .low
        $0.tags = ["news"]
    }
    article(4) {
        $0.feedID = 2
        $0.title = "Cafe\u{301} with e and a family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        $0.note = "b"
        $0.score = 0
        $0.rating = 0
        $0.read = true
        $0.publishedAt = day(4)
        $0.editedAt = day(5)
        $0.price = Decimal(string: "9.99")!
        $0.stage = .live
        $0.tags = ["swift"]
    }
    article(5) {
        $0.feedID = 3
        $0.title = "swift lowercase"
        $0.score = 7
        $0.rating = 10
        $0.publishedAt = day(5)
        $0.price = Decimal(string: "0.0000000000000000000001")!
        $0.discount = Decimal(string: "-3")!
        $0.stage = .draft
        $0.priority = .low
    }
    article(6) {
        $0.feedID = 3
        $0.title = ""
        $0.note = "%"
        $0.score = 7
        $0.rating = 2.5
        $0.publishedAt = day(5)
        $0.price = Decimal(string: "12345678901234567890.123456789")!
        $0.stage = .review
    }
    try context.save()
    return (container, ManagedObjectContext(container))
}

/// The SQL condition a predicate becomes, and its parameters.
func condition<T: ManagedObject>(_ predicate: Predicate<T>) throws -> (String, [StoredValue]) {
    let entity = try EntityRegistry.shared.entity(for: T.self)
    var renderer = QueryRenderer(entity.schema)
    let text = renderer.render(try PredicateTranslator.translate(predicate, for: entity))
    return (text, renderer.parameters)
}

/// The ids a fetch returns, in order.
func ids(_ context: ManagedObjectContext, _ descriptor: FetchDescriptor<Article>) throws -> [Int] {
    try context.fetch(descriptor).map(\.id)
}

/// The ids whose objects the predicate holds for, as Foundation evaluates it in memory.
func evaluatedIDs(_ context: ManagedObjectContext, _ predicate: Predicate<Article>) throws -> [Int] {
    try context.fetch(FetchDescriptor<Article>()).filter { try predicate.evaluate($0) }.map(\.id)
}
