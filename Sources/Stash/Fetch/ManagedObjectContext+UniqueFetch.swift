import Foundation

extension ManagedObjectContext {
    /// The object whose unique attribute at `keyPath` holds `value`, or `nil` if none: what
    /// `fetch(FetchDescriptor(predicate: #Predicate { $0.id == value })).first` answers, this
    /// context's unsaved changes included, without a predicate to build and translate.
    ///
    /// ```swift
    /// let article = try context.fetch(Article.self, unique: \.id, 42)
    /// ```
    ///
    /// The attribute must be unique on its own (`@Attribute(.unique)`): for any other, one
    /// value may name several objects, and the look-up is an `unsupportedQuery` error that says
    /// to fetch with a predicate. A predicate built and translated for each look-up was about
    /// a fifth of one (stash-bench's look-ups, callgrind).
    public func fetch<T: ManagedObject, Value: Equatable & Codable & Sendable>(
        _ type: T.Type, unique keyPath: any KeyPath<T, Value> & Sendable, _ value: Value
    ) throws -> T? {
        try entering {
            try throwPendingLoadError()
            let state = try identity.state(forType: T.self)
            let entity = state.entity
            guard case .attribute(let attribute) = try entity.member(for: keyPath), attribute.isUnique else {
                throw StashError(
                    .unsupportedQuery,
                    "the key path \(keyPath) names no attribute declared `.unique`: fetch it with a predicate",
                    entity: entity.name)
            }
            // The store answers alone when the entity has no unsaved changes and the equality
            // is one the store compares as Swift does; otherwise the predicate's fetch does.
            guard let stored = Self.storedKey(value, of: attribute, for: entity), pendingObjects(in: state).isEmpty
            else {
                let predicate = Predicate<T> { object in
                    PredicateExpressions.build_Equal(
                        lhs: PredicateExpressions.build_KeyPath(root: object, keyPath: keyPath),
                        rhs: PredicateExpressions.build_Arg(value))
                }
                return try fetch(FetchDescriptor(predicate: predicate)).first
            }
            // As `fetchStored` reads a query's rows, into one object at most: no array for it,
            // and no query (the store's look-up by one value).
            var found: ManagedObject?
            let counted = container.externalCommitsCounted
            try container.store.fetch(entity.schema, whereColumn: attribute.index, equals: stored) { token in
                lookForExternalCommits(at: token, countedBefore: counted)
            } _: { row in
                let object = try materialize(row, in: state)
                if found == nil { found = object }
            }
            // Every object of T's entity state is a T (see `fetch(_:_:)`).
            return found.map { unsafeDowncast($0, to: T.self) }
        }
    }

    /// `value` as the predicate's translation stores it (`PredicateTranslator.keyEqualityValue`),
    /// `nil` where its walk must answer. An `Int` or a `String`, most keys, is taken as it is:
    /// cast from `Any`, as the translation takes a captured value, it cost about 400
    /// instructions a look-up (stash-bench, callgrind).
    private static func storedKey<Value>(
        _ value: Value, of attribute: AttributeDescription, for entity: EntityDescription
    ) -> StoredValue? {
        guard PredicateTranslator.isKeyEqualityAttribute(attribute, of: entity) else { return nil }
        // The same type, so the value is one as it is.
        if Value.self == Int.self {
            return .integer(
                Int64(withUnsafePointer(to: value) { $0.withMemoryRebound(to: Int.self, capacity: 1) { $0.pointee } }))
        }
        if Value.self == String.self {
            return .text(
                withUnsafePointer(to: value) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.pointee } })
        }
        return PredicateTranslator.keyEqualityValue(of: attribute, to: value, for: entity)
    }
}
