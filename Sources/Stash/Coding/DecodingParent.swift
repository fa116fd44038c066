/// The object a decode's children belong to (`decode(_:from:using:parent:via:)`): every
/// object of `entity` decoded meanwhile takes `parent` as its to-one at `slot`, before it is
/// matched by its unique values, so a composite key that holds the parent (`[\.feed, \.guid]`)
/// finds the stored child.
struct DecodingParent {
    let entity: EntityDescription
    let relationship: RelationshipDescription
    let parent: ManagedObject
}
