import CSQLite
import Foundation
import Stash
import TestProcesses

/// The queries an app runs on a stored feed, each many times over: Stash's `FetchDescriptor`
/// with `#Predicate` against hand-written SQL with one prepared statement that materialises
/// the same rows into structs.
///
/// - look-up: one article by its unique id (an index search), `lookUpCount` times;
/// - newest page: the 20 newest unread articles before a date, by the indexed date;
/// - filtered count: how many unread articles score above a threshold (a table scan).
///
/// Both sides read the same rows from store files with the same content and indexes; the
/// results are compared outside the measured spans.
struct QueryWorkload {
    static let lookUpCount = 2_000
    static let pageCount = 500
    static let countCount = 20

    let ids: [Int]
    let cutoffs: [Date]
    let thresholds: [Double]

    /// Ids, dates and scores spread over the payload (ids run from 1,000,000 in steps of 7).
    init(payload: Payload) {
        var random = SplitMix64(seed: 0x5155_4552_4945_5321)
        ids = (0..<Self.lookUpCount).map { _ in 1_000_000 + Int.random(in: 0..<payload.count, using: &random) * 7 }
        // 2015 to 2025, as generated.
        cutoffs = (0..<Self.pageCount).map { _ in
            Timestamp.date(milliseconds: 1_420_070_400_000 + Int64.random(in: 0..<315_619_200_000, using: &random))
        }
        thresholds = (0..<Self.countCount).map { _ in Double(Int.random(in: 0..<10_000, using: &random)) }
    }

    // MARK: Stash

    /// Every look-up through one context, as an app's screen does.
    func stashLookUps(_ container: PersistentContainer) throws -> Checksum {
        let context = ManagedObjectContext(container)
        var checksum = Checksum()
        for id in ids {
            let found = try context.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.id == id }))
            checksum.add(found)
        }
        return checksum
    }

    /// The same look-ups through the keyed fetch, which takes the key path and the value
    /// without a predicate.
    func stashKeyedLookUps(_ container: PersistentContainer) throws -> Checksum {
        let context = ManagedObjectContext(container)
        var checksum = Checksum()
        for id in ids {
            checksum.add(try context.fetch(Article.self, unique: \.id, id).map { [$0] } ?? [])
        }
        return checksum
    }

    func stashNewestPages(_ container: PersistentContainer) throws -> Checksum {
        let context = ManagedObjectContext(container)
        var checksum = Checksum()
        for cutoff in cutoffs {
            var page = FetchDescriptor<Article>(
                predicate: #Predicate { !$0.read && $0.publishedAt < cutoff },
                sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
            page.fetchLimit = 20
            checksum.add(try context.fetch(page))
        }
        return checksum
    }

    func stashCounts(_ container: PersistentContainer) throws -> [Int] {
        let context = ManagedObjectContext(container)
        return try thresholds.map { threshold in
            try context.fetchCount(FetchDescriptor<Article>(predicate: #Predicate { $0.score > threshold && !$0.read }))
        }
    }

    // MARK: Hand-written

    func baselineLookUps(_ database: RawDatabase) throws -> Checksum {
        var checksum = Checksum()
        try Self.each(#"SELECT "# + Baseline.columns + #" FROM "Article" WHERE "id" = ?"#, in: database) { statement in
            for id in ids {
                sqlite3_bind_int64(statement, 1, Int64(id))
                checksum.add(try Self.records(statement, database))
            }
        }
        return checksum
    }

    func baselineNewestPages(_ database: RawDatabase) throws -> Checksum {
        var checksum = Checksum()
        let sql =
            #"SELECT "# + Baseline.columns
            + #" FROM "Article" WHERE "read" = 0 AND "publishedAt" < ? ORDER BY "publishedAt" DESC LIMIT 20"#
        let date = UnsafeMutablePointer<UInt8>.allocate(capacity: Timestamp.length)
        defer { date.deallocate() }
        try Self.each(sql, in: database) { statement in
            for cutoff in cutoffs {
                Timestamp.format(milliseconds: Timestamp.milliseconds(of: cutoff), into: date)
                _ = date.withMemoryRebound(to: CChar.self, capacity: Timestamp.length) {
                    sqlite3_bind_text(statement, 1, $0, Int32(Timestamp.length), sqliteTransient)
                }
                checksum.add(try Self.records(statement, database))
            }
        }
        return checksum
    }

    func baselineCounts(_ database: RawDatabase) throws -> [Int] {
        var counts: [Int] = []
        try Self.each(#"SELECT count(*) FROM "Article" WHERE "score" > ? AND "read" = 0"#, in: database) { statement in
            for threshold in thresholds {
                sqlite3_bind_double(statement, 1, threshold)
                guard sqlite3_step(statement) == SQLITE_ROW else { throw database.failure("count") }
                counts.append(Int(sqlite3_column_int64(statement, 0)))
                sqlite3_reset(statement)
            }
        }
        return counts
    }

    /// Prepares `sql` once for `body`, as a careful engineer keeps a statement.
    private static func each(_ sql: String, in database: RawDatabase, _ body: (OpaquePointer) throws -> Void) throws {
        let statement = try database.prepare(sql)
        defer { sqlite3_finalize(statement) }
        try body(statement)
    }

    /// The rows of the bound statement as structs; resets it.
    private static func records(_ statement: OpaquePointer, _ database: RawDatabase) throws -> [ArticleRecord] {
        defer { sqlite3_reset(statement) }
        var records: [ArticleRecord] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return records }
            guard code == SQLITE_ROW else { throw database.failure("query") }
            records.append(try Baseline.record(from: statement))
        }
    }
}

extension Checksum {
    mutating func add(_ articles: [Article]) {
        for article in articles {
            add(
                id: article.id, title: article.title, subtitle: article.subtitle, body: article.body,
                url: article.url, publishedAt: article.publishedAt, score: article.score, read: article.read,
                authorName: article.authorName, views: article.views)
        }
    }

    mutating func add(_ records: [ArticleRecord]) {
        for record in records {
            add(
                id: record.id, title: record.title, subtitle: record.subtitle, body: record.body, url: record.url,
                publishedAt: record.publishedAt, score: record.score, read: record.read,
                authorName: record.authorName, views: record.views)
        }
    }
}
