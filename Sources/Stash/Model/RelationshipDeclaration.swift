/// What a `@Relationship` says about itself: recorded once per entity, when the entity is
/// described, and never stored per object.
@usableFromInline
struct RelationshipDeclaration: Sendable {
    /// `Target?` or `[Target]`.
    let valueType: Any.Type
    let deleteRule: DeleteRule
    /// The target's relationship back, as declared.
    let inverse: SendableKeyPath?
    /// The JSON key, when it is not the Swift name.
    let key: String?
    /// For a to-many relationship: whether its order is kept.
    var ordered = true
    /// For a to-many relationship: what a decoded list means for the stored one.
    var decoding = ListDecoding.replace

    var isToMany: Bool { !_isOptional(valueType) }

    /// The related class: `Target` of `Target?` or `[Target]`.
    var targetType: ManagedObject.Type? {
        if let toOne = valueType as? any ToOneRelationship.Type { return toOne.targetClass }
        if let toMany = valueType as? any ToManyRelationship.Type { return toMany.targetClass }
        return nil
    }
}

/// A key path, which is an immutable value, as `Sendable`.
// Unchecked: the standard library does not mark `AnyKeyPath` Sendable, but a key path never
// changes once made.
@usableFromInline struct SendableKeyPath: @unchecked Sendable {
    let keyPath: AnyKeyPath
}
