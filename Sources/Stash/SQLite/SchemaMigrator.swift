/// Brings a store's tables in line with the entities when a container opens it.
///
/// It first reads the schema without a write lock, so opening a store that needs nothing
/// never waits for another process's write. If something must change, it plans again under
/// `BEGIN IMMEDIATE` and makes every change in that one transaction, so a change it cannot
/// make (a new required attribute with no default on a table that has rows, a changed
/// column type, a new unique attribute whose column holds duplicates) is an error that
/// leaves the file untouched.
///
/// - A new entity gets its table and indexes.
/// - A renamed attribute (`@Attribute(originalName:)`) renames its column, keeping the data.
/// - A new optional attribute is `ALTER TABLE … ADD COLUMN`.
/// - A new required attribute with a default, a column whose optionality changed, or a
///   column the model no longer has that is NOT NULL: the table is rebuilt following SQLite's
///   twelve-step procedure (foreign keys off, new table, rows copied with the default bound
///   as a parameter, old table dropped, new one renamed, indexes made again,
///   `foreign_key_check`, commit), so rows of other tables that point at it are untouched.
/// - A default that differs per object (`= UUID()`) is made afresh for every existing row.
/// - A column the model no longer has is kept, with its data; it is never dropped.
/// - A table whose `_pk` is not `AUTOINCREMENT` (made before Stash's keys were) is rebuilt,
///   keeping every row and its key; SQLite seeds the table's `sqlite_sequence` entry with the
///   largest key copied, so no key still in use is given again. (A key deleted above that
///   largest one before the rebuild was never recorded, and may be given once more.)
/// - Indexes follow `.unique` (`Post_id_unique`) and `.indexed` (`Post_publishedAt_index`).
/// - `.searchable` attributes get the entity's full-text index, `Post_search`, and the
///   triggers that keep it (`SearchSQL`), filled from the rows; it is remade when they
///   change, the table is rebuilt or a column renamed, and dropped with the last of them.
///
/// Undoing what a newer model made is refused, so that an older app opening the store cannot
/// break it for the newer one. The store keeps the highest `schemaVersion` of the models that
/// opened it (`SchemaRecord`). A model at that version may add (tables, columns, indexes,
/// NOT NULL with a default, renames) but not let a NOT NULL column take NULL nor drop a unique
/// index (for a column it lacks or declares without the option): the error names each one
/// and the file is left untouched. A model with a higher version may do both, and raises the
/// store's version. A model with a lower version may open the store only if it changes
/// nothing (it reads and writes the tables as they are; SQLite still enforces the newer
/// model's constraints). Tables and columns are never dropped, whatever the version.
struct SchemaMigrator {
    let connection: SQLiteConnection
    let entities: [EntitySchema]
    /// The model's schema version (`PersistentContainer`'s `schemaVersion:`).
    var schemaVersion: Int64 = 0
    /// For a store opened read-only, how and where: nothing may change (an earlier Stash's
    /// keys and bookkeeping table are left as they are, since nothing is written).
    var readOnly: (access: ReadOnlyAccess, path: String)?

    func migrate() throws {
        let record = try SchemaRecord.read(connection)
        if let (access, path) = readOnly {
            let plan = try plan()
            guard plan.steps.isEmpty else {
                throw StashError(
                    .readOnlyStore,
                    "the store \(path) is read-only (\(access.reason)) and this model needs a migration: "
                        + plan.steps.map(\.summary).joined(separator: "; "),
                    entity: plan.steps[0].entityName)
            }
            return
        }
        guard try needsWriting(plan(), record) else { return }
        // Foreign keys must be off while tables are rebuilt, and the pragma is a no-op inside
        // a transaction: so around it.
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        try connection.transaction {
            // Again under the write lock: another process may have migrated meanwhile.
            let record = try SchemaRecord.read(connection)
            let plan = try plan()
            guard try needsWriting(plan, record) else { return }
            for step in plan.steps {
                try apply(step)
            }
            try SchemaRecord(
                format: SchemaRecord.currentFormat, schemaVersion: max(record?.schemaVersion ?? 0, schemaVersion)
            ).write(connection)
            try checkForeignKeys()
        }
    }

