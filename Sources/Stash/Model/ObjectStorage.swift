/// The attribute values of one managed object, shared by the object and its wrappers.
///
/// Each `@Attribute` wrapper keeps a reference to this box and its slot in it, so reading
/// a property is an array load: no key path, no lookup. The box is made by the first
/// wrapper of an object being built (see `ConstructionFrame`) and handed to the object by
/// `ManagedObject.init`, which sets `owner`. It lives exactly as long as its object.
@usableFromInline
final class ObjectStorage {
    /// Values by slot; `nil` means "never set" (an optional attribute's `nil` is stored
    /// as a boxed `Optional.none`, so it is never confused with unset).
    @exclusivity(unchecked) @usableFromInline var values: ContiguousArray<Any?> = []
    /// The object these values belong to; set once, by `ManagedObject.init`. Not counted:
    /// the box lives exactly as long as its object (the object and its wrappers are its
    /// only holders), and `isOwned` guards against a box being handed out twice.
    @usableFromInline unowned(unsafe) var owner: ManagedObject?
    /// Set when an object takes the box.
    @usableFromInline var isOwned = false

    @usableFromInline init(capacity: Int) {
        values.reserveCapacity(capacity)
    }
}
