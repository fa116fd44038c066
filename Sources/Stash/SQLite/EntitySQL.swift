import Foundation

/// The SQL text of the statements the store runs for one entity, made once per entity.
///
/// ```sql
/// CREATE TABLE "Post" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "id" INTEGER NOT NULL, "title" TEXT NOT NULL)
/// INSERT OR ROLLBACK INTO "Post" ("id", "title") VALUES (?, ?)
/// SELECT "_pk", "id", "title" FROM "Post" ORDER BY "_pk"
/// DELETE FROM "Post" WHERE "_pk" = ?
/// ```
///
/// `_pk` is Stash's own key: an `INTEGER PRIMARY KEY`, SQLite's rowid under a stable
/// name, which identifies the row whatever the model's unique attributes are. It is
/// `AUTOINCREMENT`, so a deleted row's key is never given to a new row: an `ObjectID` held
/// by another context, process or view, or a row id kept for a 304, names one row for good.
/// A class, not a struct: a fetch looks it up by entity, and copying a struct of a dozen
/// strings out of the dictionary retained and released each one.
final class EntitySQL: Sendable {
    let schema: EntitySchema
    let createTable: String
    let insert: String
    /// `insert` for `batchRows` rows at once (`VALUES (?, ?), (?, ?), …`), `nil` for a table
    /// with no column to write: see `SQLiteStore.insertRows`.
    let batchInsert: (rows: Int, sql: String)?
    let count: String
    /// `SELECT EXISTS (SELECT 1 FROM "Post")`: whether the table has any row at all.
    let anyRow: String
    let deleteByKey: String
    /// `SELECT "_pk", "id", "title" FROM "Post"`: every column, for a query to complete.
    let selectAllColumns: String
    /// For each column, the SELECT of every column of the rows where it equals one value
    /// (`WHERE ("id" = ?) ORDER BY "_pk"`), and the same with ` LIMIT ? OFFSET ?`: the look-up
    /// by value most fetches are, rendered once (see `SQLiteStore.renderedSelect`). Empty
    /// unless made with `lookUps`.
    let selectWhereEqual: [(plain: String, limited: String)]
    private let quotedTable: String
    /// `selectEveryColumn`'s texts for `commonShapes`, each unlimited, then limited.
    private let selectsOfEveryColumn: [String]

    /// `lookUps`: render `selectWhereEqual` (for the store's own entities, made once).
    init(_ schema: EntitySchema, lookUps: Bool = false) {
        self.schema = schema
        quotedTable = quoted(schema.name)
        createTable = Self.createTable(
            named: schema.name, columns: schema.columns,
            extraColumns: schema.positionColumns.map { "\(quoted($0)) INTEGER" })
        // A new row's list places go in with it (`RowWrites.position`).
        let written = schema.columns.map(\.name) + schema.positionColumns
        // `OR ROLLBACK`: a save never goes on after a failed statement, and saying so spares
        // SQLite the statement journal of each multi-row INSERT, which it spilled to a
        // temporary file (570 MB for an import of 100,000 records; see docs/ARCHITECTURE.md).
        // A searchable entity's INSERTs still keep one: they fire the trigger that writes
        // its full-text index, and SQLite journals any statement that does.
        insert =
            written.isEmpty
            ? "INSERT INTO \(quotedTable) DEFAULT VALUES"
            : "INSERT OR ROLLBACK INTO \(quotedTable) (\(written.map(quoted).joined(separator: ", "))) VALUES (\(placeholders(written.count)))"
        // At most 64 rows, and fewer parameters than SQLite's limit (32,766 since 3.32).
        let rows = written.isEmpty ? 1 : max(1, min(64, 32_000 / written.count))
        batchInsert =
            rows == 1
            ? nil
            : (rows, insert + String(repeating: ", (\(placeholders(written.count)))", count: rows - 1))
        count = "SELECT count(*) FROM \(quotedTable)"
        anyRow = "SELECT EXISTS (SELECT 1 FROM \(quotedTable))"
        deleteByKey = "DELETE FROM \(quotedTable) WHERE \"_pk\" = ?"
        let selectAll =
            "SELECT " + (["\"_pk\""] + schema.columns.map { quoted($0.name) }).joined(separator: ", ") + " FROM "
            + quotedTable
        selectAllColumns = selectAll
        let everyColumn = Array(schema.columns.indices)
        selectsOfEveryColumn = Self.commonShapes.flatMap { [quotedTable] shape in
            [false, true].map { limited in
                Self.select(everyColumn, of: schema, from: quotedTable, where: shape, ordered: true, limited: limited)
            }
        }
        // Rendered by the renderer itself, so the text is the one any other path would run.
        selectWhereEqual = (lookUps ? schema.columns.indices : 0..<0).map { column in
            var query = StoreQuery(schema)
            query.predicate = .columnEquals(column, .null)
            let plain = SQLiteStore.renderSelect(query, selectingAll: selectAll).text
            query.limit = 1
            return (plain, SQLiteStore.renderSelect(query, selectingAll: selectAll).text)
        }
    }

