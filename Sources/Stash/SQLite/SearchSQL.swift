/// The SQL of an entity's full-text index: an FTS5 table over the entity's table (external
/// content: the text is kept once, in the entity's own columns) and the triggers that keep
/// it in step with every write, whoever makes it.
///
/// ```sql
/// CREATE VIRTUAL TABLE "Post_search" USING fts5("title", "body", content='Post', content_rowid='_pk',
///     tokenize='unicode61 remove_diacritics 2')
/// CREATE TRIGGER "Post_search_insert" AFTER INSERT ON "Post" BEGIN
///     INSERT INTO "Post_search" ("rowid", "title", "body") VALUES (new."_pk", new."title", new."body"); END
/// CREATE TRIGGER "Post_search_update" AFTER UPDATE OF "title", "body" ON "Post" BEGIN
///     INSERT INTO "Post_search" ("Post_search", "rowid", "title", "body")
///         VALUES ('delete', old."_pk", old."title", old."body");
///     INSERT INTO "Post_search" ("rowid", "title", "body") VALUES (new."_pk", new."title", new."body"); END
/// CREATE TRIGGER "Post_search_delete" AFTER DELETE ON "Post" BEGIN
///     INSERT INTO "Post_search" ("Post_search", "rowid", "title", "body")
///         VALUES ('delete', old."_pk", old."title", old."body"); END
/// ```
///
/// FTS5's `'delete'` takes the values the row was indexed with, which the triggers have as
/// `old`; a trigger runs inside the writing statement's transaction, so a rolled-back save
/// leaves the index as it was.
struct SearchSQL {
    let entity: String
    /// `Post_search`.
    let table: String
    /// The statements that make the index and its triggers, in order.
    let create: [String]
    /// `INSERT INTO "Post_search" ("Post_search") VALUES ('rebuild')`: the index made anew
    /// from the table's rows.
    let rebuild: String

    /// The names of the schema objects an entity's index consists of: its table, then its
    /// triggers (the shadow tables FTS5 keeps go with the table).
    static func objectNames(of entity: String) -> [String] {
        let table = tableName(of: entity)
        return [table] + triggerSuffixes.map { table + $0 }
    }

    static func tableName(of entity: String) -> String { entity + "_search" }

    /// The tables FTS5 keeps beside `Post_search`: they belong to the index, not to a model.
    static func shadowTableNames(of entity: String) -> [String] {
        ["_data", "_idx", "_docsize", "_config"].map { tableName(of: entity) + $0 }
    }

    private static let triggerSuffixes = ["_insert", "_update", "_delete"]

    /// `nil` for an entity without `.searchable` attributes: it has no index.
    init?(_ schema: EntitySchema) {
        let columns = schema.searchableColumns.map { schema.columns[$0].name }
        guard !columns.isEmpty else { return nil }
        entity = schema.name
        let table = Self.tableName(of: schema.name)
        self.table = table
        let searchTable = quoted(table)
        let entityTable = quoted(schema.name)
        let names = columns.map(quoted).joined(separator: ", ")
        let targets = "(\"rowid\", \(names))"
        let newValues = "(new.\"_pk\", \(columns.map { "new." + quoted($0) }.joined(separator: ", ")))"
        let oldValues = "('delete', old.\"_pk\", \(columns.map { "old." + quoted($0) }.joined(separator: ", ")))"
        let insertNew = "INSERT INTO \(searchTable) \(targets) VALUES \(newValues);"
        let deleteOld = "INSERT INTO \(searchTable) (\(searchTable), \"rowid\", \(names)) VALUES \(oldValues);"
        let trigger = { (suffix: String) in quoted(table + suffix) }
        create = [
            "CREATE VIRTUAL TABLE \(searchTable) USING fts5(\(names), content=\(Self.literal(schema.name)), "
                + "content_rowid='_pk', tokenize='unicode61 remove_diacritics 2')",
            "CREATE TRIGGER \(trigger("_insert")) AFTER INSERT ON \(entityTable) BEGIN \(insertNew) END",
            "CREATE TRIGGER \(trigger("_update")) AFTER UPDATE OF \(names) ON \(entityTable) BEGIN "
                + "\(deleteOld) \(insertNew) END",
            "CREATE TRIGGER \(trigger("_delete")) AFTER DELETE ON \(entityTable) BEGIN \(deleteOld) END",
        ]
        rebuild = "INSERT INTO \(searchTable) (\(searchTable)) VALUES ('rebuild')"
    }

    /// The statements that drop an entity's index: its triggers, then its table (with the
    /// shadow tables).
    static func drop(of entity: String) -> [String] {
        let table = tableName(of: entity)
        return triggerSuffixes.map { "DROP TRIGGER IF EXISTS \(quoted(table + $0))" }
            + ["DROP TABLE IF EXISTS \(quoted(table))"]
    }

    /// An SQL string literal, for FTS5's options, which take no bound parameter.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The terms as an FTS5 query: each one a quoted phrase, so nothing in them is read as
    /// FTS5 syntax (`AND`, `-x`, `title:foo`, `"`), ANDed; the last one a prefix when asked.
    ///
    /// ```
    /// ["c++", "swi"] → "c++" "swi"*
    /// ```
    ///
    /// A phrase the tokenizer finds no token in (`"++"`, an emoji) matches nothing alone and
    /// is left out of a query with other phrases by FTS5 itself; neither is an error.
    static func matchExpression(_ terms: [String], lastIsPrefix: Bool) -> String {
        var expression = ""
        for (offset, term) in terms.enumerated() {
            if offset > 0 { expression += " " }
            expression += "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            if lastIsPrefix && offset == terms.count - 1 { expression += "*" }
        }
        return expression
    }
}
