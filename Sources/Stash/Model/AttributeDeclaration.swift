/// What an `@Attribute` says about itself beyond its type: recorded once per entity, when
/// the entity is described, and never stored per object.
@usableFromInline
struct AttributeDeclaration: Sendable {
    var options: AttributeOptions
    /// The JSON key, when it is not the Swift name.
    var key: String?
    /// The column's name in an older version of the model, for a rename.
    var originalName: String?
    /// For a to-one relationship (a column too): what its `@Relationship` says.
    var relationship: RelationshipDeclaration?
    /// `@Attribute(normalized:)`: the form text values are kept in.
    var normalization: AttributeNormalization?

    @usableFromInline
    init(
        options: AttributeOptions = [], key: String? = nil, originalName: String? = nil,
        relationship: RelationshipDeclaration? = nil
    ) {
        self.options = options
        self.key = key
        self.originalName = originalName
        self.relationship = relationship
    }
}