    /// Whether the store must change, after checking that the model may change it; throws
    /// `migrationFailed`, naming what it would undo, when it may not.
    private func needsWriting(_ plan: Plan, _ record: SchemaRecord?) throws -> Bool {
        let storeVersion = record?.schemaVersion ?? 0
        try SchemaVersionRule.check(
            modelVersion: schemaVersion, storeVersion: storeVersion,
            changes: plan.steps.map { ($0.entityName, $0.summary) }, losses: plan.losses)
        return !plan.steps.isEmpty
            || record
                != SchemaRecord(
                    format: SchemaRecord.currentFormat, schemaVersion: max(storeVersion, schemaVersion))
    }

    // MARK: Planning

    /// One change to the store's schema.
    enum Step {
        case createTable(EntitySchema)
        case renameColumn(EntitySchema, from: String, to: ColumnSchema)
        case addColumn(EntitySchema, ColumnSchema)
        case rebuild(EntitySchema, existing: [ExistingColumn])
        case fillPerRow(EntitySchema, ColumnSchema)
        case createIndex(EntitySchema, IndexSchema)
        case dropIndex(EntitySchema, name: String)
        /// The full-text index and its triggers made, and filled from the table's rows.
        case createSearch(EntitySchema)
        /// The full-text index and its triggers dropped (the table keeps its rows).
        case dropSearch(EntitySchema)

        var entityName: String {
            switch self {
            case .createTable(let entity), .renameColumn(let entity, _, _), .addColumn(let entity, _),
                .rebuild(let entity, _), .fillPerRow(let entity, _), .createIndex(let entity, _),
                .dropIndex(let entity, _), .createSearch(let entity), .dropSearch(let entity):
                entity.name
            }
        }

        /// A step after which triggers written for the table's old shape may not hold.
        var reshapesTable: Bool {
            switch self {
            case .rebuild, .renameColumn: true
            default: false
            }
        }

        /// What the step does, for an error that refuses it.
        var summary: String {
            switch self {
            case .createTable(let entity): "make the table \(entity.name)"
            case .renameColumn(let entity, let from, let to): "rename \(entity.name).\(from) to \(to.name)"
            case .addColumn(let entity, let column): "add \(entity.name).\(column.name)"
            case .rebuild(let entity, _): "rebuild the table \(entity.name)"
            case .fillPerRow(let entity, let column): "fill \(entity.name).\(column.name) row by row"
            case .createIndex(let entity, let index): "make the index \(EntitySQL.indexName(index, of: entity))"
            case .dropIndex(_, let name): "drop the index \(name)"
            case .createSearch(let entity): "make the full-text index \(SearchSQL.tableName(of: entity.name))"
            case .dropSearch(let entity): "drop the full-text index \(SearchSQL.tableName(of: entity.name))"
            }
        }
    }

    struct ExistingColumn {
        let name: String
        let type: String
        let notNull: Bool
    }

    /// The steps that bring the store in line with the entities (none when it is), and what
    /// of the store's they would undo.
    struct Plan {
        var steps: [Step] = []
        var losses: [Loss] = []
    }

    /// A constraint of the store's that the model would drop.
    typealias Loss = SchemaVersionRule.Loss

    /// What the store needs to match the entities; empty when it already does.
    func plan() throws -> Plan {
        try checkSearchNames()
        var plan = Plan()
        for entity in entities {
            let columns = try existingColumns(of: entity.name)
            var steps: [Step] = []
            if columns.isEmpty {
                steps.append(.createTable(entity))
                steps += entity.indexes.map { .createIndex(entity, $0) }
            } else {
                var renames: [String: String] = [:]
                steps += try planTable(entity, from: columns, &plan.losses, &renames)
                steps += try planIndexes(of: entity, renames, &plan.losses)
            }
            plan.steps += try planSearch(of: entity, around: steps)
        }
        return plan
    }

