import Synchronization

/// The schema of one model class: its attributes, how to code them, and what a store
/// needs to keep them (`schema`).
///
/// Built once per class, the first time the class is used, from its field metadata
/// (`ObjectLayout`) and one blank instance, made while the thread's frame records each
/// wrapper's declaration. No reflection runs per object.
final class EntityDescription: Sendable {
    /// The class name, which is also the table name.
    let name: String
    let type: ManagedObject.Type
    /// Attributes by position, which is the slot of each object's value and the column's
    /// position: the order Swift initializes the properties in (a subclass's first, then
    /// its superclass's, each in declaration order).
    let attributes: [AttributeDescription]
    let uniqueAttributes: [AttributeDescription]
    /// The others, in order: what decoding walks after the unique values.
    let nonUniqueAttributes: [AttributeDescription]
    /// To-one relationships (columns, among `attributes`) and to-many ones (no column), in
    /// declaration order.
    let relationships: [RelationshipDescription]
    /// The to-many relationships by index (`RelationshipDescription.Kind.toMany`).
    let toManyRelationships: [RelationshipDescription]
    /// The to-one relationships by slot (`nil` at an attribute's slot): an array, not a
    /// dictionary, since every read of a relationship looks here (a hash cost about 140
    /// instructions a read in stash-bench's graph fetch). Read through `relationship(atSlot:)`.
    private let relationshipsBySlot: [RelationshipDescription?]
    /// The entity as a store sees it.
    let schema: EntitySchema

    /// Each entity's position in `entities`, by its class.
    static func positionsByType(_ entities: [EntityDescription]) -> [ObjectIdentifier: Int] {
        Dictionary(uniqueKeysWithValues: entities.enumerated().map { (ObjectIdentifier($1.type), $0) })
    }

    /// The to-one relationship at `slot`, if that slot holds one (a to-many relationship's
    /// probe slot, `-(index + 1)`, has none).
    func relationship(atSlot slot: Int) -> RelationshipDescription? {
        relationshipsBySlot.indices.contains(slot) ? relationshipsBySlot[slot] : nil
    }
    /// Whether its objects may move to another context (`DetachedObject`): no
    /// relationships, plain values only, and no stored properties but Stash's wrappers.
    let valuesTravel: Bool
    /// The slots of the attributes whose values the store keeps otherwise than given
    /// (floating-point numbers: NaN and -0.0; dates: to the millisecond), which an object
    /// handed to another context is checked for (`SlotAccess.roundTrip`).
    let storeAdjusted: [Int]
    /// Which attribute each key path used in a query names (see `attribute(for:)`).
    let keyPathSlots = Locked(KeyPathSlots())
    /// `compositeUniques()`, once resolved.
    let compositeUniqueColumns = Locked<[[Int]]?>(nil)
    /// One key path per attribute, by slot: what Observation is told was read or changed.
    let observationKeyPaths: [any KeyPath<ManagedObject, Any?> & Sendable]
    /// Per attribute, whether a fetch may read its column straight into the object's wrapper
    /// (`SlotAccess.read`): its codec reads the column as it is (`readsColumnAsIs`).
    let readsColumnDirectly: [Bool]

