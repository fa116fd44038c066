import Foundation

extension FetchDescriptor {
    /// The descriptor as a store query for `entity`: the predicate and the sort descriptors
    /// translated, the limit and offset as they are.
    func storeQuery(for entity: EntityDescription) throws -> StoreQuery {
        try storeQuery(FetchParts(self), for: entity)
    }

    /// `storeQuery(for:)`, with the descriptor's fields as its caller read them (`FetchParts`);
    /// sort descriptors, when there are any, are translated from the descriptor itself.
    /// The query is made once, from its translated parts: built up field by field, it was
    /// copied and destroyed twice more (about 1.9k instructions a look-up, most of them the
    /// schema's references retained and released).
    func storeQuery(_ parts: FetchParts, for entity: EntityDescription) throws -> StoreQuery {
        var predicate: QueryExpression?
        if let expression = parts.predicate, let input = parts.input {
            predicate = try PredicateTranslator.translate(expression, input: input, for: entity)
        }
        return try storeQuery(parts, predicate: predicate, for: entity)
    }

    /// `storeQuery(_:for:)` with the predicate translated already.
    func storeQuery(_ parts: FetchParts, predicate: QueryExpression?, for entity: EntityDescription) throws
        -> StoreQuery
    {
        let sort = parts.isSorted ? try sortBy.map { try Self.querySort($0, for: entity) } : []
        // A negative limit is no object, as the merge of unsaved changes counts it; SQLite
        // would read `LIMIT -1` as no limit.
        return StoreQuery(
            entity.schema, predicate: predicate, sort: sort, limit: parts.limit.map { max($0, 0) },
            offset: parts.offset.map { max($0, 0) })
    }

    /// One sort descriptor as a key of the store's order: its attribute, its direction, and
    /// how its values order (`.lexical` text through `STASH_LEXICAL`, decimals by value,
    /// other text by code point, which is Swift's `<` for text in one normalization form).
    /// `nil` sorts first, as Swift's optional comparison puts it; ties go by row id. A key
    /// path may go through to-one relationships (`\.writer?.name`).
    static func querySort(_ descriptor: SortDescriptor<T>, for entity: EntityDescription) throws -> QuerySort {
        guard let keyPath = descriptor.keyPath else {
            throw StashError(.unsupportedQuery, "a sort descriptor without a key path", entity: entity.name)
        }
        let (through, attribute) = try entity.path(for: keyPath)
        let ordering: QueryOrdering
        switch attribute.codec.queryKind {
        case .text where descriptor.stringComparator == .lexical:
            ordering = .lexical
        case .decimal:
            ordering = .decimal
        case .integer, .real, .float, .text, .date:
            ordering = .stored
        default:
            throw StashError(
                .unsupportedQuery,
                "sorting by a \(attribute.codec.typeName) (Swift orders enums by their declaration, not their raw value)",
                entity: entity.name, attribute: attribute.name)
        }
        // Through to-one relationships: the related row's value, by subquery, NULL (first)
        // where a relationship is nil, as Swift's optional chaining gives.
        var key = QueryExpression.column(attribute.index)
        for relationship in through.reversed() {
            key = .related(
                RelatedQuery(
                    target: relationship.target.schema, link: .toOne(foreignKey: .column(relationship.slot!)),
                    result: .value(key)))
        }
        return QuerySort(key: key, descending: descriptor.order == .reverse, ordering: ordering)
    }
}