    /// The entity's steps with its full-text index's around them. The index and its
    /// triggers are remade (and refilled) when they are not exactly what the entity wants,
    /// or when the table is rebuilt or a column renamed: dropped before, so that the old
    /// triggers are neither copied to the new table nor run by the copy, and made after,
    /// from the table's final rows. They are dropped when the entity has no `.searchable`
    /// attribute left.
    private func planSearch(of entity: EntitySchema, around steps: [Step]) throws -> [Step] {
        let wanted = SearchSQL(entity)?.create ?? []
        var found: [String: String] = [:]
        let names = SearchSQL.objectNames(of: entity.name)
        try connection.forEachRow(
            "SELECT name, sql FROM sqlite_master WHERE name IN (\(placeholders(names.count)))",
            names.map { .text($0) }
        ) { row in
            if case .text(let name) = row.column(0), case .text(let sql) = row.column(1) { found[name] = sql }
        }
        let current = names.compactMap { found[$0] } == wanted && !steps.contains(where: \.reshapesTable)
        if current { return steps }
        return (found.isEmpty ? [] : [.dropSearch(entity)]) + steps + (wanted.isEmpty ? [] : [.createSearch(entity)])
    }

    /// An entity's full-text index takes `<Entity>_search` and FTS5 the names of its shadow
    /// tables: no entity (nor join table) may have one of them. FTS5 keeps `rank` and `rowid`
    /// (in any case) for itself: no searchable column may take them.
    private func checkSearchNames() throws {
        let names = Set(entities.map(\.name))
        for entity in entities where !entity.searchableColumns.isEmpty {
            for position in entity.searchableColumns {
                let column = entity.columns[position].name
                guard ["rank", "rowid"].contains(column.lowercased()) else { continue }
                throw StashError(
                    .invalidModel,
                    "`\(column)` cannot be searchable: SQLite's full-text index keeps the name for itself",
                    entity: entity.name, attribute: column)
            }
            let taken = [SearchSQL.tableName(of: entity.name)] + SearchSQL.shadowTableNames(of: entity.name)
            if let name = taken.first(where: names.contains) {
                throw StashError(
                    .invalidModel,
                    "the table \(name) is the entity's full-text index (or part of it), and also an entity's name",
                    entity: entity.name)
            }
        }
    }

    private func planTable(
        _ entity: EntitySchema, from found: [ExistingColumn], _ losses: inout [Loss], _ renames: inout [String: String]
    ) throws -> [Step] {
        var columns = found
        guard columns.contains(where: { $0.name == "_pk" }) else {
            throw failure(entity, nil, "the table exists but has no `_pk` column: it was not made by Stash")
        }
        var steps: [Step] = []
        // Renames first: the renamed column is then an existing column like any other.
        for attribute in entity.columns {
            guard let original = attribute.originalName, !columns.contains(where: { $0.name == attribute.name }),
                let position = columns.firstIndex(where: { $0.name == original })
            else { continue }
            steps.append(.renameColumn(entity, from: original, to: attribute))
            renames[original] = attribute.name
            let old = columns[position]
            columns[position] = ExistingColumn(name: attribute.name, type: old.type, notNull: old.notNull)
        }
        let byName = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var needsRebuild = try readOnly == nil && !keyAutoincrements(entity.name)
        var added: [ColumnSchema] = []
        for attribute in entity.columns {
            guard let column = byName[attribute.name] else {
                added.append(attribute)
                if !attribute.isOptional { needsRebuild = true }
                continue
            }
            let wanted = EntitySQL.typeName(attribute.type)
            if column.type != wanted {
                throw failure(
                    entity, attribute, "the column is \(column.type) but the model's attribute needs \(wanted)")
            }
            if column.notNull == attribute.isOptional { needsRebuild = true }
            if column.notNull && attribute.isOptional {
                losses.append(
                    Loss(
                        entity: entity.name, attribute: attribute.name,
                        summary: "\(entity.name).\(attribute.name) would take NULL (it is optional in this model)"))
            }
        }
        let modelNames = Set(entity.columns.map(\.name))
        for column in columns where column.name != "_pk" && !modelNames.contains(column.name) && column.notNull {
            needsRebuild = true
            losses.append(
                Loss(
                    entity: entity.name, attribute: column.name,
                    summary: "\(entity.name).\(column.name) would take NULL (this model has no such attribute)"))
        }
        if let attribute = added.first(where: { !$0.hasDefault && $0.defaultMaker == nil }),
            try rowCount(of: entity) > 0
        {
            throw failure(
                entity, attribute,
                "a new required attribute needs a default (or to be optional): the table already has rows")
        }
        if needsRebuild {
            steps.append(.rebuild(entity, existing: columns))
        } else {
            steps += added.map { .addColumn(entity, $0) }
        }
        // A default made per object: every existing row gets its own.
        steps += added.filter { $0.defaultMaker != nil }.map { .fillPerRow(entity, $0) }
        // A list position column a rebuild does not make: existing rows have no place yet
        // (their lists keep row order).
        for name in entity.positionColumns where byName[name] == nil {
            steps.append(.addColumn(entity, ColumnSchema.listPosition(name)))
        }
        return steps
    }

