/// The attribute values of one managed object, shared by the object and its wrappers.
///
/// Each `@Attribute` wrapper keeps a reference to this box and its slot in it, so reading a
/// property is an array load: no key path, no lookup. Wrappers fill a box as the object is
/// built (see `ConstructionFrame`); `ManagedObject.init` claims it (see `ObjectLayout`) and
/// becomes its `owner`.
@usableFromInline
final class ObjectStorage {
    /// Values by slot, which is the attribute's position in its entity. `nil` means never
    /// set (an optional attribute's `nil` is a boxed `Optional.none`, never confused with
    /// unset) or, for an object that stands for a stored row, not loaded yet.
    // Unchecked: the box is reached only through its object, from one isolation at a time;
    // with checks, reading every attribute of fetched objects costs 24% more instructions,
    // materializing them 20% more (stash-bench under callgrind, 5,000 records).
    @exclusivity(unchecked) @usableFromInline var values: ContiguousArray<Any?> = []
    /// Set while the object's context reports reads and writes to Observation
    /// (`ManagedObjectContext.observesObjects`). Unchecked for the reason `values` is: it is
    /// read on every property read.
    @exclusivity(unchecked) @usableFromInline var isObserved = false
    /// The object these values belong to, set when it claims the box. `unowned`: the box
    /// lives as long as its object, which holds it, and its wrappers, which live inside it.
    @usableFromInline unowned var owner: ManagedObject?
    /// The declarations of the attributes (options, JSON key, original name), recorded only
    /// while an entity is being described; `nil` otherwise.
    var declarations: [Int: AttributeDeclaration]?
    /// How many to-many relationship wrappers took an index in this box (they keep no value
    /// here; see `Relationship`).
    @usableFromInline var toManyCount = 0
    /// The to-many relationships' declarations by index, recorded like `declarations`.
    var toManyDeclarations: [Int: RelationshipDeclaration]?

    @usableFromInline init(capacity: Int) {
        values.reserveCapacity(capacity)
    }

    /// Appends a wrapper's initial value; returns its slot.
    @inlinable
    func append(_ value: Any?) -> Int {
        values.append(value)
        return values.count - 1
    }
}
