extension EntityDescription {
    /// The schema with the model's compound indexes: their key paths resolved to columns.
    func storeSchema() throws -> EntitySchema {
        guard let indexed = type as? any IndexedModel.Type else { return schema }
        var schema = self.schema
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
