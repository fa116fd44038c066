import Foundation
import Testing

@testable import Stash

/// Every predicate form the store evaluates: the SQL it becomes, asserted exactly, and the
/// rows it finds, which must be the ones Foundation's own `evaluate` finds.
@Suite(.bothStores) struct QueryTests {
    let container: PersistentContainer
    let context: ManagedObjectContext

    init() throws {
        (container, context) = try seededArticles()
    }

    func check(
        _ predicate: Predicate<Article>, _ sql: String, _ parameters: [StoredValue], _ expected: [Int],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (text, bound) = try condition(predicate)
        #expect(text == sql, sourceLocation: sourceLocation)
        #expect(bound == parameters, sourceLocation: sourceLocation)
        #expect(try ids(context, FetchDescriptor(predicate: predicate)) == expected, sourceLocation: sourceLocation)
        #expect(try evaluatedIDs(context, predicate) == expected, sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count,
            sourceLocation: sourceLocation)
    }

    @Test func comparisonsOfIntegers() throws {
        let limit = 7
        try check(#Predicate { $0.score == 7 }, #"("score" = ?)"#, [.integer(7)], [5, 6])
        try check(#Predicate { $0.score != limit }, #"("score" <> ?)"#, [.integer(7)], [1, 2, 3, 4])
        try check(#Predicate { $0.score < 0 }, #"("score" < ?)"#, [.integer(0)], [3])
        try check(#Predicate { $0.score <= 0 }, #"("score" <= ?)"#, [.integer(0)], [3, 4])
        try check(#Predicate { $0.score > limit }, #"("score" > ?)"#, [.integer(7)], [1, 2])
        try check(#Predicate { 7 >= $0.score }, #"("score" <= ?)"#, [.integer(7)], [3, 4, 5, 6])
        try check(#Predicate { $0.small < -1 }, #"("small" < ?)"#, [.integer(-1)], [1])
        let large: UInt64 = 1 << 40
        try check(#Predicate { $0.big >= large }, #"("big" >= ?)"#, [.integer(1 << 40)], [2])
        try check(#Predicate { $0.score > $0.feedID * 5 }, #"("score" > ("feedID" * ?))"#, [.integer(5)], [1, 2])
    }

    @Test func comparisonsOfFloatingPointNumbers() throws {
        try check(#Predicate { $0.rating > 2.5 }, #"("rating" > ?)"#, [.real(2.5)], [1, 2, 5])
        let half: Float = 0.5
        try check(#Predicate { $0.ratio == half }, #"("ratio" = ?)"#, [.real(0.5)], [1])
        try check(#Predicate { $0.rating / 2 > 2 }, #"(("rating" / ?) > ?)"#, [.real(2), .real(2)], [1, 5])
    }

    @Test func booleansAndOptionalBooleans() throws {
        try check(#Predicate { $0.read }, #"("read" <> ?)"#, [.integer(0)], [2, 4])
        try check(#Predicate { !$0.read }, #"("read" = ?)"#, [.integer(0)], [1, 3, 5, 6])
        try check(#Predicate { $0.read == true }, #"("read" = ?)"#, [.integer(1)], [2, 4])
        try check(#Predicate { $0.starred == true }, #"("starred" IS ?)"#, [.integer(1)], [1])
        try check(#Predicate { $0.starred != true }, #"(NOT ("starred" IS ?))"#, [.integer(1)], [2, 3, 4, 5, 6])
        try check(#Predicate { $0.starred == nil }, #"("starred" IS ?)"#, [.null], [3, 4, 5, 6])
    }

    @Test func textComparedByCodePoints() throws {
        try check(#Predicate { $0.title == "swift lowercase" }, #"("title" = ?)"#, [.text("swift lowercase")], [5])
        // Code point order: digits and "" before capitals before lowercase.
        try check(#Predicate { $0.title < "B" }, #"("title" < ?)"#, [.text("B")], [2, 6])
        try check(#Predicate { $0.title >= "s" }, #"("title" >= ?)"#, [.text("s")], [5])
        // Swift's answer for an optional: nil is not "a".
        try check(#Predicate { $0.note != "a" }, #"(NOT ("note" IS ?))"#, [.text("a")], [1, 3, 4, 5, 6])
        try check(#Predicate { $0.note == nil }, #"("note" IS ?)"#, [.null], [1, 5])
        // The documented rule: text is compared by code points, as unique values are kept.
        // Swift's `==` calls the composed and decomposed spellings of "é" equal; the store
        // does not.
        let decomposed = "Cafe\u{301} \u{2615}\u{FE0F} O'Reilly \\ back"
        #expect(try ids(context, FetchDescriptor(predicate: #Predicate { $0.title == decomposed })) == [])
        #expect(try evaluatedIDs(context, #Predicate { $0.title == decomposed }) == [3])
        try check(#Predicate { $0.note != nil }, #"(NOT ("note" IS ?))"#, [.null], [2, 3, 4, 6])
    }

    @Test(
        .sqliteOnly(
            "Characters as Swift matches them; PostgreSQL compares code points, as the README says (strpos, starts_with)"
        )) func containsAndStartsWithMatchCharactersAsSwiftDoes() throws
    {
        let swift = StoredValue.text("Swift")
        try check(
            #Predicate { $0.title.contains("Swift") }, #"(instr("title", ?) > 0 AND stash_contains("title", ?))"#,
            [swift, swift], [1])
        // Wildcards and quotes are characters like any other.
        for (needle, expected) in [("%", [2]), ("_", [2]), ("'", [3]), ("\\", [3]), ("% pure", [2])] {
            try check(
                #Predicate { $0.title.contains(needle) }, #"(instr("title", ?) > 0 AND stash_contains("title", ?))"#,
                [.text(needle), .text(needle)], expected)
        }
        // "Cafe" is in the bytes of "Cafe\u{301}", but its last Character is "é", not "e".
        try check(
            #Predicate { $0.title.contains("Cafe") }, #"(instr("title", ?) > 0 AND stash_contains("title", ?))"#,
            [.text("Cafe"), .text("Cafe")], [])
        // Not ASCII: the exact function alone; composed and decomposed "é" are one Character.
        try check(
            #Predicate { $0.title.contains("\u{E9}") }, #"stash_contains("title", ?)"#, [.text("\u{E9}")], [3, 4])
        // A woman is part of the family's code points, not one of its Characters.
        try check(
            #Predicate { $0.title.contains("\u{1F469}") }, #"stash_contains("title", ?)"#, [.text("\u{1F469}")], [])
        try check(
            #Predicate { $0.title.starts(with: "Caf") }, #"(instr("title", ?) = 1 AND stash_starts_with("title", ?))"#,
            [.text("Caf"), .text("Caf")], [3, 4])
        try check(
            #Predicate { $0.title.starts(with: "swift") },
            #"(instr("title", ?) = 1 AND stash_starts_with("title", ?))"#,
            [.text("swift"), .text("swift")], [5])
        try check(
            #Predicate { $0.note?.contains("%") == true },
            #"((CASE WHEN ("note" IS NULL) THEN ? ELSE (instr("note", ?) > 0 AND stash_contains("note", ?)) END) IS ?)"#,
            [.null, .text("%"), .text("%"), .integer(1)], [6])
    }

    @Test(.sqliteOnly("a String's Character count, which PostgreSQL refuses by name (unsupportedQuery)"))
    func isEmptyAndCountOfText() throws {
        try check(#Predicate { $0.title.isEmpty }, #"("title" = ?)"#, [.text("")], [6])
        try check(
            #Predicate { !$0.title.isEmpty && $0.title.count <= 15 },
            #"(("title" <> ?) AND (stash_count("title") <= ?))"#, [.text(""), .integer(15)], [2, 5])
        // The family emoji is one Character; SQLite's length() would count five.
        let familyTitle = "Cafe\u{301} with e and a family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}".count
        try check(
            #Predicate { $0.title.count == familyTitle }, #"(stash_count("title") = ?)"#,
            [.integer(Int64(familyTitle))], [4])
        try check(
            #Predicate { $0.note?.isEmpty == true },
            #"((CASE WHEN ("note" IS NULL) THEN ? ELSE ("note" = ?) END) IS ?)"#, [.null, .text(""), .integer(1)], [3])
        try check(
            #Predicate { $0.note.flatMap { $0.count } == 1 },
            #"((CASE WHEN ("note" IS NULL) THEN ? ELSE stash_count("note") END) IS ?)"#, [.null, .integer(1)],
            [2, 4, 6])
    }

    @Test func datesCompareAsStoredMilliseconds() throws {
        let cutoff = day(3)
        // Stored dates are whole milliseconds: `> day 3` is `>= the next millisecond`.
        try check(
            #Predicate { $0.publishedAt > cutoff }, #"("publishedAt" >= ?)"#, [.text("2026-01-04T00:00:00.001Z")],
            [3, 4, 5, 6])
        try check(
            #Predicate { $0.publishedAt <= cutoff }, #"("publishedAt" < ?)"#, [.text("2026-01-04T00:00:00.001Z")],
            [1, 2])
        let exact = day(3).addingTimeInterval(0.5)
        try check(
            #Predicate { $0.publishedAt == exact }, #"("publishedAt" = ?)"#, [.text("2026-01-04T00:00:00.500Z")], [3])
        // A time between two milliseconds equals no stored date, and is after the first.
        let between = day(3).addingTimeInterval(0.0005)
        try check(#Predicate { $0.publishedAt == between }, "?", [.integer(0)], [])
        try check(#Predicate { $0.publishedAt != between }, "?", [.integer(1)], [1, 2, 3, 4, 5, 6])
        try check(
            #Predicate { $0.publishedAt > between }, #"("publishedAt" >= ?)"#, [.text("2026-01-04T00:00:00.001Z")],
            [3, 4, 5, 6])
        try check(#Predicate { $0.editedAt == nil }, #"("editedAt" IS ?)"#, [.null], [1, 3, 5, 6])
        let epoch = day(0)
        try check(
            #Predicate { ($0.editedAt ?? epoch) > cutoff }, #"(coalesce("editedAt", ?) >= ?)"#,
            [.text("2026-01-01T00:00:00.000Z"), .text("2026-01-04T00:00:00.001Z")], [4])
        let range = day(2)..<day(4)
        try check(
            #Predicate { range.contains($0.publishedAt) }, #"(("publishedAt" >= ?) AND ("publishedAt" < ?))"#,
            [.text("2026-01-03T00:00:00.000Z"), .text("2026-01-05T00:00:00.000Z")], [2, 3])
    }

    @Test func decimalsCompareByValueWithEveryDigit() throws {
        let threshold = Decimal(string: "9.99")!
        // As text "10" < "9.99" and "100" < "9.99"; by value they are greater.
        try check(
            #Predicate { $0.price > threshold }, #"(stash_decimal_compare("price", ?) > 0)"#, [.text("9.99")],
            [2, 3, 6])
        try check(
            #Predicate { $0.price == threshold }, #"(stash_decimal_compare("price", ?) = 0)"#, [.text("9.99")], [4])
        let tiny = Decimal(string: "0.0000000000000000000002")!
        try check(
            #Predicate { $0.price < tiny }, #"(stash_decimal_compare("price", ?) < 0)"#,
            [.text("0.0000000000000000000002")], [5])
        let huge = Decimal(string: "12345678901234567890.123456788")!
        try check(
            #Predicate { $0.price > huge }, #"(stash_decimal_compare("price", ?) > 0)"#,
            [.text("12345678901234567890.123456788")], [6])
        let one: Decimal = 1
        try check(
            #Predicate { ($0.discount ?? 0) < one }, #"(stash_decimal_compare(coalesce("discount", ?), ?) < 0)"#,
            [.text("0"), .text("1")], [1, 2, 4, 5, 6])
        try check(
            #Predicate { $0.discount != one },
            #"(NOT coalesce(stash_decimal_compare("discount", ?) = 0, ("discount" IS NULL) AND (? IS NULL)))"#,
            [.text("1"), .text("1")], [1, 2, 3, 4, 5, 6])
        // A decimal test in a ternary leaves how the ternary's text result compares alone.
        let ten: Decimal = 10
        try check(
            #Predicate { (($0.price > ten) ? $0.title : "x") == "" },
            #"((CASE WHEN (stash_decimal_compare("price", ?) > 0) THEN "title" ELSE ? END) = ?)"#,
            [.text("10"), .text("x"), .text("")], [6])
    }

    @Test func urlsUUIDsAndEnumsCompareForEquality() throws {
        let swiftOrg = URL(string: "https://swift.org")!
        try check(#Predicate { $0.link == swiftOrg }, #"("link" IS ?)"#, [.text("https://swift.org")], [1])
        try check(#Predicate { $0.link != nil }, #"(NOT ("link" IS ?))"#, [.null], [1])
        let uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
        try check(
            #Predicate { $0.uuid == uuid }, #"("uuid" = ?)"#, [.text("00000000-0000-4000-8000-000000000000")],
            [1, 2, 3, 4, 5, 6])
        let live = Stage.live
        try check(#Predicate { $0.stage == live }, #"("stage" = ?)"#, [.text("live")], [1, 4])
        let low = Priority.low
        try check(#Predicate { $0.priority == low }, #"("priority" IS ?)"#, [.integer(1)], [3, 5])
        try check(#Predicate { $0.priority != low }, #"(NOT ("priority" IS ?))"#, [.integer(1)], [1, 2, 4, 6])
        let published = [Stage.live, Stage.review]
        try check(
            #Predicate { published.contains($0.stage) }, #"("stage" IN (SELECT value FROM json_each(?)))"#,
            [.text(#"["live","review"]"#)], [1, 3, 4, 6])
    }

    @Test func logicArithmeticAndConditionals() throws {
        try check(
            #Predicate { $0.score > 15 || $0.title.isEmpty }, #"(("score" > ?) OR ("title" = ?))"#,
            [.integer(15), .text("")], [2, 6])
        try check(
            #Predicate { !($0.read || $0.score == 7) }, #"(NOT (("read" <> ?) OR ("score" = ?)))"#,
            [.integer(0), .integer(7)], [1, 3])
        try check(#Predicate { $0.score + 3 == 10 }, #"(("score" + ?) = ?)"#, [.integer(3), .integer(10)], [5, 6])
        try check(#Predicate { $0.score - $0.feedID < 0 }, #"(("score" - "feedID") < ?)"#, [.integer(0)], [3, 4])
        // Remainders and quotients truncate toward zero in Swift and in SQLite.
        try check(#Predicate { $0.score % 2 == -1 }, #"(("score" % ?) = ?)"#, [.integer(2), .integer(-1)], [3])
        try check(#Predicate { $0.score / 3 == 2 }, #"(("score" / ?) = ?)"#, [.integer(3), .integer(2)], [5, 6])
        try check(#Predicate { -$0.score > 0 }, #"((- "score") > ?)"#, [.integer(0)], [3])
        try check(
            #Predicate { ($0.read ? $0.score : 0) > 5 }, #"((CASE WHEN ("read" <> ?) THEN "score" ELSE ? END) > ?)"#,
            [.integer(0), .integer(0), .integer(5)], [2])
        // Parts that read no object are evaluated in Swift first.
        let base = 3
        try check(#Predicate { $0.score == base * 2 + 1 }, #"("score" = ?)"#, [.integer(7)], [5, 6])
        try check(#Predicate { true && $0.read }, #"("read" <> ?)"#, [.integer(0)], [2, 4])
        try check(#Predicate { false || $0.read }, #"("read" <> ?)"#, [.integer(0)], [2, 4])
        try check(#Predicate { _ in false }, "?", [.integer(0)], [])
    }

    @Test func capturedCollectionsAndArrayAttributes() throws {
        let wanted = [2, 4, 99]
        try check(
            #Predicate { wanted.contains($0.id) }, #"("id" IN (SELECT value FROM json_each(?)))"#,
            [.text("[2,4,99]")], [2, 4])
        let notes: [String?] = ["a", nil]
        try check(
            #Predicate { notes.contains($0.note) },
            #"coalesce((("note" IN (SELECT value FROM json_each(?))) OR ("note" IS NULL)), ?)"#,
            [.text(#"["a"]"#), .integer(0)], [1, 2, 5])
        let dates = [day(2), day(4), day(3).addingTimeInterval(0.0005)]
        try check(
            #Predicate { dates.contains($0.publishedAt) }, #"("publishedAt" IN (SELECT value FROM json_each(?)))"#,
            [.text(#"["2026-01-03T00:00:00.000Z","2026-01-05T00:00:00.000Z"]"#)], [2, 4])
        let prices = [Decimal(string: "10.00")!, Decimal(100)]
        try check(
            #Predicate { prices.contains($0.price) },
            #"EXISTS (SELECT 1 FROM json_each(?) WHERE stash_decimal_compare("price", value) = 0)"#,
            [.text(#"["10","100"]"#)], [2, 3])
        try check(
            #Predicate { $0.tags.contains("swift") }, #"EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?)"#,
            [.text("swift")], [1, 4])
        try check(#Predicate { $0.tags.isEmpty }, #"(json_array_length("tags") = ?)"#, [.integer(0)], [2, 5, 6])
        try check(#Predicate { $0.tags.count >= 2 }, #"(json_array_length("tags") >= ?)"#, [.integer(2)], [1])
        try check(
            #Predicate { (0...10).contains($0.score) }, #"(("score" >= ?) AND ("score" <= ?))"#,
            [.integer(0), .integer(10)], [1, 4, 5, 6])
    }

    @Test func aCapturedCollectionOfAnySize() throws {
        let many = Array(0..<100_000).filter { $0 != 3 }
        let descriptor = FetchDescriptor<Article>(predicate: #Predicate { many.contains($0.id) })
        #expect(try ids(context, descriptor) == [1, 2, 4, 5, 6])
        #expect(try context.fetchCount(descriptor) == 5)
    }
}
