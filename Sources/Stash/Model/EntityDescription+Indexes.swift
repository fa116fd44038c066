extension EntityDescription {
    /// The schema a store keeps: with the list position columns of one-to-many
    /// relationships and the model's compound indexes (key paths resolved to columns).
    func storeSchema() throws -> EntitySchema {
        var schema = self.schema
        for relationship in relationships {
            guard let column = try relationship.positionColumn() else { continue }
            if attribute(named: column) != nil {
                throw StashError(
                    .invalidModel, "`\(column)` is the name of the column that keeps its place in the inverse list",
                    entity: name, attribute: relationship.name)
            }
            schema.positionColumns.append(column)
        }
        schema.uniqueCompounds = try compositeUniques()
        guard let indexed = type as? any IndexedModel.Type else { return schema }
        for keyPaths in declaredIndexes(of: indexed) {
            let columns = try keyPaths.map { try attribute(for: $0).index }
            guard columns.count >= 2, Set(columns).count == columns.count else {
                throw StashError(
                    .invalidModel,
                    "a compound index needs two or more different attributes (one attribute: @Attribute(.indexed))",
                    entity: name)
            }
            if !schema.compoundIndexes.contains(columns) { schema.compoundIndexes.append(columns) }
        }
        return schema
    }
}

private func declaredIndexes<Model: IndexedModel>(of type: Model.Type) -> [[AnyKeyPath]] {
    Model.indexes.map { $0.map { $0 as AnyKeyPath } }
}

extension EntityDescription {
    /// The columns of each composite unique constraint (`CompositeUniqueModel`), resolved
    /// once: attributes and to-one relationships, two or more different ones each.
    func compositeUniques() throws -> [[Int]] {
        if let resolved = compositeUniqueColumns.withLock({ $0 }) { return resolved }
        var constraints: [[Int]] = []
        if let constrained = type as? any CompositeUniqueModel.Type {
            for keyPaths in declaredUniqueConstraints(of: constrained) {
                let columns = try keyPaths.map { try attribute(for: $0).index }
                guard columns.count >= 2, Set(columns).count == columns.count else {
                    throw StashError(
                        .invalidModel,
                        "a composite unique constraint needs two or more different attributes (one: @Attribute(.unique))",
                        entity: name)
                }
                if !constraints.contains(columns) { constraints.append(columns) }
            }
        }
        compositeUniqueColumns.withLock { $0 = constraints }
        return constraints
    }
}
