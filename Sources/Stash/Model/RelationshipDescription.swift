import Synchronization

/// One relationship of an entity as the schema sees it: its name, its kind and where the
/// object keeps it, its target, its delete rule, and (resolved on first use) its inverse.
final class RelationshipDescription: Sendable {
    enum Kind: Sendable, Equatable {
        /// A column: the relationship's slot among the object's values, the column's position.
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
    /// `targetType` as a `Decodable` type, if it is one: what a nested object is decoded as.
    /// Cast once here, not per decoded object (a conformance look-up, 360 instructions a
    /// nested author in the recipe's graph import).
    let decodableTargetType: (any (ManagedObject & Decodable).Type)?
    let deleteRule: DeleteRule
    /// The JSON key: `@Relationship(key:)`, or the Swift name.
    let codingKey: AttributeKey
    /// The keys the JSON may give it under, in the order they are tried, and whether each
    /// holds references: the key, its camel-case form, then `authorId`, `author_id` (`tagIds`,
    /// `tag_ids` for a to-many `tags`). Made once, not per decoded object.
    let jsonKeys: [(key: AttributeKey, isReference: Bool)]
    /// The inverse as declared on this side, if it is.
    let declaredInverse: SendableKeyPath?
    /// For a to-many relationship: whether its order is kept (`@Relationship(ordered:)`).
    let isOrdered: Bool
    /// For a to-many relationship: what a decoded list means (`@Relationship(decoding:)`).
    let decoding: ListDecoding
    private let resolvedInverse = Locked<Resolution?>(nil)
    private let resolvedJoin = Locked<JoinResolution?>(nil)
    /// `inverseListIndex`: `inverseListUnknown` until resolved, -1 for none.
    private let knownInverseListIndex = Atomic<Int>(RelationshipDescription.inverseListUnknown)
    /// Whether the last object decoded through a `KeyedDecodingContainer` had this to-one's own
    /// key (see `ownKeyHoldsValues`).
    private let ownKeyHeldValue = Atomic<Bool>(true)

    private enum JoinResolution {
        case none
        case table(JoinTable)
    }

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
        self.decodableTargetType = targetType as? any (ManagedObject & Decodable).Type
        self.deleteRule = declaration.deleteRule
        self.codingKey = AttributeKey(declaration.key ?? name)
        var keys = [(codingKey, false)]
        let key = codingKey.stringValue
        let converted = convertFromSnakeCase(key)
        if converted != key { keys.append((AttributeKey(converted), false)) }
        let stem = declaration.isToMany && key.hasSuffix("s") && key.count > 1 ? String(key.dropLast()) : key
        let suffix = declaration.isToMany ? "Ids" : "Id"
        keys.append((AttributeKey(stem + suffix), true))
        keys.append((AttributeKey(stem + "_" + suffix.lowercased()), true))
        self.jsonKeys = keys
        self.declaredInverse = declaration.inverse
        self.isOrdered = declaration.ordered
        self.decoding = declaration.decoding
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

    /// For a to-one relationship, the index of its inverse among the target's to-many
    /// relationships, if the inverse is one.
    /// Kept once known (-1: none), without the lock `inverse()` takes: every read of a to-one
    /// target from its row asks it, and the lock cost about 215 instructions a read
    /// (stash-bench's graph fetch, callgrind).
    var inverseListIndex: Int? {
        let known = knownInverseListIndex.load(ordering: .relaxed)
        if known != Self.inverseListUnknown { return known < 0 ? nil : known }
        // An inverse that fails to resolve is not kept: the next read asks again, as before.
        let inverse: RelationshipDescription?
        do { inverse = try self.inverse() } catch { return nil }
        var index = -1
        if let inverse, case .toMany(let listIndex) = inverse.kind { index = listIndex }
        knownInverseListIndex.store(index, ordering: .relaxed)
        return index < 0 ? nil : index
    }
    private static let inverseListUnknown = -2

    /// A hint, shared by every context, that objects give this to-one its value under its own
    /// key (`"author"`, not `"authorId"`): a decode then takes the value's decoder without
    /// asking the container whether the key is there (`ObjectDecoder.ownKeyTarget`). A wrong
    /// hint costs only time: a payload that names the target another way makes it `false`.
    var ownKeyHoldsValues: Bool { ownKeyHeldValue.load(ordering: .relaxed) }

