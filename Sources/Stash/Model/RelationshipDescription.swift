/// One relationship of an entity as the schema sees it: its name, its kind and where the
/// object keeps it, its target, its delete rule, and (resolved on first use) its inverse.
final class RelationshipDescription: Sendable {
    enum Kind: Sendable, Equatable {
        /// A column: the slot of the object's value box, the column's position.
        case toOne(slot: Int)
        /// No column of its own: the index among the entity's to-many relationships.
        case toMany(index: Int)
    }

    let name: String
    /// The entity that has the relationship.
    let entityName: String
    let entityType: ManagedObject.Type
    let kind: Kind
    let targetType: ManagedObject.Type
    let deleteRule: DeleteRule
    /// The JSON key: `@Relationship(key:)`, or the Swift name.
    let codingKey: AttributeKey
    /// The inverse as declared on this side, if it is.
    let declaredInverse: SendableKeyPath?
    private let resolvedInverse = Locked<Resolution?>(nil)

    private enum Resolution {
        case none
        case inverse(RelationshipDescription)
    }

    init(
        name: String, entityType: ManagedObject.Type, kind: Kind, declaration: RelationshipDeclaration,
        targetType: ManagedObject.Type
    ) {
        self.name = name
        self.entityName = String(describing: entityType)
        self.entityType = entityType
        self.kind = kind
        self.targetType = targetType
        self.deleteRule = declaration.deleteRule
        self.codingKey = AttributeKey(declaration.key ?? name)
        self.declaredInverse = declaration.inverse
    }

    var isToMany: Bool {
        if case .toMany = kind { return true }
        return false
    }

    var slot: Int? {
        if case .toOne(let slot) = kind { return slot }
        return nil
    }

    var targetName: String { String(describing: targetType) }

    var target: EntityDescription {
        // `try!`: the container described every target when it was created.
        try! EntityRegistry.shared.entity(for: targetType)
    }

    /// The target's relationship back to this one: declared on either side, or none.
    func inverse() throws -> RelationshipDescription? {
        if let resolution = resolvedInverse.withLock({ $0 }) {
            if case .inverse(let inverse) = resolution { return inverse }
            return nil
        }
        let inverse = try resolveInverse()
        resolvedInverse.withLock { $0 = inverse.map(Resolution.inverse) ?? Resolution.none }
        return inverse
    }

    private func resolveInverse() throws -> RelationshipDescription? {
        let target = try EntityRegistry.shared.entity(for: targetType)
        if let declaredInverse {
            let inverse = try target.relationship(for: declaredInverse.keyPath)
            guard inverse.targetName == entityName else {
                throw StashError(
                    .invalidModel,
                    "its inverse \(target.name).\(inverse.name) relates to \(inverse.targetName), not \(entityName)",
                    entity: entityName, attribute: name)
            }
            return inverse
        }
        // Declared on the other side.
        let source = try EntityRegistry.shared.entity(for: entityType)
        for candidate in target.relationships where candidate.targetName == entityName {
            guard let keyPath = candidate.declaredInverse?.keyPath,
                let named = try? source.relationship(for: keyPath), named === self
            else { continue }
            return candidate
        }
        return nil
    }
}
