/// What a file is to Stash, decided by reading it before anything is written: a file Stash
/// did not make is refused untouched (not switched to WAL, no table adopted).
///
/// - `new`: no schema at all (a file just made, or an empty database): Stash's to make.
/// - `stash`: it has Stash's bookkeeping table (`SchemaRecord`).
/// - `earlierStash`: made by a Stash from before that table. Recognised by what every such
///   store has: WAL mode, and tables in Stash's own words (`CREATE TABLE "Post" ("_pk" INTEGER
///   PRIMARY KEY, …`, as `EntitySQL` wrote them), among them every table of the model's
///   entities that the file has. Another app's `Post` with a `_pk` column of its own is not.
enum StoreFile: Equatable {
    case new
    case stash(SchemaRecord)
    case earlierStash

    /// Reads the file's schema; throws `foreignStore` for a file Stash did not make.
    static func inspect(_ connection: SQLiteConnection, path: String, entities: [EntitySchema]) throws -> StoreFile {
        if let record = try SchemaRecord.read(connection) { return .stash(record) }
        var tables: [String: String] = [:]
        var others: [String] = []
        try connection.forEachRow("SELECT type, name, sql FROM sqlite_master") { row in
            guard case .text(let type) = row.column(0), case .text(let name) = row.column(1) else { return }
            let sql: String
            if case .text(let text) = row.column(2) { sql = text } else { sql = "" }
            if type == "table" {
                if !name.hasPrefix("sqlite_") { tables[name] = sql }
            } else if type != "index" {
                others.append("the \(type) \(name)")
            }
        }
        if tables.isEmpty && others.isEmpty { return .new }
        func refuse(_ reason: String) -> StashError {
            StashError(
                .foreignStore,
                "\(path) was not made by Stash (\(reason)); Stash changes no file it did not make, and left this one untouched"
            )
        }
        let madeByStash = tables.filter { name, sql in
            sql.hasPrefix("CREATE TABLE \(quoted(name)) (\"_pk\" INTEGER PRIMARY KEY")
        }
        for entity in entities where tables[entity.name] != nil && madeByStash[entity.name] == nil {
            var error = refuse("its table \(entity.name) is not in the form Stash makes tables in")
            error.entity = entity.name
            throw error
        }
        guard !madeByStash.isEmpty else {
            throw refuse("it has no \(SchemaRecord.table) table, and no table in Stash's form")
        }
        var mode = ""
        try connection.forEachRow("PRAGMA journal_mode") { mode = $0.text(0) }
        guard mode.lowercased() == "wal" else {
            throw refuse(
                "it has no \(SchemaRecord.table) table, and is in \(mode) mode, where every Stash store is in WAL")
        }
        return .earlierStash
    }
}
