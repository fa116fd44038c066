/// Brings a store's tables in line with the models when a container opens it.
///
/// Everything happens in one transaction, so a change it cannot make (a new required
/// attribute with no default on a table that has rows, a changed column type, a new unique
/// attribute whose column holds duplicates) is an error that leaves the file untouched.
///
/// - A new entity gets its table and unique indexes.
/// - A new optional attribute is `ALTER TABLE … ADD COLUMN`.
/// - A new required attribute with a default, a column whose optionality changed, or a
///   column the model no longer has that is NOT NULL: the table is rebuilt (created anew,
///   rows copied with the default bound as a parameter, old table dropped, new renamed).
/// - A column the model no longer has is kept, with its data; it is never dropped.
/// - Unique indexes follow the model's `.unique` options.
struct SchemaMigrator {
    let connection: SQLiteConnection
    let entities: [EntitySchema]

    func migrate() throws {
        try connection.transaction {
            for entity in entities {
                let columns = try existingColumns(of: entity.name)
                if columns.isEmpty {
                    try connection.execute(EntitySQL(entity).createTable)
                } else {
                    try migrateTable(of: entity, from: columns)
                }
                try migrateUniqueIndexes(of: entity)
            }
        }
    }

    private struct Column {
        let name: String
        let type: String
        let notNull: Bool
    }

    private func existingColumns(of table: String) throws -> [Column] {
        var columns: [Column] = []
        try connection.forEachRow("SELECT name, type, \"notnull\" FROM pragma_table_info(?)", [.text(table)]) { row in
            guard case .text(let name) = row.column(0), case .text(let type) = row.column(1) else { return }
            columns.append(Column(name: name, type: type.uppercased(), notNull: row.int64(2) != 0))
        }
        return columns
    }

    private func migrateTable(of entity: EntitySchema, from columns: [Column]) throws {
        let byName = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard byName["_pk"] != nil else {
            throw failure(entity, nil, "the table exists but has no `_pk` column: it was not made by Stash")
        }
        var needsRebuild = false
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
        }
        let modelNames = Set(entity.columns.map(\.name))
        let extra = columns.filter { $0.name != "_pk" && !modelNames.contains($0.name) }
        if extra.contains(where: \.notNull) { needsRebuild = true }

        for attribute in added where !attribute.isOptional && !attribute.hasDefault {
            if try rowCount(of: entity) > 0 {
                throw failure(
                    entity, attribute,
                    "a new required attribute needs a default (or to be optional): the table already has rows")
            }
        }
        if needsRebuild {
            try rebuild(entity, existing: byName, extra: extra)
        } else {
            for attribute in added {
                try connection.execute(
                    "ALTER TABLE \(quoted(entity.name)) ADD COLUMN \(EntitySQL.columnDefinition(attribute))")
            }
        }
    }

    /// Makes the table anew with the model's columns (plus the columns it no longer has,
    /// kept as nullable) and copies every row, filling new or newly required columns with
    /// the attribute's default, bound as a parameter.
    private func rebuild(_ entity: EntitySchema, existing: [String: Column], extra: [Column]) throws {
        let temporary = entity.name + "_stash_rebuild"
        let kept = extra.map { "\(quoted($0.name)) \($0.type)" }
        try connection.execute(
            EntitySQL.createTable(named: temporary, columns: entity.columns, extraColumns: kept))
        var targets = ["\"_pk\""]
        var sources = ["\"_pk\""]
        var parameters: [StoredValue] = []
        for attribute in entity.columns {
            targets.append(quoted(attribute.name))
            let defaultValue = attribute.defaultValue
            switch (existing[attribute.name] != nil, defaultValue) {
            case (true, let value?) where !attribute.isOptional:
                sources.append("coalesce(\(quoted(attribute.name)), ?)")
                parameters.append(value)
            case (true, _):
                sources.append(quoted(attribute.name))
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
        } catch var error as StashError {
            error = failure(entity, nil, "cannot copy the rows into the new table: \(error.message)")
            throw error
        }
        try connection.execute("DROP TABLE \(quoted(entity.name))")
        try connection.execute("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(entity.name))")
    }

    private func migrateUniqueIndexes(of entity: EntitySchema) throws {
        var existing = Set<String>()
        try connection.forEachRow(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name GLOB ?",
            [.text(entity.name), .text(entity.name + "_*_unique")]
        ) { row in
            if case .text(let name) = row.column(0) { existing.insert(name) }
        }
        for attribute in entity.columns where attribute.isUnique {
            let name = EntitySQL.uniqueIndexName(table: entity.name, column: attribute.name)
            if existing.remove(name) == nil {
                do {
                    try connection.execute(EntitySQL.createUniqueIndex(table: entity.name, column: attribute.name))
                } catch let error as StashError {
                    throw failure(entity, attribute, "cannot make the attribute unique: \(error.message)")
                }
            }
        }
        for name in existing {
            try connection.execute("DROP INDEX \(quoted(name))")
        }
    }

    private func rowCount(of entity: EntitySchema) throws -> Int64 {
        try connection.integer(EntitySQL(entity).count)
    }

    private func failure(_ entity: EntitySchema, _ attribute: ColumnSchema?, _ message: String)
        -> StashError
    {
        StashError(.migrationFailed, message, entity: entity.name, attribute: attribute?.name)
    }
}
