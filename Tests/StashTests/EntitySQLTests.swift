import Foundation
import Testing

@testable import Stash

/// The exact SQL the store runs for an entity.
@Suite struct EntitySQLTests {
    @Test func statementsForThePostEntity() throws {
        let entity = try EntityRegistry.shared.entity(for: Post.self)
        let sql = EntitySQL(entity.schema)
        #expect(
            sql.createTable
                == #"CREATE TABLE "Post" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "id" INTEGER NOT NULL, "userId" INTEGER NOT NULL, "title" TEXT NOT NULL, "body" TEXT NOT NULL, "read" INTEGER NOT NULL, "summary" TEXT)"#
        )
        #expect(
            EntitySQL.createIndex(entity.schema.indexes[0], of: entity.schema)
                == #"CREATE UNIQUE INDEX "Post_id_unique" ON "Post" ("id")"#)
        var indexed = EntitySchema(
            name: "Post",
            columns: ["userId", "publishedAt"].map {
                ColumnSchema(
                    name: $0, type: .text, isOptional: false, isUnique: false, isIndexed: true, defaultValue: nil)
            })
        indexed.compoundIndexes = [[0, 1]]
        #expect(
            indexed.indexes.map { EntitySQL.createIndex($0, of: indexed) } == [
                #"CREATE INDEX "Post_userId_index" ON "Post" ("userId")"#,
                #"CREATE INDEX "Post_publishedAt_index" ON "Post" ("publishedAt")"#,
                #"CREATE INDEX "Post_userId_publishedAt_index" ON "Post" ("userId", "publishedAt")"#,
            ])
        #expect(
            sql.insert
                == #"INSERT OR ROLLBACK INTO "Post" ("id", "userId", "title", "body", "read", "summary") VALUES (?, ?, ?, ?, ?, ?)"#
        )
        let all = Array(entity.attributes.indices)
        #expect(
            sql.select(all, where: .all)
                == #"SELECT "_pk", "id", "userId", "title", "body", "read", "summary" FROM "Post" ORDER BY "_pk""#)
        #expect(
            sql.select([0, 2], where: .all, limited: true)
                == #"SELECT "_pk", "id", "title" FROM "Post" ORDER BY "_pk" LIMIT ? OFFSET ?"#)
        #expect(
            sql.select(all, where: .rowIDs(count: 2))
                == #"SELECT "_pk", "id", "userId", "title", "body", "read", "summary" FROM "Post" WHERE "_pk" IN (?, ?) ORDER BY "_pk""#
        )
        #expect(sql.count == #"SELECT count(*) FROM "Post""#)
        #expect(sql.count(where: .values(column: 1, count: 1)) == #"SELECT count(*) FROM "Post" WHERE "userId" IN (?)"#)
        #expect(sql.anyRow == #"SELECT EXISTS (SELECT 1 FROM "Post")"#)
        #expect(sql.deleteByKey == #"DELETE FROM "Post" WHERE "_pk" = ?"#)
        let title = try #require(entity.attribute(named: "title"))
        let read = try #require(entity.attribute(named: "read"))
        #expect(sql.update([title.index, read.index]) == #"UPDATE "Post" SET "title" = ?, "read" = ? WHERE "_pk" = ?"#)
        #expect(
            sql.select([0, title.index, read.index], where: .values(column: 0, count: 3), ordered: false)
                == #"SELECT "_pk", "id", "title", "read" FROM "Post" WHERE "id" IN (?, ?, ?)"#)
    }

    @Test func identifiersAreQuoted() {
        #expect(quoted(#"we"ird"#) == #""we""ird""#)
    }

    @Test func schemaIsDerivedOncePerClass() throws {
        let first = try EntityRegistry.shared.entity(for: Sample.self)
        let second = try EntityRegistry.shared.entity(for: Sample.self)
        #expect(first === second)
        #expect(first.attributes.map(\.name).prefix(3) == ["id", "int8", "int16"])
        #expect(first.attributes.first { $0.name == "kind" }?.isOptional == true)
        #expect(first.uniqueAttributes.map(\.name) == ["id"])
    }

    @Test func storedDatesAreISO8601WithMilliseconds() throws {
        #expect(try StoredDate.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(try StoredDate.string(from: Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(StoredDate.date(from: "2024-05-01T09:30:00.250Z") == Date(timeIntervalSince1970: 1_714_555_800.25))
        #expect(StoredDate.date(from: "2024-05-01 11:30:00+02:00") == Date(timeIntervalSince1970: 1_714_555_800))
        #expect(StoredDate.date(from: "2024-05-01") == Date(timeIntervalSince1970: 1_714_521_600))
        #expect(StoredDate.date(from: "2024-13-01") == nil)
        #expect(StoredDate.date(from: "yesterday") == nil)
    }
}