    /// Stash's indexes on the table, by name, against the ones the entity wants. Dropping a
    /// unique index is a loss unless the entity wants one on the same columns (`renames`: the
    /// columns' names before this migration).
    private func planIndexes(of entity: EntitySchema, _ renames: [String: String], _ losses: inout [Loss]) throws
        -> [Step]
    {
        var existing = Set<String>()
        try connection.forEachRow(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND (name GLOB ? OR name GLOB ?)",
            [.text(entity.name), .text(entity.name + "_*_unique"), .text(entity.name + "_*_index")]
        ) { row in
            if case .text(let name) = row.column(0) { existing.insert(name) }
        }
        var steps: [Step] = []
        for index in entity.indexes where existing.remove(EntitySQL.indexName(index, of: entity)) == nil {
            steps.append(.createIndex(entity, index))
        }
        let wantedUniques = Set(
            entity.indexes.filter(\.isUnique).map { Set($0.columns.map { entity.columns[$0].name }) })
        for name in existing.sorted() {
            steps.append(.dropIndex(entity, name: name))
            guard name.hasSuffix("_unique") else { continue }
            var columns: [String] = []
            try connection.forEachRow("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]) { row in
                if case .text(let column) = row.column(0) { columns.append(renames[column] ?? column) }
            }
            guard !wantedUniques.contains(Set(columns)) else { continue }
            losses.append(
                Loss(
                    entity: entity.name, attribute: columns.first,
                    summary: "the unique index \(name) on \(entity.name) (\(columns.joined(separator: ", "))) "
                        + "would be dropped"))
        }
        return steps
    }

    /// Whether the table's `_pk` is `AUTOINCREMENT`, as Stash makes it now.
    private func keyAutoincrements(_ table: String) throws -> Bool {
        var sql = ""
        try connection.forEachRow("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) {
            if case .text(let text) = $0.column(0) { sql = text }
        }
        return sql.uppercased().contains("AUTOINCREMENT")
    }

    private func existingColumns(of table: String) throws -> [ExistingColumn] {
        var columns: [ExistingColumn] = []
        try connection.forEachRow("SELECT name, type, \"notnull\" FROM pragma_table_info(?)", [.text(table)]) { row in
            guard case .text(let name) = row.column(0), case .text(let type) = row.column(1) else { return }
            columns.append(ExistingColumn(name: name, type: type.uppercased(), notNull: row.int64(2) != 0))
        }
        return columns
    }

    // MARK: Applying

    private func apply(_ step: Step) throws {
        switch step {
        case .createTable(let entity):
            try connection.execute(EntitySQL(entity).createTable)
        case .renameColumn(let entity, let from, let to):
            try connection.execute(
                "ALTER TABLE \(quoted(entity.name)) RENAME COLUMN \(quoted(from)) TO \(quoted(to.name))")
        case .addColumn(let entity, let column):
            try connection.execute(
                "ALTER TABLE \(quoted(entity.name)) ADD COLUMN \(EntitySQL.columnDefinition(column))")
        case .rebuild(let entity, let existing):
            try rebuild(entity, existing: existing)
        case .fillPerRow(let entity, let column):
            try fillPerRow(entity, column)
        case .createIndex(let entity, let index):
            do {
                try connection.execute(EntitySQL.createIndex(index, of: entity))
            } catch let error as StashError where index.isUnique {
                let names = index.columns.map { entity.columns[$0].name }
                throw failure(
                    entity, entity.columns[index.columns[0]],
                    names.count == 1
                        ? "cannot make the attribute unique: \(error.message)"
                        : "cannot make (\(names.joined(separator: ", "))) unique together: \(error.message)")
            }
        case .dropIndex(_, let name):
            try connection.execute("DROP INDEX \(quoted(name))")
        case .createSearch(let entity):
            guard let search = SearchSQL(entity) else { return }
            for sql in search.create {
                try connection.execute(sql)
            }
            try connection.execute(search.rebuild)
        case .dropSearch(let entity):
            for sql in SearchSQL.drop(of: entity.name) {
                try connection.execute(sql)
            }
        }
    }