    init(type: ManagedObject.Type) throws {
        let name = String(describing: type)
        let layout = ObjectLayout.of(type)
        let frame = ConstructionFrame.current
        let wasDescribing = frame.isDescribing
        let outerDeclarations = (frame.declarations, frame.toManyDeclarations)
        frame.isDescribing = true
        entitiesBeingDescribed.add(1, ordering: .relaxed)
        let blank = type.init()
        entitiesBeingDescribed.subtract(1, ordering: .relaxed)
        frame.isDescribing = wasDescribing
        let described = frame.describedObjects.removeValue(forKey: ObjectIdentifier(blank))
        if !wasDescribing {
            frame.describedObjects = [:]
            (frame.declarations, frame.toManyDeclarations) = outerDeclarations
        }
        guard let described, described.fields.count == layout.count,
            described.toMany.count == layout.toManyFields.count
        else {
            throw StashError(.invalidModel, "its attribute wrappers did not all initialize", entity: name)
        }
        var attributes: [AttributeDescription] = []
        for (index, field) in layout.fields.enumerated() {
            let codec: any AttributeCodec
            do {
                codec = try field.wrapperType.makeCodec()
            } catch var error as StashError {
                error.entity = name
                error.attribute = field.name
                throw error
            }
            attributes.append(
                try inPlace(name) {
                    try AttributeDescription(
                        name: field.name, index: index, declaration: described.fields[index] ?? AttributeDeclaration(),
                        defaultValue: blank.value(atSlot: index), codec: codec)
                })
        }
        try inPlace(name) { try KeyStep.checkPaths(of: attributes) }
        var relationships: [RelationshipDescription] = []
        for attribute in attributes {
            guard let declaration = described.fields[attribute.index]?.relationship else { continue }
            relationships.append(
                try Self.relationship(
                    attribute.name, of: type, kind: .toOne(slot: attribute.index), declaration: declaration))
        }
        for (index, field) in layout.toManyFields.enumerated() {
            guard let declaration = described.toMany[index] else {
                throw StashError(
                    .invalidModel, "its relationship wrapper did not initialize", entity: name, attribute: field.name)
            }
            relationships.append(
                try Self.relationship(field.name, of: type, kind: .toMany(index: index), declaration: declaration))
        }
        if attributes.contains(where: { $0.name == "_pk" }) {
            throw StashError(.invalidModel, "`_pk` is the name of Stash's own key column", entity: name)
        }
        self.name = name
        self.type = type
        self.attributes = attributes
        self.relationships = relationships
        self.toManyRelationships = relationships.filter(\.isToMany)
        self.valuesTravel =
            relationships.isEmpty && attributes.allSatisfy { $0.codec.holdsPlainValues }
            && !layout.hasOtherStoredProperties
        self.storeAdjusted = attributes.compactMap { attribute in
            let kind = attribute.codec.queryKind
            return kind == .real || kind == .float || kind == .date ? attribute.index : nil
        }
        // A to-one relationship's slot is its column's, among the attributes.
        var bySlot = [RelationshipDescription?](repeating: nil, count: attributes.count)
        for relationship in relationships {
            if let slot = relationship.slot { bySlot[slot] = relationship }
        }
        self.relationshipsBySlot = bySlot
        self.uniqueAttributes = attributes.filter(\.isUnique)
        // Relationships are decoded on their own (see `ObjectDecoder+Relationships`).
        self.nonUniqueAttributes = attributes.filter { !$0.isUnique && !$0.isRelationship }
        self.readsColumnDirectly = attributes.map(\.codec.readsColumnAsIs)
        self.observationKeyPaths = attributes.map { attribute -> any KeyPath<ManagedObject, Any?> & Sendable in
            \ManagedObject.[observedSlot: attribute.index]
        }
        // A second blank instance tells a constant default from one made per object.
        let other = type.init()
        self.schema = EntitySchema(
            name: name,
            columns: attributes.map { attribute in
                let index = attribute.index
                guard let first = blank.value(atSlot: index), let second = other.value(atSlot: index),
                    (try? attribute.codec.storedValue(for: first)) != (try? attribute.codec.storedValue(for: second))
                else { return attribute.column(defaultMaker: nil) }
                let codec = attribute.codec
                return attribute.column(
                    defaultMaker: DefaultMaker {
                        guard let value = type.init().value(atSlot: index) else { return .null }
                        return try codec.storedValue(for: value)
                    })
            })
    }

    func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    private static func relationship(
        _ name: String, of type: ManagedObject.Type, kind: RelationshipDescription.Kind,
        declaration: RelationshipDeclaration
    ) throws -> RelationshipDescription {
        guard let targetType = declaration.targetType else {
            throw StashError(
                .invalidModel, "a relationship is to `Target?` (one) or `[Target]` (many) of a ManagedObject class",
                entity: String(describing: type), attribute: name)
        }
        return RelationshipDescription(
            name: name, entityType: type, kind: kind, declaration: declaration, targetType: targetType)
    }
}