    static func createTable(named table: String, columns: [ColumnSchema], extraColumns: [String]) -> String {
        let definitions = [keyDefinition] + columns.map(columnDefinition) + extraColumns
        return "CREATE TABLE \(quoted(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// The key column of every table Stash makes.
    static let keyDefinition = "\"_pk\" INTEGER PRIMARY KEY AUTOINCREMENT"

    /// `"title" TEXT NOT NULL`: the column's SQL type, NOT NULL unless it is optional.
    ///
    /// A relationship's column references its target's key, checked when the transaction
    /// commits, so the rows of one save can point at each other in any order:
    /// `"author" INTEGER REFERENCES "Author" ("_pk") DEFERRABLE INITIALLY DEFERRED`.
    static func columnDefinition(_ column: ColumnSchema) -> String {
        var definition = "\(quoted(column.name)) \(typeName(column.type))" + (column.isOptional ? "" : " NOT NULL")
        if let table = column.references {
            definition +=
                " REFERENCES \(quoted(table)) (\"_pk\")\(column.cascades ? " ON DELETE CASCADE" : "") DEFERRABLE INITIALLY DEFERRED"
        }
        return definition
    }

    static func typeName(_ type: StoredType) -> String {
        switch type {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// `UPDATE "Post" SET "title" = ?, "read" = ? WHERE "_pk" = ?`: only the given columns.
    func update(_ columns: [Int]) -> String {
        let assignments = columns.map { "\(quoted(schema.columns[$0].name)) = ?" }.joined(separator: ", ")
        return "UPDATE \(quotedTable) SET \(assignments) WHERE \"_pk\" = ?"
    }

    /// `SELECT "_pk", "id", "title" FROM "Post" … ORDER BY "_pk"`: the key and `columns`
    /// of the rows `filter` selects, in row id order unless `ordered` is false; with
    /// `limited`, two more parameters give the limit and the offset.
    func select(_ columns: [Int], where filter: FilterShape, ordered: Bool = true, limited: Bool = false) -> String {
        Self.select(columns, of: schema, from: quotedTable, where: filter, ordered: ordered, limited: limited)
    }

    /// `select` of every column: made once for the shapes most reads take (the whole table,
    /// one row, a range of row ids), where building the text cost about 23k instructions,
    /// as much as the one-row read it was for (an essay's author, a fault). In row id order.
    func selectEveryColumn(where filter: FilterShape, limited: Bool = false) -> String {
        guard let position = Self.commonShape(filter) else {
            return select(Array(schema.columns.indices), where: filter, limited: limited)
        }
        return selectsOfEveryColumn[position * 2 + (limited ? 1 : 0)]
    }

    /// The shapes `selectsOfEveryColumn` holds, by position; `nil` for one made when asked.
    private static func commonShape(_ filter: FilterShape) -> Int? {
        switch filter {
        case .all: 0
        case .rowIDs(count: 1): 1
        case .rowRange: 2
        case .rowIDs, .values: nil
        }
    }

    private static let commonShapes: [FilterShape] = [.all, .rowIDs(count: 1), .rowRange]

    private static func select(
        _ columns: [Int], of schema: EntitySchema, from quotedTable: String, where filter: FilterShape,
        ordered: Bool, limited: Bool
    ) -> String {
        let names = (["_pk"] + columns.map { schema.columns[$0].name }).map(quoted).joined(separator: ", ")
        return "SELECT \(names) FROM \(quotedTable)\(whereClause(filter, of: schema))"
            + (ordered ? " ORDER BY \"_pk\"" : "") + (limited ? " LIMIT ? OFFSET ?" : "")
    }

    /// `SELECT count(*) FROM "Post" …`.
    func count(where filter: FilterShape) -> String {
        "SELECT count(*) FROM \(quotedTable)\(Self.whereClause(filter, of: schema))"
    }

    /// The shape of a query's WHERE clause: which column, how many values.
    enum FilterShape: Hashable {
        case all
        case rowIDs(count: Int)
        /// `"_pk" BETWEEN ? AND ?`.
        case rowRange
        case values(column: Int, count: Int)
    }

    private static func whereClause(_ filter: FilterShape, of schema: EntitySchema) -> String {
        switch filter {
        case .all: ""
        case .rowIDs(let count): " WHERE \"_pk\" IN (\(placeholders(count)))"
        case .rowRange: " WHERE \"_pk\" BETWEEN ? AND ?"
        case .values(let column, let count):
            " WHERE \(quoted(schema.columns[column].name)) IN (\(placeholders(count)))"
        }
    }

    // MARK: Indexes

    /// `Post_id_unique` for a unique attribute, `Post_publishedAt_index` for an indexed one,
    /// `Post_userId_publishedAt_index` for a compound index.
    static func indexName(_ index: IndexSchema, of schema: EntitySchema) -> String {
        let names = index.columns.map { schema.columns[$0].name }
        return "\(schema.name)_\(names.joined(separator: "_"))_\(index.isUnique ? "unique" : "index")"
    }

    /// `CREATE UNIQUE INDEX "Post_id_unique" ON "Post" ("id")`, or a plain index.
    static func createIndex(_ index: IndexSchema, of schema: EntitySchema) -> String {
        let name = quoted(indexName(index, of: schema))
        let columns = index.columns.map { quoted(schema.columns[$0].name) }.joined(separator: ", ")
        return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(name) ON \(quoted(schema.name)) (\(columns))"
    }
}

/// `?, ?, ?`.
func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

/// An SQL identifier in double quotes, with any quote inside doubled.
package func quoted(_ identifier: String) -> String {
    // Swift identifiers never hold a quote: skip Foundation's search and replace.
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
