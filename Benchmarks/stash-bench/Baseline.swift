import CSQLite
import Foundation

/// The hand-written way: `JSONDecoder` into plain structs, then the sqlite3 C API with one
/// prepared statement, values bound by index, one transaction.
///
/// It is meant to be what a careful engineer writes without a framework, not a straw man:
/// no per-row allocations beyond the decoded values, dates formatted into a reused buffer,
/// text bound from the strings' own UTF-8 storage. The table matches Stash's column for
/// column (checked by `StoreComparison`), including `_pk` and the unique index on `id`.
enum Baseline {
    static let table = "Article"

    static let createTable = """
        CREATE TABLE "Article" ("_pk" INTEGER PRIMARY KEY, "id" INTEGER NOT NULL, "title" TEXT NOT NULL, \
        "subtitle" TEXT, "body" TEXT NOT NULL, "url" TEXT NOT NULL, "publishedAt" TEXT NOT NULL, \
        "score" REAL NOT NULL, "read" INTEGER NOT NULL, "authorName" TEXT NOT NULL, "views" INTEGER NOT NULL)
        """
    static let createIndex =
        #"CREATE UNIQUE INDEX "Article_id_unique" ON "Article" ("id"); "#
        + #"CREATE INDEX "Article_publishedAt_index" ON "Article" ("publishedAt")"#

    static let columns =
        #""id", "title", "subtitle", "body", "url", "publishedAt", "score", "read", "#
        + #""authorName", "views""#
    private static let insert = #"INSERT INTO "Article" ("# + columns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// Every column but the key takes the incoming value, as Stash's default merge policy does.
    private static let upsert =
        insert + #" ON CONFLICT ("id") DO UPDATE SET "title" = excluded."title", "#
        + #""subtitle" = excluded."subtitle", "body" = excluded."body", "url" = excluded."url", "#
        + #""publishedAt" = excluded."publishedAt", "score" = excluded."score", "read" = excluded."read", "#
        + #""authorName" = excluded."authorName", "views" = excluded."views""#
    private static let selectAll = #"SELECT "# + columns + #" FROM "Article" ORDER BY "_pk""#

    /// Opens a new store file with Stash's connection settings and the same schema.
    /// Not timed: opening Stash's container is not timed either.
    static func createStore(at path: String) throws -> RawDatabase {
        let database = try RawDatabase(path: path)
        try database.execute("BEGIN IMMEDIATE; \(createTable); \(createIndex); COMMIT")
        return database
    }

    static func decode(_ data: Data) throws -> [ArticleRecord] {
        try Timestamp.makeDecoder().decode([ArticleRecord].self, from: data)
    }

    /// Writes `records` in one transaction; with `upsert`, a row whose `id` is stored is
    /// updated instead.
    static func write(_ records: [ArticleRecord], to database: RawDatabase, upsert: Bool) throws {
        let date = UnsafeMutablePointer<UInt8>.allocate(capacity: Timestamp.length)
        defer { date.deallocate() }
        try database.run(upsert ? self.upsert : insert, forEach: records) { statement, record in
            var code = sqlite3_bind_int64(statement, 1, Int64(record.id))
            code |= bindText(statement, 2, record.title)
            if let subtitle = record.subtitle {
                code |= bindText(statement, 3, subtitle)
            } else {
                code |= sqlite3_bind_null(statement, 3)
            }
            code |= bindText(statement, 4, record.body)
            code |= bindText(statement, 5, record.url.absoluteString)
            Timestamp.format(milliseconds: Timestamp.milliseconds(of: record.publishedAt), into: date)
            code |= date.withMemoryRebound(to: CChar.self, capacity: Timestamp.length) {
                sqlite3_bind_text(statement, 6, $0, Int32(Timestamp.length), sqliteTransient)
            }
            code |= sqlite3_bind_double(statement, 7, record.score)
            code |= sqlite3_bind_int64(statement, 8, record.read ? 1 : 0)
            code |= bindText(statement, 9, record.authorName)
            code |= sqlite3_bind_int64(statement, 10, Int64(record.views))
            return code
        }
    }

    /// One more view for every record, in one transaction: the hand-written code knows
    /// which column changed and writes only that one.
    static func addView(to records: [ArticleRecord], in database: RawDatabase) throws {
        try database.run(#"UPDATE "Article" SET "views" = ? WHERE "id" = ?"#, forEach: records) { statement, record in
            sqlite3_bind_int64(statement, 1, Int64(record.views + 1))
                | sqlite3_bind_int64(statement, 2, Int64(record.id))
        }
    }

    /// Every row as a struct, dates and URLs converted back, in `_pk` order (as Stash
    /// fetches them).
    static func fetchAll(from database: RawDatabase) throws -> [ArticleRecord] {
        let statement = try database.prepare(selectAll)
        defer { sqlite3_finalize(statement) }
        var records: [ArticleRecord] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw database.failure(selectAll) }
            records.append(try record(from: statement))
        }
        return records
    }

    /// The current row of a statement that selects `columns`, as a struct.
    static func record(from statement: OpaquePointer) throws -> ArticleRecord {
        let urlText = columnText(statement, 4)
        guard let url = URL(string: urlText) else { throw BenchError("stored url is not a URL: \(urlText)") }
        let milliseconds = sqlite3_column_text(statement, 5).flatMap { text in
            Timestamp.milliseconds(in: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 5))))
        }
        guard let milliseconds else { throw BenchError("stored publishedAt is not a timestamp") }
        return ArticleRecord(
            id: Int(sqlite3_column_int64(statement, 0)),
            title: columnText(statement, 1),
            subtitle: sqlite3_column_type(statement, 2) == SQLITE_NULL ? nil : columnText(statement, 2),
            body: columnText(statement, 3),
            url: url,
            publishedAt: Timestamp.date(milliseconds: milliseconds),
            score: sqlite3_column_double(statement, 6),
            read: sqlite3_column_int64(statement, 7) != 0,
            authorName: columnText(statement, 8),
            views: Int(sqlite3_column_int64(statement, 9)))
    }

    /// Reads every field of every record, as the Stash run reads every attribute.
    static func touch(_ records: [ArticleRecord]) -> Checksum {
        var checksum = Checksum()
        checksum.add(records)
        return checksum
    }
}