    /// Records the key the last decoded object gave the value under (`nil`: none was found
    /// without asking). Written only when the hint changes, so that contexts decoding on
    /// several threads do not write the same line for nothing.
    func noteValue(under key: AttributeKey?) {
        let held = key?.stringValue == codingKey.stringValue
        if ownKeyHeldValue.load(ordering: .relaxed) != held { ownKeyHeldValue.store(held, ordering: .relaxed) }
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

    /// For a to-one relationship whose inverse is an ordered to-many list kept in this column
    /// (one to many), the column beside it that keeps the object's place in that list:
    /// `post_position` beside `post`. The payload's order comes back after a reopen.
    func positionColumn() throws -> String? {
        guard !isToMany, let inverse = try inverse(), inverse.isToMany, inverse.isOrdered else { return nil }
        return name + "_position"
    }

    /// Whether a member this one-to-many list drops is deleted rather than let go: the list
    /// replaces (`ListDecoding.replace`) and the member's identity holds the inverse to-one
    /// (a composite unique constraint with it), so once let go it could never be found again.
    func deletesDroppedMembers() -> Bool {
        guard isToMany, decoding == .replace, let inverse = try? inverse(), let slot = inverse.slot,
            let constraints = try? inverse.entity.compositeUniques()
        else { return false }
        return constraints.contains { $0.contains(slot) }
    }

    /// The entity that has the relationship.
    var entity: EntityDescription {
        // `try!`: the container described every entity when it was created.
        try! EntityRegistry.shared.entity(for: entityType)
    }

    // MARK: Join tables

    /// The join table that holds a many-to-many relationship (a to-many whose inverse is a
    /// to-many, or a to-many with no inverse); `nil` for one whose inverse to-one column
    /// holds it.
    ///
    /// Named after the entity and relationship of its owning side (of the pair, the one whose
    /// entity and name sort first): `Issue_labels`, with a column named after that entity
    /// (`Issue`), one named after the relationship (`labels`), each referencing a `_pk` and
    /// dropped with it (`ON DELETE CASCADE`), and `position`, the related object's place in
    /// the owning side's list.
    func joinTable() throws -> JoinTable? {
        if let resolution = resolvedJoin.withLock({ $0 }) {
            if case .table(let table) = resolution { return table }
            return nil
        }
        let table = try resolveJoinTable()
        resolvedJoin.withLock { $0 = table.map(JoinResolution.table) ?? JoinResolution.none }
        return table
    }

    private func resolveJoinTable() throws -> JoinTable? {
        guard isToMany else { return nil }
        let inverse = try inverse()
        if let inverse, !inverse.isToMany { return nil }
        var owner: RelationshipDescription = self
        if let inverse, (inverse.entityName, inverse.name) < (entityName, name) { owner = inverse }
        let ownerColumn = ColumnSchema(
            name: owner.entityName, type: .integer, isOptional: false, isUnique: false, isIndexed: true,
            defaultValue: nil, references: owner.entityName, cascades: true)
        let targetColumn = ColumnSchema(
            name: owner.name, type: .integer, isOptional: false, isUnique: false, isIndexed: true, defaultValue: nil,
            references: owner.targetName, cascades: true)
        let position = ColumnSchema(
            name: "position", type: .integer, isOptional: false, isUnique: false, isIndexed: false,
            defaultValue: .integer(0))
        let schema = EntitySchema(
            name: "\(owner.entityName)_\(owner.name)", columns: [ownerColumn, targetColumn, position])
        return JoinTable(schema: schema, isOwner: owner === self)
    }
}

/// Where a many-to-many relationship's pairs are kept (see
/// `RelationshipDescription.joinTable()`), as one side of it sees the table.
struct JoinTable: Sendable {
    let schema: EntitySchema
    /// Whether the relationship is the owning side: its object's key is in the first column,
    /// and its list's order in `position`.
    let isOwner: Bool

    static let ownerColumn = 0
    static let targetColumn = 1
    static let positionColumn = 2

    /// The column that holds this side's object's key, and the one that holds the related
    /// object's.
    var ownColumn: Int { isOwner ? Self.ownerColumn : Self.targetColumn }
    var relatedColumn: Int { isOwner ? Self.targetColumn : Self.ownerColumn }
}
