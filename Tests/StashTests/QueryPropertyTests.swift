import Foundation
import TestProcesses
import Testing

@testable import Stash

/// The store's answer to a predicate must be Foundation's own: several hundred predicates,
/// composed at random from Foundation's expression nodes in every form the store
/// translates, each fetched with SQL and evaluated with `Predicate.evaluate` in memory over
/// a few thousand rows. The rows draw their values from small pools, so that predicates
/// tie, repeat and meet NULL, and the pools hold what SQL is easily wrong about: `%`, `_`,
/// `'`, `\`, accents, emoji sequences, decimals whose text order is not their value order,
/// dates a millisecond apart. The seed is fixed, so a failure reproduces; its message names
/// the seed, the predicate and the rows the two answers differ on.
@Suite(.bothStores) struct QueryPropertyTests {
    static let seed: UInt64 = 0x5EED_2026_0001
    static let rowCount = 2_500
    /// Predicates, and sorted pages, per batch; the batches run side by side.
    static let predicateCount = 100
    static let pageCount = 20

    /// The rows, inserted once for every test of the suite.
    static let sharedContainer = Result { try makeContainer() }

    /// A context that has inserted nothing, so every object is read from the store.
    let context: ManagedObjectContext
    /// Every article, in row order: the order of a fetch without sort descriptors.
    let all: [Article]
    /// Each article's place in row order, the store's last tie-break.
    let rowOrder: [ObjectIdentifier: Int]

    init() throws {
        context = ManagedObjectContext(try Self.sharedContainer.get())
        all = try context.fetch(FetchDescriptor<Article>())
        rowOrder = Dictionary(uniqueKeysWithValues: all.enumerated().map { (ObjectIdentifier($1), $0) })
    }

