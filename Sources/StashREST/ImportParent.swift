import Foundation
import Stash

/// The object a fetched list's items belong to (`fetch(_:from:into:parent:via:)`): in the
/// import's background context each decoded item takes it before unique matching, and a
/// sync deletes only its children.
struct ImportParent: Sendable {
    let objectID: ObjectID
    /// Names the parent and the relationship its children hold it by (`Headline.feed`), for
    /// the records conditional GET keeps per page: an answer kept for one parent's children
    /// stands for no other's, nor for the same parent's children through another relationship.
    let key: String
    /// Runs `body`, a decode into `context`, with the items taking the parent.
    let decodingAsChildren: @Sendable (ManagedObjectContext, () throws -> Void) throws -> Void
    /// Whether `object` is one of the parent's children.
    let isChild: @Sendable (ManagedObject) -> Bool

    init<Child: ManagedObject, Parent: ManagedObject>(
        _ parent: Parent, via relationship: ReferenceWritableKeyPath<Child, Parent?> & Sendable, url: URL
    ) throws {
        guard parent.objectID.rowID != nil, !parent.isDeleted else {
            throw RESTError(
                .invalidRequest,
                "the parent \(parent.objectID) has no row yet: save it before fetching its children", url: url)
        }
        let objectID = parent.objectID
        self.objectID = objectID
        key = "\(objectID) \(Child.self).\(try Child.relationshipName(for: relationship))"
        decodingAsChildren = { context, body in
            guard let own = try context.existingObject(with: objectID) as? Parent else {
                throw RESTError(.invalidRequest, "the parent \(objectID) is not a \(Parent.self)", url: url)
            }
            try context.decoding(asChildrenOf: own, via: relationship, body)
        }
        isChild = { object in (object as? Child)?[keyPath: relationship]?.objectID == objectID }
    }
}