    /// SQLite's twelve-step table change (steps 4 to 8; the caller turned foreign keys off,
    /// began the transaction and checks foreign keys before committing): the table is made
    /// anew with the model's columns (and those it no longer has, kept nullable), every row
    /// is copied, filling new or newly required columns with the default bound as a
    /// parameter, the old table is dropped and the new one renamed; its indexes and
    /// triggers are made again.
    private func rebuild(_ entity: EntitySchema, existing columns: [ExistingColumn]) throws {
        let existing = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let modelNames = Set(entity.columns.map(\.name))
        let extra = columns.filter { $0.name != "_pk" && !modelNames.contains($0.name) }
        let schemaObjects = try dependentSchema(of: entity.name)
        let temporary = "new_" + entity.name
        let kept = extra.map { "\(quoted($0.name)) \($0.type)" }
        try connection.execute(EntitySQL.createTable(named: temporary, columns: entity.columns, extraColumns: kept))
        var targets = ["\"_pk\""]
        var sources = ["\"_pk\""]
        var parameters: [StoredValue] = []
        for column in entity.columns {
            targets.append(quoted(column.name))
            // A per-row default is filled afterwards; until then every row takes one made now.
            let defaultValue = try column.defaultValue ?? column.defaultMaker?.make()
            switch (existing[column.name] != nil, defaultValue) {
            case (true, let value?) where !column.isOptional:
                sources.append("coalesce(\(quoted(column.name)), ?)")
                parameters.append(value)
            case (true, _):
                sources.append(quoted(column.name))
            case (false, let value?):
                sources.append("?")
                parameters.append(value)
            case (false, nil):
                sources.append("NULL")
            }
        }
        for column in extra {
            targets.append(quoted(column.name))
            sources.append(quoted(column.name))
        }
        let copy =
            "INSERT INTO \(quoted(temporary)) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(quoted(entity.name))"
        do {
            try connection.statement(copy).run(parameters)
        } catch let error as StashError {
            throw failure(entity, nil, "cannot copy the rows into the new table: \(error.message)")
        }
        try connection.execute("DROP TABLE \(quoted(entity.name))")
        try connection.execute("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(entity.name))")
        for sql in schemaObjects {
            try connection.execute(sql)
        }
    }

    /// The SQL of the indexes and triggers on `table` (step 3: they go with the old table).
    private func dependentSchema(of table: String) throws -> [String] {
        var statements: [String] = []
        try connection.forEachRow(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
            [.text(table)]
        ) { row in
            if case .text(let sql) = row.column(0) { statements.append(sql) }
        }
        return statements
    }

    /// Gives every row its own value of a default made per object (`= UUID()`).
    private func fillPerRow(_ entity: EntitySchema, _ column: ColumnSchema) throws {
        guard let maker = column.defaultMaker else { return }
        var rowIDs: [Int64] = []
        try connection.forEachRow("SELECT \"_pk\" FROM \(quoted(entity.name))") { rowIDs.append($0.int64(0)) }
        let update = try connection.statement(
            "UPDATE \(quoted(entity.name)) SET \(quoted(column.name)) = ? WHERE \"_pk\" = ?")
        defer { update.reset() }
        for rowID in rowIDs {
            update.rewind()
            try update.bind(try maker.make(), at: 1)
            try update.bind(.integer(rowID), at: 2)
            while try update.step() {}
        }
    }

    /// Step 10: no row may point at a row that is not there.
    private func checkForeignKeys() throws {
        var violations: [String] = []
        try connection.forEachRow("PRAGMA foreign_key_check") { row in
            if case .text(let table) = row.column(0) { violations.append(table) }
        }
        if let table = violations.first {
            throw StashError(
                .migrationFailed,
                "rows of \(table) would point at rows that are not there (\(violations.count) in all)",
                entity: table)
        }
    }

    private func rowCount(of entity: EntitySchema) throws -> Int64 {
        try connection.integer(EntitySQL(entity).count)
    }

    private func failure(_ entity: EntitySchema, _ attribute: ColumnSchema?, _ message: String) -> StashError {
        StashError(.migrationFailed, message, entity: entity.name, attribute: attribute?.name)
    }
}