    @Test func theRowsAreWhatThePropertiesNeed() {
        #expect(all.count == Self.rowCount)
        // `==` and `<` on text compare code points, which is Swift's answer only for text in
        // one normalization form: every generated string is NFC.
        for text in Pool.titles + Pool.notes + Pool.needles + Pool.tags {
            #expect(
                Array(text.precomposedStringWithCanonicalMapping.unicodeScalars) == Array(text.unicodeScalars),
                "\(show(text)) is not NFC")
        }
        // Enough NULLs, ties and duplicates for predicates to tell answers apart.
        #expect(all.filter { $0.note == nil }.count > Self.rowCount / 5)
        #expect(Set(all.map(\.title)).count == Pool.titles.count)
        #expect(Set(all.map(\.id)).count == Self.rowCount)
    }

    @Test(arguments: 0..<3) func theStoreFindsWhatEvaluateFinds(batch: Int) {
        checkPredicates(seed: Self.seed &+ UInt64(batch), meeting: .all)
    }

    /// Sort descriptors, limits and offsets on top of random predicates: the store's order
    /// must be Swift's, by `SortDescriptor.compare` and ties by row in the direction of the
    /// last key, and a page must be that order's slice.
    @Test(arguments: 0..<3) func theStoreSortsAndPagesAsSwiftDoes(batch: Int) {
        let seed = Self.seed &+ 100 &+ UInt64(batch)
        var random = SplitMix64(seed: seed)
        for index in 0..<Self.pageCount {
            var descriptor = FetchDescriptor<Article>()
            var text = "no predicate"
            if random.chance(0.8) {
                (descriptor.predicate, text) = PredicateGenerator.predicate(depth: 2, meeting: .all, using: &random)
            }
            var sorts: [String] = []
            for _ in 0...random.int(0...1) {
                let (sort, name) = Self.randomSort(using: &random)
                descriptor.sortBy.append(sort)
                sorts.append(name)
            }
            if random.chance(0.7) { descriptor.fetchOffset = random.int(0...40) }
            if random.chance(0.7) { descriptor.fetchLimit = random.int(0...60) }
            check(
                descriptor,
                "seed \(seed), page \(index): \(text) sorted by \(sorts.joined(separator: ", ")) offset "
                    + "\(descriptor.fetchOffset.map(String.init) ?? "nil") limit "
                    + "\(descriptor.fetchLimit.map(String.init) ?? "nil")")
        }
    }

    // MARK: Bugs this test found

    // Each test below is a library bug the property test found, now fixed: the forms that
    // met it, written out, and the generator's predicates with those forms most likely.

    /// A subexpression that reads the object but that the translator reduced to a constant
    /// (`x && false`, `x || true`, `==` with a date between two milliseconds, a ternary
    /// whose test is such a constant) made its parent "fold" by evaluating the whole parent
    /// without an object, which threw: a supported predicate was refused.
    @Test func constantsReducedFromTheObject() {
        let between = Pool.dates[3].addingTimeInterval(0.0005)
        check(FetchDescriptor(predicate: #Predicate { !($0.read && false) }), "!($0.read && false)")
        check(FetchDescriptor(predicate: #Predicate { ($0.read || true) || false }), "($0.read || true) || false")
        check(
            FetchDescriptor(predicate: #Predicate { !($0.publishedAt == between) }),
            "!($0.publishedAt == between)")
        check(
            FetchDescriptor(predicate: #Predicate { (($0.read && false) ? 1 : 2) == 2 }),
            "(($0.read && false) ? 1 : 2) == 2")
        check(
            FetchDescriptor(predicate: #Predicate { $0.note.flatMap { _ in 5 } == 5 }),
            "$0.note.flatMap { _ in 5 } == 5")
        checkPredicates(seed: Self.seed &+ 200, meeting: .reducedConstants)
    }

    /// SQLite gives a `CASE` the collation of an explicit `COLLATE` anywhere inside it, its
    /// `WHEN` too: a ternary whose test compared decimals (`COLLATE STASH_DECIMAL`) compared
    /// its text or date result as decimals, and "x" equalled "". Decimals now compare
    /// through a function.
    @Test func aTernaryTestingDecimals() {
        let ten: Decimal = 10
        check(
            FetchDescriptor(predicate: #Predicate { (($0.price > ten) ? $0.title : "x") == "" }),
            "(($0.price > ten) ? $0.title : \"x\") == \"\"")
        check(
            FetchDescriptor(predicate: #Predicate { $0.title == (($0.price > ten) ? "x" : "y") }),
            "$0.title == (($0.price > ten) ? \"x\" : \"y\")")
        checkPredicates(seed: Self.seed &+ 300, meeting: .collationOfATernary)
    }

    /// A date constant that is a value rather than one side of a comparison (after `??`, in
    /// a ternary's branch) was bound rounded to the millisecond, so a date between two
    /// milliseconds equalled a stored date in SQL and none in Swift. The store cannot hold
    /// such a value exactly, so it is refused by name.
    @Test func datesBetweenMillisecondsAsValuesAreRefused() {
        let between = Pool.dates[5].addingTimeInterval(0.000_000_2)
        refused(
            FetchDescriptor(predicate: #Predicate { ($0.editedAt ?? between) == $0.publishedAt }),
            "is not a whole millisecond")
        refused(
            FetchDescriptor(predicate: #Predicate { ($0.read ? $0.publishedAt : between) <= $0.publishedAt }),
            "is not a whole millisecond")
        // A whole millisecond is a value like any other.
        let stored = Pool.dates[5]
        check(
            FetchDescriptor(predicate: #Predicate { ($0.editedAt ?? stored) == $0.publishedAt }),
            "($0.editedAt ?? \(show(stored))) == $0.publishedAt")
    }

    /// Arithmetic on a `Float` attribute ran in the store in double precision, where Swift
    /// rounds each result to a `Float`: `Float(0.1) * 10` is exactly 1 in Swift, and
    /// 1.0000000149… in SQL. It is refused by name; negation and comparisons are exact.
    @Test func arithmeticOnFloatsIsRefused() {
        refused(FetchDescriptor(predicate: #Predicate { $0.ratio * 10 == 1 }), "arithmetic on Float")
        refused(FetchDescriptor(predicate: #Predicate { $0.ratio + 0.2 == 0.3 }), "arithmetic on Float")
        check(FetchDescriptor(predicate: #Predicate { -$0.ratio < -0.05 }), "-$0.ratio < -0.05")
    }

    /// A date constant the store cannot keep (before the year 1, after 9999) threw
    /// `invalidValue` when a predicate compared with it, and so did the last millisecond of
    /// 9999 compared by `<=` or `>` (made `<` or `>=` the next millisecond); Swift answers.
    @Test func datesOutsideTheStoredYears() {
        let last = Pool.dates.last!
        let future = Date(timeIntervalSince1970: 1e12)
        let past = Date.distantPast
        check(FetchDescriptor(predicate: #Predicate { $0.publishedAt <= last }), "$0.publishedAt <= \(show(last))")
        check(FetchDescriptor(predicate: #Predicate { $0.publishedAt < future }), "$0.publishedAt < \(show(future))")
        check(FetchDescriptor(predicate: #Predicate { $0.publishedAt > past }), "$0.publishedAt > \(show(past))")
        check(
            FetchDescriptor(predicate: #Predicate { $0.editedAt.flatMap { $0 > past } == true }),
            "$0.editedAt.flatMap { $0 > past } == true")
        checkPredicates(seed: Self.seed &+ 600, meeting: .datesOutsideTheStoredYears)
    }

    /// `fetchLimit = -1` returned every row, but no row once the context had an unsaved
    /// insert: a negative limit is no object either way.
    @Test func aNegativeLimitIsNoObject() throws {
        var descriptor = FetchDescriptor<Article>()
        descriptor.fetchLimit = -1
        #expect(try context.fetch(descriptor).isEmpty)
        #expect(try context.fetchCount(descriptor) == 0)
        // Without a predicate too, a count is of the page.
        descriptor.fetchLimit = 7
        descriptor.fetchOffset = Self.rowCount - 3
        #expect(try context.fetchCount(descriptor) == 3)
    }

    /// The descriptor's fetch and count throw `unsupportedQuery` with `message` in it.
    private func refused(_ descriptor: FetchDescriptor<Article>, _ message: String) {
        for operation in ["fetch", "fetchCount"] {
            do {
                _ = operation == "fetch" ? try context.fetch(descriptor).count : try context.fetchCount(descriptor)
                Issue.record("\(operation) did not refuse the predicate")
            } catch let error as StashError {
                #expect(error.code == .unsupportedQuery)
                #expect(error.message.contains(message), "\(error)")
            } catch {
                Issue.record("\(operation) threw \(error)")
            }
        }
    }

    /// `predicateCount` random predicates, with the forms of `bugs` among them, checked.
    private func checkPredicates(seed: UInt64, meeting bugs: KnownBugs) {
        var random = SplitMix64(seed: seed)
        for index in 0..<Self.predicateCount {
            let (predicate, text) = PredicateGenerator.predicate(depth: 3, meeting: bugs, using: &random)
            check(FetchDescriptor(predicate: predicate), "seed \(seed), predicate \(index): \(text)")
        }
    }

    // MARK: Checking

    /// Fetches with the store and compares with Swift: the rows `evaluate` holds for, in
    /// the order `SortDescriptor.compare` gives, then the page the offset and limit cut.
    func check(_ descriptor: FetchDescriptor<Article>, _ label: String) {
        let matching: [Article]
        do {
            matching = try all.filter { try descriptor.predicate?.evaluate($0) ?? true }
        } catch {
            Issue.record("evaluate threw \(error) (a generator bug): \(label)")
            return
        }
        var whole = descriptor
        whole.fetchOffset = nil
        whole.fetchLimit = nil
        do {
            let found = try context.fetch(whole)
            var inRowOrder = found
            if !descriptor.sortBy.isEmpty {
                inRowOrder.sort { rowOrder[ObjectIdentifier($0)]! < rowOrder[ObjectIdentifier($1)]! }
                // Ties go by row, so Swift's order is total: a result whose every row comes
                // after the one before it is the one sorting in Swift would give.
                for (first, second) in zip(found, found.dropFirst()) where !precedes(first, second, by: whole.sortBy) {
                    Issue.record(
                        """
                        SQL's order is not Swift's: \(label)
                        \(describe(first))
                        comes before
                        \(describe(second))
                        """)
                    break
                }
            }
            compare(inRowOrder.map(\.id), matching.map(\.id), label)
            let ids = found.map(\.id)
            let start = min(descriptor.fetchOffset ?? 0, ids.count)
            let end = descriptor.fetchLimit.map { min(start + $0, ids.count) } ?? ids.count
            if descriptor.fetchOffset != nil || descriptor.fetchLimit != nil {
                let page = try context.fetch(descriptor).map(\.id)
                #expect(page == Array(ids[start..<end]), "the page is not the slice of the whole: \(label)")
            }
            let count = try context.fetchCount(descriptor)
            #expect(count == end - start, "fetchCount: \(label)")
        } catch {
            Issue.record("the store threw \(error): \(label)")
        }
    }

    /// Records the rows only one side found, with their values.
    func compare(_ found: [Int], _ expected: [Int], _ label: String) {
        guard found != expected else { return }
        let foundSet = Set(found)
        let expectedSet = Set(expected)
        let onlySQL = found.filter { !expectedSet.contains($0) }
        let onlySwift = expected.filter { !foundSet.contains($0) }
        let shown = Set(onlySQL.prefix(3) + onlySwift.prefix(3))
        Issue.record(
            """
            SQL and Swift differ: \(label)
            SQL finds \(found.count) rows, Swift \(expected.count); only SQL: \(onlySQL.prefix(10)), \
            only Swift: \(onlySwift.prefix(10))
            \(all.filter { shown.contains($0.id) }.map(describe).joined(separator: "\n"))
            """)
    }

    /// Swift's order: the sort descriptors, then row order, backwards when the last key is
    /// `.reverse` (the store's documented tie-break).
    func precedes(_ first: Article, _ second: Article, by sortBy: [SortDescriptor<Article>]) -> Bool {
        for sort in sortBy {
            switch sort.compare(first, second) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        let firstRow = rowOrder[ObjectIdentifier(first)]!
        let secondRow = rowOrder[ObjectIdentifier(second)]!
        return sortBy.last?.order == .reverse ? firstRow > secondRow : firstRow < secondRow
    }

    func describe(_ article: Article) -> String {
        let values: [(String, Any?)] = [
            ("id", article.id), ("feedID", article.feedID), ("title", article.title), ("note", article.note),
            ("score", article.score), ("small", article.small), ("big", article.big), ("rating", article.rating),
            ("ratio", article.ratio), ("read", article.read), ("starred", article.starred),
            ("publishedAt", article.publishedAt), ("editedAt", article.editedAt), ("price", article.price),
            ("discount", article.discount), ("link", article.link), ("uuid", article.uuid), ("stage", article.stage),
            ("priority", article.priority), ("tags", article.tags), ("rank", article.rank),
        ]
        return "  " + values.map { "\($0) \(show($1))" }.joined(separator: ", ")
    }

    private static func randomSort(using random: inout SplitMix64) -> (SortDescriptor<Article>, String) {
        let order: SortOrder = random.chance(0.5) ? .forward : .reverse
        let sort: SortDescriptor<Article>
        let name: String
        switch random.int(0...10) {
        case 0: (sort, name) = (SortDescriptor(\.score, order: order), "score")
        case 1: (sort, name) = (SortDescriptor(\.feedID, order: order), "feedID")
        case 2: (sort, name) = (SortDescriptor(\.title, order: order), "title")
        case 3: (sort, name) = (SortDescriptor(\.title, comparator: .lexical, order: order), "title (lexical)")
        case 4: (sort, name) = (SortDescriptor(\.publishedAt, order: order), "publishedAt")
        case 5: (sort, name) = (SortDescriptor(\.price, order: order), "price")
        case 6: (sort, name) = (SortDescriptor(\.rating, order: order), "rating")
        case 7: (sort, name) = (SortDescriptor(\.note, order: order), "note")
        case 8: (sort, name) = (SortDescriptor(\.editedAt, order: order), "editedAt")
        case 9: (sort, name) = (SortDescriptor(\.discount, order: order), "discount")
        default: (sort, name) = (SortDescriptor(\.ratio, order: order), "ratio")
        }
        return (sort, name + (order == .reverse ? " reverse" : ""))
    }

    // MARK: Rows

    /// A store of `rowCount` articles with unique ids in shuffled order (so that `id` is not
    /// row order), every other attribute drawn from its pool, optional ones nil about a
    /// third of the time.
    private static func makeContainer() throws -> PersistentContainer {
        let container = try testContainer(for: Article.self, inMemory: true)
        let context = ManagedObjectContext(container)
        var random = SplitMix64(seed: seed)
        var ids = (0..<rowCount).map { $0 * 3 - 2_000 }
        ids.shuffle(using: &random)
        for id in ids {
            let article = Article(context: context)
            article.id = id
            article.feedID = random.int(0...5)
            article.title = random.pick(Pool.titles)
            article.note = random.orNil(random.pick(Pool.notes))
            article.score = random.int(-10...20)
            article.small = Int8(random.int(-5...5))
            article.big = random.pick(Pool.bigs)
            article.rating = random.pick(Pool.ratings)
            article.ratio = random.pick(Pool.ratios)
            article.read = random.chance(0.5)
            article.starred = random.orNil(random.chance(0.5))
            article.publishedAt = random.pick(Pool.dates)
            article.editedAt = random.orNil(random.pick(Pool.dates))
            article.price = random.pick(Pool.decimals)
            article.discount = random.orNil(random.pick(Pool.decimals))
            article.link = random.orNil(random.pick(Pool.links))
            article.uuid = random.pick(Pool.uuids)
            article.stage = random.pick(Stage.allCases)
            article.priority = random.orNil(random.pick([Priority.low, .high]))
            article.tags = (0..<random.int(0...3)).map { _ in random.pick(Pool.tags) }
            article.rank = random.pick([Rank.gold, .silver, .bronze])
        }
        try context.save()
        return container
    }
}

// MARK: - Values

/// The values rows and predicates draw from: few, so that they repeat, and all NFC.
private enum Pool {
    static let titles = [
        "", "a", "ab", "abc", "B", "Z", "Swift", "swift", "Swift 6 released", "swift lowercase", "100% pure_SQL",
        "50%", "a_b", "_", "%", "O'Reilly", "it's", "back\\slash", "\\", "quote \"x\"", "Caf\u{E9}", "caf\u{E9}",
        "CAF\u{C9}", "na\u{EF}ve", "e", "\u{E9}", "\u{2615}\u{FE0F} coffee",
        "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EB}\u{1F1F7}", "\u{65E5}\u{672C}\u{8A9E}",
        "q\u{301}", "10", "9", "\u{3A9}", "line\nbreak", "cr\r\nlf", "  spaced  ",
    ]
    static let notes = [
        "", "a", "b", "%", "_", "'", "\\", "\u{E9}", "Swift", "100% pure_SQL", "q\u{301}",
        "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    ]
    /// What `contains` and `starts(with:)` look for, and more text to compare with.
    static let needles = [
        "", "a", "S", "s", "Swift", "swift", "%", "_", "'", "\\", "\"", "% pure", "e", "\u{E9}", "Caf",
        "caf\u{E9}", "q", "\u{301}", "\u{1F469}", "\u{1F1EB}", "\u{2615}", "\u{2615}\u{FE0F}", "family", " ", "\n",
        "\r", "9", "1", "A", "C", "~",
    ]
    static let tags = [
        "swift", "news", "", "%", "a_b", "\u{E9}", "caf\u{E9}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
        "quote\"", "back\\", "a/b", "O'Reilly", "10", "true", "null", "[1]",
    ]
    static let bigs: [UInt64] = [0, 1, 7, 1 << 40, 1 << 62, UInt64(Int64.max)]
    static let ratings: [Double] = [-7, -1.25, -0.0, 0, 0.1, 0.5, 1.0 / 3, 2.5, 3, 4.5, 10, 1e15]
    static let ratios: [Float] = [-2, 0, 0.001, 0.1, 0.5, 3.25]
    /// Whole milliseconds, as stored dates are: the first and the last the store keeps, the
    /// last before 1970, 1970, and 2026-01-01 with times from a millisecond to two days after.
    static let dates: [Date] = [
        -62_135_596_800_000, -1, 0, 1_767_225_600_000, 1_767_225_600_001, 1_767_225_600_500, 1_767_225_600_999,
        1_767_225_601_000, 1_767_312_000_000, 1_767_312_000_500, 1_767_398_400_000, 253_402_300_799_999,
    ].map { Date(timeIntervalSince1970: Double($0) / 1000) }
    /// As text "10" < "100" < "9.5"; by value 9.5 < 10 < 100.
    static let decimals = [
        "9.5", "10", "100", "0.001", "-3", "12345678901234567890.5", "9.99", "0", "-0.5",
        "0.0000000000000000000001", "-12345678901234567890.5", "1000000",
    ].map { Decimal(string: $0)! }
    /// Other spellings of the same values, and values between them.
    static let otherDecimals = [
        "10.00", "1e2", "0.00100", "-3.0", "9.499999", "12345678901234567890.4", "5", "-0.0000000000000000000001",
    ].map { Decimal(string: $0)! }
    static let links = [
        "https://swift.org", "https://example.com/a?b=c&d=%20e", "file:///tmp/x%20y", "https://example.com/caf%C3%A9",
    ].map { URL(string: $0)! }
    static let uuids = [
        "00000000-0000-4000-8000-000000000000", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF",
    ].map { UUID(uuidString: $0)! }

    static let doubles = ratings + [0.2, 0.30000000000000004, 2, -1, 100]
    static let floats = ratios + [0.3, 1]
    /// Before the year 1 and after 9999, where no stored date is.
    static let datesOutsideTheStoredYears = [Date.distantPast, Date(timeIntervalSince1970: 1e12)]
    /// Stored dates, and times between milliseconds, which no stored date equals.
    static let dateConstants =
        dates
        + [0.0005, -0.0004, 0.000_000_1].flatMap { offset in
            dates[2...9].map { $0.addingTimeInterval(offset) }
        }
}

// MARK: - Expressions

/// A predicate expression whose type is erased, so that a generator can compose
/// Foundation's nodes at random: each node's type names its children's types. It
/// evaluates as the node it wraps, and the store translates the node it wraps; its
/// description is the Swift the node stands for.
private struct AnyExpression<Output>: StandardPredicateExpression, CustomStringConvertible {
    let base: any StandardPredicateExpression<Output>
    let description: String

    init(_ base: some StandardPredicateExpression<Output>, _ description: String) {
        self.base = base
        self.description = description
    }

    func evaluate(_ bindings: PredicateBindings) throws -> Output {
        try base.evaluate(bindings)
    }

    /// Never archived: a test's predicates are made and used in place.
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a test expression"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(description, .init(codingPath: [], debugDescription: "a test expression"))
    }
}

extension AnyExpression: PredicateTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> QueryTerm {
        try translator.translate(base)
    }
}

/// A value as a predicate's description shows it.
private func show(_ value: Any?) -> String {
    switch unwrapped(value) {
    case nil: "nil"
    case let text as String: String(reflecting: text)
    case let date as Date:
        // `Date` keeps its time since 2001; since 1970 reads better, when it is exact.
        Date(timeIntervalSince1970: date.timeIntervalSince1970) == date
            ? "Date(\(date.timeIntervalSince1970))"
            : "Date(timeIntervalSinceReferenceDate: \(date.timeIntervalSinceReferenceDate))"
    case let decimal as Decimal: "Decimal(\"\(decimal)\")"
    case let url as URL: "URL(\(String(reflecting: url.absoluteString)))"
    case let array as [Any]: "[" + array.map(show).joined(separator: ", ") + "]"
    case let value?: String(describing: value)
    }
}

/// Forms of predicates that met a library bug, now fixed (see the tests named for each):
/// the main tests generate them all, and each bug's test generates its own more often.
private struct KnownBugs: OptionSet {
    let rawValue: Int

    /// `x && false`, `x || true`, `==` with a date between two milliseconds: subexpressions
    /// that read the object but that the translator reduces to a constant.
    static let reducedConstants = KnownBugs(rawValue: 1 << 0)
    /// A ternary whose test compares decimals, with text or a date as its result.
    static let collationOfATernary = KnownBugs(rawValue: 1 << 1)
    /// A date compared with one before the year 1 or after 9999, or with the last
    /// millisecond of 9999 by `<=` or `>`.
    static let datesOutsideTheStoredYears = KnownBugs(rawValue: 1 << 4)

    static let all: KnownBugs = [.reducedConstants, .collationOfATernary, .datesOutsideTheStoredYears]
}

/// Builds random predicates from the forms the store translates, with Foundation's
/// builder functions (what `#Predicate` expands to), constants from the rows' pools so
/// that equality finds rows. Nothing it makes throws when evaluated: integers stay small,
/// and nothing is divided by a column.
private struct PredicateGenerator {
    var random: SplitMix64
    let input: PredicateExpressions.Variable<Article>
    /// The known bugs whose forms may be generated.
    let bugs: KnownBugs
    /// How many conditions on decimals have been made: each one's SQL has a `COLLATE`.
    var decimalConditions = 0

    /// A random predicate and its description.
    static func predicate(depth: Int, meeting bugs: KnownBugs, using random: inout SplitMix64)
        -> (Predicate<Article>, String)
    {
        var text = ""
        let predicate = Predicate<Article> { input in
            var generator = PredicateGenerator(random: random, input: input, bugs: bugs)
            let condition = generator.condition(depth: depth)
            random = generator.random
            text = condition.description
            return condition
        }
        return (predicate, text)
    }

    // MARK: Building blocks

    func attribute<Value>(_ keyPath: any KeyPath<Article, Value> & Sendable, _ name: String) -> AnyExpression<Value> {
        AnyExpression(PredicateExpressions.build_KeyPath(root: input, keyPath: keyPath), "$0.\(name)")
    }

    func constant<Value: Codable & Sendable>(_ value: Value) -> AnyExpression<Value> {
        AnyExpression(PredicateExpressions.Value(value), show(value))
    }

    /// `nil`, as a literal or a value.
    mutating func none<Wrapped: Codable & Sendable>(_ type: Wrapped.Type) -> AnyExpression<Wrapped?> {
        random.chance(0.5)
            ? AnyExpression(PredicateExpressions.build_NilLiteral(), "nil") : constant(Wrapped?.none)
    }

    /// `==` or `!=`, in either order.
    mutating func equated<Value: Equatable>(_ left: AnyExpression<Value>, _ right: AnyExpression<Value>)
        -> AnyExpression<Bool>
    {
        let (left, right) = random.chance(0.2) ? (right, left) : (left, right)
        return random.chance(0.5)
            ? AnyExpression(PredicateExpressions.build_Equal(lhs: left, rhs: right), "(\(left) == \(right))")
            : AnyExpression(PredicateExpressions.build_NotEqual(lhs: left, rhs: right), "(\(left) != \(right))")
    }

    /// Any of the six comparisons, in either order; `equality: false` leaves out `==` and `!=`.
    mutating func compared<Value: Comparable>(
        _ left: AnyExpression<Value>, _ right: AnyExpression<Value>, equality: Bool = true
    ) -> AnyExpression<Bool> {
        if equality, random.chance(0.3) { return equated(left, right) }
        let (left, right) = random.chance(0.2) ? (right, left) : (left, right)
        let (op, symbol): (PredicateExpressions.ComparisonOperator, String) = random.pick([
            (.lessThan, "<"), (.lessThanOrEqual, "<="), (.greaterThan, ">"), (.greaterThanOrEqual, ">="),
        ])
        return AnyExpression(
            PredicateExpressions.build_Comparison(lhs: left, rhs: right, op: op), "(\(left) \(symbol) \(right))")
    }

    func coalesced<Value>(_ optional: AnyExpression<Value?>, _ fallback: AnyExpression<Value>)
        -> AnyExpression<Value>
    {
        AnyExpression(
            PredicateExpressions.build_NilCoalesce(lhs: optional, rhs: fallback), "(\(optional) ?? \(fallback))")
    }

    func conditional<Value>(
        _ test: AnyExpression<Bool>, _ then: AnyExpression<Value>, _ otherwise: AnyExpression<Value>
    ) -> AnyExpression<Value> {
        AnyExpression(
            PredicateExpressions.build_Conditional(test, then, otherwise), "(\(test) ? \(then) : \(otherwise))")
    }

    /// `values.contains(element)` for a captured array of some of `pool` (and maybe nil).
    mutating func captured<Value: Equatable & Codable & Sendable>(_ pool: [Value], _ element: AnyExpression<Value>)
        -> AnyExpression<Bool>
    {
        let values = (0..<random.int(0...4)).map { _ in random.pick(pool) }
        let array = constant(values)
        return AnyExpression(PredicateExpressions.build_contains(array, element), "\(array).contains(\(element))")
    }

    /// `range.contains(element)`: a captured range, or one the predicate makes.
    mutating func ranged<Value: Comparable & Codable & Sendable>(_ pool: [Value], _ element: AnyExpression<Value>)
        -> AnyExpression<Bool>
    {
        let bounds = [random.pick(pool), random.pick(pool)].sorted()
        let (lower, upper) = (bounds[0], bounds[1])
        switch random.int(0...3) {
        case 0:
            let range = constant(lower...upper)
            return AnyExpression(
                PredicateExpressions.build_contains(range, element),
                "(\(show(lower))...\(show(upper))).contains(\(element))")
        case 1:
            let range = constant(lower..<upper)
            return AnyExpression(
                PredicateExpressions.build_contains(range, element),
                "(\(show(lower))..<\(show(upper))).contains(\(element))")
        case 2:
            let range = PredicateExpressions.build_ClosedRange(lower: constant(lower), upper: constant(upper))
            return AnyExpression(
                PredicateExpressions.build_contains(range, element),
                "(\(show(lower))...\(show(upper))).contains(\(element))")
        default:
            let range = PredicateExpressions.build_Range(lower: constant(lower), upper: constant(upper))
            return AnyExpression(
                PredicateExpressions.build_contains(range, element),
                "(\(show(lower))..<\(show(upper))).contains(\(element))")
        }
    }

    // MARK: Conditions

    /// A condition: a leaf, or `&&`, `||`, `!` or a ternary of conditions up to `depth` deep.
    mutating func condition(depth: Int) -> AnyExpression<Bool> {
        guard depth > 0, random.chance(0.6) else { return leaf() }
        switch random.int(0...9) {
        case 0...2:
            let (left, right) = (condition(depth: depth - 1), condition(depth: depth - 1))
            return AnyExpression(PredicateExpressions.build_Conjunction(lhs: left, rhs: right), "(\(left) && \(right))")
        case 3...5:
            let (left, right) = (condition(depth: depth - 1), condition(depth: depth - 1))
            return AnyExpression(PredicateExpressions.build_Disjunction(lhs: left, rhs: right), "(\(left) || \(right))")
        case 6...7:
            let inner = condition(depth: depth - 1)
            return AnyExpression(PredicateExpressions.build_Negation(inner), "!\(inner)")
        case 8:
            return conditional(condition(depth: depth - 1), condition(depth: depth - 1), condition(depth: depth - 1))
        default:
            // A constant beside a condition, folded before the store sees it: `true && x`
            // and `x || false` are `x`; `false && x` and `x || true` are a constant reduced
            // from the object (`KnownBugs.reducedConstants`).
            let conjunction = random.chance(0.5)
            let value = constant(bugs.contains(.reducedConstants) ? random.chance(0.5) : conjunction)
            let other = condition(depth: depth - 1)
            return conjunction
                ? AnyExpression(
                    PredicateExpressions.build_Conjunction(lhs: value, rhs: other), "(\(value) && \(other))")
                : AnyExpression(
                    PredicateExpressions.build_Disjunction(lhs: other, rhs: value), "(\(other) || \(value))")
        }
    }

    mutating func leaf() -> AnyExpression<Bool> {
        switch random.int(0...16) {
        case 0, 1: integerCondition()
        case 2: narrowIntegerCondition()
        case 3: realCondition()
        case 4: floatCondition()
        case 5, 6: textComparison()
        case 7, 8: textSearch()
        case 9: optionalTextCondition()
        case 10: boolCondition()
        case 11: dateCondition()
        case 12: decimalCondition()
        case 13: identityCondition()
        case 14: enumCondition()
        case 15: tagsCondition()
        default: boolCondition()
        }
    }

    // MARK: Integers

    mutating func integerConstant() -> AnyExpression<Int> {
        if random.chance(0.1) {
            // Arithmetic on constants alone: folded.
            let (left, right) = (constant(random.int(-5...10)), constant(random.int(-5...10)))
            return AnyExpression(
                PredicateExpressions.build_Arithmetic(lhs: left, rhs: right, op: .add), "(\(left) + \(right))")
        }
        return constant(random.int(-12...22))
    }

    /// An integer term, its values small enough that no arithmetic overflows.
    mutating func integer(depth: Int) -> AnyExpression<Int> {
        if depth <= 0 || random.chance(0.4) {
            return random.pick([attribute(\.score, "score"), attribute(\.feedID, "feedID"), attribute(\.id, "id")])
        }
        switch random.int(0...9) {
        case 0:
            return count(of: text(depth: depth - 1))
        case 1:
            let tags = attribute(\.tags, "tags")
            return AnyExpression(PredicateExpressions.build_KeyPath(root: tags, keyPath: \.count), "\(tags).count")
        case 2:
            let note = attribute(\.note, "note")
            let counted = AnyExpression(
                PredicateExpressions.build_flatMap(note) {
                    PredicateExpressions.build_KeyPath(root: $0, keyPath: \.count)
                },
                "\(note)?.count")
            return coalesced(counted, integerConstant())
        case 3, 4:
            let (op, symbol): (PredicateExpressions.ArithmeticOperator, String) = random.pick([
                (.add, "+"), (.subtract, "-"), (.multiply, "*"),
            ])
            let left = integer(depth: depth - 1)
            let right = random.chance(0.5) ? integer(depth: depth - 1) : constant(random.int(-3...5))
            return AnyExpression(
                PredicateExpressions.build_Arithmetic(lhs: left, rhs: right, op: op), "(\(left) \(symbol) \(right))")
        case 5:
            let (left, right) = (integer(depth: depth - 1), constant(random.pick([-3, -2, 2, 3, 7])))
            return AnyExpression(PredicateExpressions.build_Division(lhs: left, rhs: right), "(\(left) / \(right))")
        case 6:
            let (left, right) = (integer(depth: depth - 1), constant(random.pick([-3, -2, 2, 3, 7])))
            return AnyExpression(PredicateExpressions.build_Remainder(lhs: left, rhs: right), "(\(left) % \(right))")
        case 7:
            let inner = integer(depth: depth - 1)
            return AnyExpression(PredicateExpressions.build_UnaryMinus(inner), "-\(inner)")
        default:
            return conditional(
                leaf(), integer(depth: depth - 1), random.chance(0.5) ? integerConstant() : integer(depth: 0))
        }
    }

    func count(of text: AnyExpression<String>) -> AnyExpression<Int> {
        AnyExpression(PredicateExpressions.build_KeyPath(root: text, keyPath: \.count), "\(text).count")
    }

    mutating func integerCondition() -> AnyExpression<Bool> {
        let term = integer(depth: 2)
        switch random.int(0...5) {
        case 0: return captured([1, 2, 3, 7, 10, -5, -2_000, 1, 4_000, 6_997, 5, 100], term)
        case 1: return ranged(Array(-12...22), term)
        case 2: return compared(term, integer(depth: 1))
        default: return compared(term, integerConstant())
        }
    }

    mutating func narrowIntegerCondition() -> AnyExpression<Bool> {
        if random.chance(0.5) {
            let small = attribute(\.small, "small")
            let term =
                random.chance(0.3)
                ? AnyExpression(PredicateExpressions.build_UnaryMinus(small), "-\(small)") : small
            return compared(term, constant(Int8(random.int(-6...6))))
        }
        let bounds = Pool.bigs + [2, 1 << 41]
        return random.chance(0.2)
            ? captured(bounds, attribute(\.big, "big"))
            : compared(attribute(\.big, "big"), constant(random.pick(bounds)))
    }

    // MARK: Floating point

    mutating func real(depth: Int) -> AnyExpression<Double> {
        if depth <= 0 || random.chance(0.4) { return attribute(\.rating, "rating") }
        let left = real(depth: depth - 1)
        switch random.int(0...6) {
        case 0...2:
            let (op, symbol): (PredicateExpressions.ArithmeticOperator, String) = random.pick([
                (.add, "+"), (.subtract, "-"), (.multiply, "*"),
            ])
            let right = random.chance(0.5) ? real(depth: depth - 1) : constant(random.pick(Pool.doubles))
            return AnyExpression(
                PredicateExpressions.build_Arithmetic(lhs: left, rhs: right, op: op), "(\(left) \(symbol) \(right))")
        case 3:
            let right = constant(random.pick([2, -4, 0.5, 3, 0.1]))
            return AnyExpression(PredicateExpressions.build_Division(lhs: left, rhs: right), "(\(left) / \(right))")
        case 4:
            return AnyExpression(PredicateExpressions.build_UnaryMinus(left), "-\(left)")
        default:
            return conditional(leaf(), left, constant(random.pick(Pool.doubles)))
        }
    }

    mutating func realCondition() -> AnyExpression<Bool> {
        let term = real(depth: 2)
        switch random.int(0...4) {
        case 0: return ranged(Pool.doubles, term)
        case 1: return captured(Pool.doubles, term)
        case 2: return compared(term, real(depth: 1))
        default: return compared(term, constant(random.pick(Pool.doubles)))
        }
    }

    /// `ratio`, a `Float`: negated (exact in any precision); arithmetic on a Float is refused
    /// (see `arithmeticOnFloatsIsRefused`).
    mutating func floatCondition() -> AnyExpression<Bool> {
        let ratio = attribute(\.ratio, "ratio")
        let term = random.chance(0.3) ? AnyExpression(PredicateExpressions.build_UnaryMinus(ratio), "-\(ratio)") : ratio
        return compared(term, constant(random.pick(Pool.floats)))
    }

    // MARK: Text

    mutating func textConstant() -> AnyExpression<String> {
        constant(random.pick(random.chance(0.5) ? Pool.titles : Pool.needles))
    }

    mutating func text(depth: Int) -> AnyExpression<String> {
        if depth <= 0 || random.chance(0.6) { return attribute(\.title, "title") }
        switch random.int(0...2) {
        case 0: return coalesced(attribute(\.note, "note"), textConstant())
        case 1: return coalesced(attribute(\.note, "note"), text(depth: depth - 1))
        default: return conditional(textOrDateTest(), text(depth: depth - 1), textConstant())
        }
    }

    /// The test of a ternary whose result is text or a date: without
    /// `.collationOfATernary`, one that compares no decimals.
    mutating func textOrDateTest() -> AnyExpression<Bool> {
        while true {
            let before = decimalConditions
            let test = leaf()
            if bugs.contains(.collationOfATernary) || decimalConditions == before { return test }
        }
    }

    mutating func textComparison() -> AnyExpression<Bool> {
        let term = text(depth: 2)
        switch random.int(0...4) {
        case 0: return ranged(Pool.titles, term)
        case 1: return captured(Pool.titles + Pool.notes, term)
        case 2: return compared(term, text(depth: 1))
        default: return compared(term, textConstant())
        }
    }

    mutating func textSearch() -> AnyExpression<Bool> {
        let term = text(depth: 1)
        let needle = constant(random.pick(Pool.needles))
        switch random.int(0...7) {
        case 0...2:
            return AnyExpression(PredicateExpressions.build_contains(term, needle), "\(term).contains(\(needle))")
        case 3, 4:
            return AnyExpression(
                PredicateExpressions.build_starts(term, with: needle), "\(term).starts(with: \(needle))")
        case 5:
            // The column is what is looked for.
            let haystack = textConstant()
            return random.chance(0.5)
                ? AnyExpression(PredicateExpressions.build_contains(haystack, term), "\(haystack).contains(\(term))")
                : AnyExpression(
                    PredicateExpressions.build_starts(haystack, with: term), "\(haystack).starts(with: \(term))")
        case 6:
            return AnyExpression(PredicateExpressions.build_KeyPath(root: term, keyPath: \.isEmpty), "\(term).isEmpty")
        default:
            return compared(count(of: term), integerConstant())
        }
    }

    /// `note`, optional text: nil, optional chaining and `flatMap`.
    mutating func optionalTextCondition() -> AnyExpression<Bool> {
        let note = attribute(\.note, "note")
        let needle = random.pick(Pool.needles)
        switch random.int(0...6) {
        case 0:
            return equated(note, none(String.self))
        case 1:
            return equated(note, constant(String?.some(random.pick(Pool.notes + Pool.needles))))
        case 2:
            let notes = Pool.notes.map { Optional($0) } + [nil]
            return captured(notes, note)
        default:
            let chained: AnyExpression<Bool?>
            switch random.int(0...2) {
            case 0:
                chained = AnyExpression(
                    PredicateExpressions.build_flatMap(note) {
                        PredicateExpressions.build_contains($0, PredicateExpressions.Value(needle))
                    }, "\(note)?.contains(\(show(needle)))")
            case 1:
                chained = AnyExpression(
                    PredicateExpressions.build_flatMap(note) {
                        PredicateExpressions.build_starts($0, with: PredicateExpressions.Value(needle))
                    }, "\(note)?.starts(with: \(show(needle)))")
            default:
                chained = AnyExpression(
                    PredicateExpressions.build_flatMap(note) {
                        PredicateExpressions.build_KeyPath(root: $0, keyPath: \.isEmpty)
                    }, "\(note)?.isEmpty")
            }
            return equated(chained, random.chance(0.3) ? none(Bool.self) : constant(Bool?.some(random.chance(0.5))))
        }
    }

    // MARK: Booleans

    mutating func boolCondition() -> AnyExpression<Bool> {
        let read = attribute(\.read, "read")
        let starred = attribute(\.starred, "starred")
        switch random.int(0...7) {
        case 0, 1:
            return read
        case 2:
            return equated(read, constant(random.chance(0.5)))
        case 3:
            return equated(starred, random.chance(0.3) ? none(Bool.self) : constant(Bool?.some(random.chance(0.5))))
        case 4:
            // An optional Bool made a condition by `??`.
            return coalesced(starred, constant(random.chance(0.5)))
        case 5:
            return equated(read, coalesced(starred, constant(random.chance(0.5))))
        case 6:
            let flipped = AnyExpression(
                PredicateExpressions.build_flatMap(starred) { PredicateExpressions.build_Negation($0) },
                "\(starred).map(!)")
            return equated(flipped, random.chance(0.3) ? none(Bool.self) : constant(Bool?.some(random.chance(0.5))))
        default:
            let values = [[true], [false], [true, false], []][random.int(0...3)]
            let array = constant(values)
            return AnyExpression(PredicateExpressions.build_contains(array, read), "\(array).contains(\(read))")
        }
    }

    // MARK: Dates and decimals

    mutating func date(depth: Int) -> AnyExpression<Date> {
        if depth <= 0 || random.chance(0.5) { return attribute(\.publishedAt, "publishedAt") }
        let fallback = random.chance(0.5) ? dateValue() : date(depth: depth - 1)
        return random.chance(0.7)
            ? coalesced(attribute(\.editedAt, "editedAt"), fallback)
            : conditional(textOrDateTest(), date(depth: depth - 1), fallback)
    }

    /// The dates a condition compares with: stored ones and times between two milliseconds.
    /// Without `.datesOutsideTheStoredYears`, not the last stored millisecond (`<=` it is
    /// `<` the next one, in the year 10000); with it, dates before the year 1 and after 9999.
    var comparedDates: [Date] {
        bugs.contains(.datesOutsideTheStoredYears)
            ? Pool.dateConstants + Pool.datesOutsideTheStoredYears : Pool.dateConstants.filter { $0 != Pool.dates.last }
    }

    /// Whether `==` may compare with the date: any a stored date can equal; a time between
    /// two milliseconds equals no row, a constant (`.reducedConstants`).
    func mayEquate(_ date: Date?) -> Bool {
        guard let date, !Pool.dates.contains(date) else { return true }
        return Pool.datesOutsideTheStoredYears.contains(date)
            ? bugs.contains(.datesOutsideTheStoredYears) : bugs.contains(.reducedConstants)
    }

    mutating func dateCondition() -> AnyExpression<Bool> {
        let term = date(depth: 2)
        let dates = comparedDates
        let editedAt = attribute(\.editedAt, "editedAt")
        switch random.int(0...7) {
        case 0: return ranged(dates, term)
        case 1: return captured(dates, term)
        case 2: return compared(term, date(depth: 1))
        case 3: return equated(editedAt, none(Date.self))
        case 4:
            let optionals = dates.map { Optional($0) } + [nil]
            return random.chance(0.5)
                ? equated(editedAt, constant(random.pick(optionals.filter(mayEquate))))
                : captured(optionals, editedAt)
        default:
            let date = random.pick(dates)
            return compared(term, constant(date), equality: mayEquate(date))
        }
    }

    /// A date to use as a value: a stored one (others are refused, see
    /// `datesBetweenMillisecondsAsValuesAreRefused`).
    mutating func dateValue() -> AnyExpression<Date> {
        constant(random.pick(Pool.dates))
    }

    mutating func decimal(depth: Int) -> AnyExpression<Decimal> {
        if depth <= 0 || random.chance(0.5) { return attribute(\.price, "price") }
        let fallback =
            random.chance(0.5) ? constant(random.pick(Pool.decimals + Pool.otherDecimals)) : decimal(depth: depth - 1)
        return random.chance(0.7)
            ? coalesced(attribute(\.discount, "discount"), fallback)
            : conditional(leaf(), decimal(depth: depth - 1), fallback)
    }

    mutating func decimalCondition() -> AnyExpression<Bool> {
        decimalConditions += 1
        let term = decimal(depth: 2)
        let values = Pool.decimals + Pool.otherDecimals
        switch random.int(0...6) {
        case 0: return ranged(values, term)
        case 1: return captured(values, term)
        case 2: return compared(term, decimal(depth: 1))
        case 3:
            let optionals = values.map { Optional($0) } + [nil]
            return random.chance(0.5)
                ? equated(attribute(\.discount, "discount"), constant(random.pick(optionals)))
                : captured(optionals, attribute(\.discount, "discount"))
        default: return compared(term, constant(random.pick(values)))
        }
    }

    // MARK: Equality only

    mutating func identityCondition() -> AnyExpression<Bool> {
        switch random.int(0...3) {
        case 0:
            return equated(
                attribute(\.link, "link"),
                random.chance(0.3) ? none(URL.self) : constant(URL?.some(random.pick(Pool.links))))
        case 1:
            return captured(Pool.links.map { Optional($0) } + [nil], attribute(\.link, "link"))
        case 2:
            return equated(attribute(\.uuid, "uuid"), constant(random.pick(Pool.uuids)))
        default:
            return captured(Pool.uuids, attribute(\.uuid, "uuid"))
        }
    }

    mutating func enumCondition() -> AnyExpression<Bool> {
        let stage = attribute(\.stage, "stage")
        let priority = attribute(\.priority, "priority")
        let rank = attribute(\.rank, "rank")
        let priorities: [Priority?] = [.low, .high, nil]
        switch random.int(0...6) {
        case 0: return equated(stage, constant(random.pick(Stage.allCases)))
        case 1: return captured(Stage.allCases, stage)
        case 2: return equated(priority, random.chance(0.3) ? none(Priority.self) : constant(random.pick(priorities)))
        case 3: return captured(priorities, priority)
        case 4:
            return equated(coalesced(priority, constant(Priority.low)), constant(random.pick([Priority.low, .high])))
        case 5: return equated(rank, constant(random.pick([Rank.gold, .silver, .bronze])))
        default: return captured([Rank.gold, .silver, .bronze], rank)
        }
    }

    mutating func tagsCondition() -> AnyExpression<Bool> {
        let tags = attribute(\.tags, "tags")
        switch random.int(0...3) {
        case 0, 1:
            let tag = constant(random.pick(Pool.tags + ["Swift", "\u{E9}\u{E9}"]))
            return AnyExpression(PredicateExpressions.build_contains(tags, tag), "\(tags).contains(\(tag))")
        case 2:
            return AnyExpression(PredicateExpressions.build_KeyPath(root: tags, keyPath: \.isEmpty), "\(tags).isEmpty")
        default:
            let count = AnyExpression(PredicateExpressions.build_KeyPath(root: tags, keyPath: \.count), "\(tags).count")
            return compared(count, constant(random.int(0...4)))
        }
    }
}
