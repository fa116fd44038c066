import CSQLite
import Foundation
import Stash
import TestProcesses

/// Essays with their authors nested (`"author": {"id": 7, "name": "…"}`), 500 authors among
/// them: the object graph's import and fetch, against hand-written code that does the same
/// work (dedupe the authors, insert them, insert the essays with the foreign key, in one
/// transaction; a JOIN that materialises each essay with its author).
final class Author: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var name: String
}

final class Essay: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var words: Int
    @Relationship var author: Author?
}

struct AuthorRecord: Decodable, Hashable {
    let id: Int
    let name: String
}

struct EssayRecord: Decodable {
    let id: Int
    let title: String
    let words: Int
    let author: AuthorRecord
}

/// The graph payload and what both sides must read back.
struct GraphPayload {
    static let defaultAuthorCount = 500

    let data: Data
    let count: Int
    /// Sum over essays of id + words + the author's id and name length.
    let checksum: Int

    static func generate(count: Int, authors authorCount: Int = defaultAuthorCount) -> GraphPayload {
        var random = SplitMix64(seed: 0x4752_4150_4821)
        var json = "["
        json.reserveCapacity(count * 120)
        var checksum = 0
        for id in 0..<count {
            let author = Int.random(in: 0..<authorCount, using: &random)
            let words = Int.random(in: 300..<5000, using: &random)
            let name = "Author \(author)"
            if id > 0 { json += "," }
            json += #"{"id":\#(id),"title":"Essay \#(id) on graphs","words":\#(words),"#
            json += #""author":{"id":\#(author),"name":"\#(name)"}}"#
            checksum &+= id &+ words &+ author &+ name.utf8.count
        }
        json += "]"
        return GraphPayload(data: Data(json.utf8), count: count, checksum: checksum)
    }
}

enum GraphRun {
    static func createStore(at path: String) throws -> PersistentContainer {
        try PersistentContainer(for: Essay.self, Author.self, storeURL: URL(fileURLWithPath: path))
    }

    /// Decodes and saves: the nested authors upsert as they come.
    static func importPayload(_ data: Data, _ container: PersistentContainer) throws -> Int {
        let context = ManagedObjectContext(container)
        let decoder = JSONDecoder()
        decoder.userInfo[.managedObjectContext] = context
        let essays = try decoder.decode([Essay].self, from: data)
        try context.save()
        return essays.count
    }

    /// Decodes through `context.decode` (the byte-level reader where the model allows) and saves.
    static func decodePayload(_ data: Data, _ container: PersistentContainer) throws -> Int {
        let context = ManagedObjectContext(container)
        let essays = try context.decode([Essay].self, from: data)
        try context.save()
        return essays.count
    }

    /// Every essay, and each one's author's name; `prefetchingAuthors` loads the authors with
    /// the essays, in one more query, instead of each as its first essay reads it.
    static func fetchAll(from container: PersistentContainer, prefetchingAuthors: Bool) throws -> Int {
        let context = ManagedObjectContext(container)
        var descriptor = FetchDescriptor<Essay>()
        if prefetchingAuthors { descriptor.relationshipKeyPathsForPrefetching = [\.author] }
        var checksum = 0
        for essay in try context.fetch(descriptor) {
            guard let author = essay.author else { continue }
            checksum &+= essay.id &+ essay.words &+ author.id &+ author.name.utf8.count
        }
        return checksum
    }
}

enum GraphBaseline {
    static let schema = """
        CREATE TABLE "Author" ("_pk" INTEGER PRIMARY KEY, "id" INTEGER NOT NULL, "name" TEXT NOT NULL);
        CREATE UNIQUE INDEX "Author_id_unique" ON "Author" ("id");
        CREATE TABLE "Essay" ("_pk" INTEGER PRIMARY KEY, "id" INTEGER NOT NULL, "title" TEXT NOT NULL,
            "words" INTEGER NOT NULL, "author" INTEGER REFERENCES "Author" ("_pk") DEFERRABLE INITIALLY DEFERRED);
        CREATE UNIQUE INDEX "Essay_id_unique" ON "Essay" ("id");
        CREATE INDEX "Essay_author_index" ON "Essay" ("author");
        """

    static func createStore(at path: String) throws -> RawDatabase {
        let database = try RawDatabase(path: path)
        try database.execute("BEGIN IMMEDIATE; \(schema) COMMIT")
        return database
    }

    /// Decodes into structs, dedupes the authors, inserts them and then the essays with the
    /// author's row id, in one transaction.
    static func importPayload(_ data: Data, into database: RawDatabase) throws -> Int {
        let essays = try JSONDecoder().decode([EssayRecord].self, from: data)
        try database.execute("BEGIN IMMEDIATE")
        do {
            var authorRows: [Int: Int64] = [:]
            let insertAuthor = try database.prepare(#"INSERT INTO "Author" ("id", "name") VALUES (?, ?)"#)
            defer { sqlite3_finalize(insertAuthor) }
            let insertEssay = try database.prepare(
                #"INSERT INTO "Essay" ("id", "title", "words", "author") VALUES (?, ?, ?, ?)"#)
            defer { sqlite3_finalize(insertEssay) }
            for essay in essays {
                let author: Int64
                if let row = authorRows[essay.author.id] {
                    author = row
                } else {
                    sqlite3_bind_int64(insertAuthor, 1, Int64(essay.author.id))
                    _ = bindText(insertAuthor, 2, essay.author.name)
                    guard sqlite3_step(insertAuthor) == SQLITE_DONE else { throw database.failure("insert author") }
                    sqlite3_reset(insertAuthor)
                    author = sqlite3_last_insert_rowid(database.handle)
                    authorRows[essay.author.id] = author
                }
                sqlite3_bind_int64(insertEssay, 1, Int64(essay.id))
                _ = bindText(insertEssay, 2, essay.title)
                sqlite3_bind_int64(insertEssay, 3, Int64(essay.words))
                sqlite3_bind_int64(insertEssay, 4, author)
                guard sqlite3_step(insertEssay) == SQLITE_DONE else { throw database.failure("insert essay") }
                sqlite3_reset(insertEssay)
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        return essays.count
    }

    /// Every essay with its author, by a JOIN, as structs.
    static func fetchAll(from database: RawDatabase) throws -> Int {
        let sql = #"""
            SELECT e."id", e."title", e."words", a."id", a."name" FROM "Essay" e
            JOIN "Author" a ON a."_pk" = e."author" ORDER BY e."_pk"
            """#
        let statement = try database.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var essays: [EssayRecord] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            essays.append(
                EssayRecord(
                    id: Int(sqlite3_column_int64(statement, 0)), title: columnText(statement, 1),
                    words: Int(sqlite3_column_int64(statement, 2)),
                    author: AuthorRecord(id: Int(sqlite3_column_int64(statement, 3)), name: columnText(statement, 4))))
        }
        var checksum = 0
        for essay in essays {
            checksum &+= essay.id &+ essay.words &+ essay.author.id &+ essay.author.name.utf8.count
        }
        return checksum
    }
}
