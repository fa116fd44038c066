/// The SQL text of the statements the store runs for one entity, made once per entity.
///
/// ```sql
/// CREATE TABLE "Post" ("_pk" INTEGER PRIMARY KEY, "id" INTEGER NOT NULL, "title" TEXT NOT NULL)
/// INSERT INTO "Post" ("id", "title") VALUES (?, ?)
/// SELECT "_pk", "id", "title" FROM "Post"
/// DELETE FROM "Post" WHERE "_pk" = ?
/// ```
///
/// `_pk` is Stash's own key: an `INTEGER PRIMARY KEY`, SQLite's rowid under a stable
/// name, which identifies the row whatever the model's unique attributes are.
struct EntitySQL: Sendable {
    let table: String
    let createTable: String
    let createUniqueIndexes: [String]
    let insert: String
    let selectAll: String
    let count: String
    /// `SELECT EXISTS (SELECT 1 FROM "Post")`: whether the table has any row at all.
    let anyRow: String
    let deleteByKey: String
    private let quotedTable: String
    private let columnList: String

    init(table: String, attributes: [AttributeDescription]) {
        self.table = table
        quotedTable = quoted(table)
        let columns = attributes.map { quoted($0.name) }
        columnList = columns.joined(separator: ", ")
        createTable = Self.createTable(named: table, attributes: attributes, extraColumns: [])
        createUniqueIndexes = attributes.filter(\.isUnique).map {
            Self.createUniqueIndex(table: table, column: $0.name)
        }
        let placeholders = Array(repeating: "?", count: attributes.count).joined(separator: ", ")
        insert =
            attributes.isEmpty
            ? "INSERT INTO \(quotedTable) DEFAULT VALUES"
            : "INSERT INTO \(quotedTable) (\(columnList)) VALUES (\(placeholders))"
        selectAll = "SELECT \(attributes.isEmpty ? "\"_pk\"" : "\"_pk\", " + columnList) FROM \(quotedTable)"
        count = "SELECT count(*) FROM \(quotedTable)"
        anyRow = "SELECT EXISTS (SELECT 1 FROM \(quotedTable))"
        deleteByKey = "DELETE FROM \(quotedTable) WHERE \"_pk\" = ?"
    }

    static func createTable(named table: String, attributes: [AttributeDescription], extraColumns: [String]) -> String {
        let columns = ["\"_pk\" INTEGER PRIMARY KEY"] + attributes.map(\.columnDefinition) + extraColumns
        return "CREATE TABLE \(quoted(table)) (\(columns.joined(separator: ", ")))"
    }

    static func uniqueIndexName(table: String, column: String) -> String {
        "\(table)_\(column)_unique"
    }

    static func createUniqueIndex(table: String, column: String) -> String {
        "CREATE UNIQUE INDEX \(quoted(uniqueIndexName(table: table, column: column))) ON \(quoted(table)) (\(quoted(column)))"
    }

    /// `UPDATE "Post" SET "title" = ?, "read" = ? WHERE "_pk" = ?`: only the changed columns.
    func update(_ attributes: [AttributeDescription]) -> String {
        let assignments = attributes.map { "\(quoted($0.name)) = ?" }.joined(separator: ", ")
        return "UPDATE \(quotedTable) SET \(assignments) WHERE \"_pk\" = ?"
    }

    /// `SELECT "_pk", "id", "title" FROM "Post" WHERE "id" IN (?, ?, …)`: the key, the
    /// unique value and the `wanted` columns of the rows that hold a batch of unique values.
    func select(_ wanted: [AttributeDescription], where unique: AttributeDescription, in count: Int) -> String {
        let columns = (["_pk", unique.name] + wanted.map(\.name)).map(quoted).joined(separator: ", ")
        return "SELECT \(columns) FROM \(quotedTable) WHERE \(quoted(unique.name)) IN (\(placeholders(count)))"
    }

    private func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
