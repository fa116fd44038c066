import Synchronization

/// A relationship of a `ManagedObject`: to one object (`Author?`) or to many (`[Comment]`).
///
/// ```swift
/// final class Author: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Relationship(deleteRule: .cascade, inverse: \Article.author) var articles: [Article]
/// }
/// final class Article: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Relationship var author: Author?
/// }
/// ```
///
/// A to-one relationship is a column of its entity's table, named after it, that holds the
/// target's `_pk` (`REFERENCES "Author" ("_pk")`); a to-many relationship whose inverse is a
/// to-one reads that column from the other side. Setting either side sets the other in
/// memory at once; `save()` writes the column. A related object is loaded when first read,
/// never with the object that names it.
///
/// Like `@Attribute`, the wrapper keeps a to-one relationship's target inside the object
/// (`target`, `nil` while unset or not loaded) at its slot (its column's position); a to-many
/// one is kept by its object (`ManagedObject.toManyLists`), at the index `ObjectLayout` gives
/// the wrapper.
@propertyWrapper
public struct Relationship<Value> {
    // The slot comes first: `ObjectLayout` writes it in place (see `WrapperHeader`). To-one:
    // the column's position; to-many: the relationship's index among the entity's to-many ones.
    @usableFromInline var slot: Int
    /// A to-one relationship's target: none, a row not loaded as an object yet, or the
    /// object; `nil` while unset or not loaded. Always `nil` for a to-many relationship.
    @usableFromInline var target: RelationshipTarget?

    /// A relationship with the default delete rule (`.nullify`) and no declared inverse:
    /// `@Relationship var author: Author?`.
    ///
    /// Inlinable, as `Attribute`'s initializers are: an object made for each fetched row
    /// initializes every wrapper, and the call into the declaring initializer, with its
    /// arguments and `Value`'s metadata, cost about 55 instructions a to-one relationship
    /// (stash-bench's graph fetch under callgrind). Only an entity being described declares.
    @inlinable
    public init() {
        slot = -1
        target = nil
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0 {
            self = Self(declaring: .nullify, inverse: nil, key: nil)
        }
    }

    @usableFromInline
    init(
        declaring deleteRule: DeleteRule, inverse: AnyKeyPath?, key: String?, ordered: Bool = true,
        decoding: ListDecoding = .replace
    ) {
        slot = -1
        target = nil
        guard entitiesBeingDescribed.load(ordering: .relaxed) != 0 else { return }
        let frame = ConstructionFrame.current
        guard frame.isDescribing else { return }
        let declaration = RelationshipDeclaration(
            valueType: Value.self, deleteRule: deleteRule, inverse: inverse.map(SendableKeyPath.init), key: key,
            ordered: ordered, decoding: decoding)
        if _isOptional(Value.self) {
            slot = frame.declare(AttributeDeclaration(key: key, relationship: declaration))
        } else {
            slot = frame.declare(toMany: declaration)
        }
    }

    @available(*, unavailable, message: "@Relationship is only for the properties of a ManagedObject subclass")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Reads and writes go through the object, which finds, loads and keeps related objects
    /// and keeps inverses in step.
    ///
    /// Inlinable so that, in the model's module, the read of the wrapper through
    /// `storageKeyPath` (a key path literal) folds into a plain field load: through the
    /// runtime (`swift_readAtKeyPath`) it cost 850 instructions a read (stash-bench's graph
    /// fetch under callgrind).
    @inlinable
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance owner: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Value {
        // Always inlined, as `Attribute`'s is: inlined later by the optimizer's choice, the read
        // kept the runtime's exclusivity check on the wrapper's storage and asked at run time
        // whether `Value` is an `Optional` (about 120 instructions a read of `essay.author`,
        // stash-bench's graph fetch under callgrind).
        @inline(__always) get {
            let slot = owner[keyPath: storageKeyPath].slot
            #if DEBUG
                owner.resolved.checkRead(atSlot: slot, toMany: !_isOptional(Value.self))
            #endif
            if _isOptional(Value.self) {
                // Unchecked: `Value` is `Target?`, one reference as `ManagedObject?` is, and the
                // slot only ever holds objects of the target's class (set through
                // `setTarget`, which checks, or loaded from its table); `as!` made reading a
                // related object cost 1,600 more instructions (stash-bench graph fetch).
                return unsafeBitCast(owner.toOneTarget(atSlot: slot), to: Value.self)
            }
            return owner.toManyObjects(at: slot, as: Value.self)
        }
        @inline(__always) set {
            let slot = owner[keyPath: storageKeyPath].slot
            if _isOptional(Value.self) {
                owner.setToOneTarget(newValue as! ManagedObject?, atSlot: slot)
            } else {
                owner.setToManyObjects((newValue as! [ManagedObject]), at: slot)
            }
        }
    }
}

extension Relationship where Value: ToOneRelationship {
    /// A to-one relationship.
    ///
    /// - Parameters:
    ///   - deleteRule: what deleting this object does to the target (`.nullify`: nothing but
    ///     the inverse; `.cascade`: deletes it; `.deny`: nothing, and the save fails while
    ///     there is a target; `.noAction`).
    ///   - inverse: the target's relationship back to this object, kept in step in memory.
    ///   - key: the JSON key, when it is not the Swift name.
    @inlinable
    public init(deleteRule: DeleteRule = .nullify, inverse: PartialKeyPath<Value.Target>? = nil, key: String? = nil) {
        slot = -1
        target = nil
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0 {
            self = Self(declaring: deleteRule, inverse: inverse, key: key)
        }
    }
}

extension Relationship where Value: ToManyRelationship {
    /// A to-many relationship, in the order its objects were set, decoded or added; the order
    /// comes back after a reopen.
    ///
    /// - Parameters:
    ///   - deleteRule: what deleting this object does to its related objects (`.nullify`:
    ///     their inverse becomes nil; `.cascade`: deletes them; `.deny`: the save fails while
    ///     there are any; `.noAction`).
    ///   - inverse: the to-one relationship of the related objects that points back here.
    ///   - key: the JSON key, when it is not the Swift name.
    ///   - ordered: `false` for a one-to-many list whose order does not matter: no place
    ///     column, no place written, and the list reads in the order the rows were stored
    ///     (cheaper to import and to read; see the README). A many-to-many list keeps its
    ///     order in its join table either way.
    ///   - decoding: what a list decoded from JSON means (`ListDecoding`): `.replace`, the
    ///     default, makes it the list; `.merge` adds and updates members and removes none
    ///     (a feed's window, a page of children).
    @inlinable
    public init(
        deleteRule: DeleteRule = .nullify, inverse: PartialKeyPath<Value.Target>? = nil, key: String? = nil,
        ordered: Bool = true, decoding: ListDecoding = .replace
    ) {
        slot = -1
        target = nil
        if entitiesBeingDescribed.load(ordering: .relaxed) != 0 {
            self = Self(declaring: deleteRule, inverse: inverse, key: key, ordered: ordered, decoding: decoding)
        }
    }
}

/// `Target?`: the value of a to-one relationship.
public protocol ToOneRelationship {
    associatedtype Target: ManagedObject
}

extension Optional: ToOneRelationship where Wrapped: ManagedObject {
    public typealias Target = Wrapped
}

/// `[Target]`: the value of a to-many relationship.
public protocol ToManyRelationship {
    associatedtype Target: ManagedObject
}

extension ToOneRelationship {
    /// `Target`, for code that has only the value's type as an existential.
    static var targetClass: ManagedObject.Type { Target.self }
}

extension ToManyRelationship {
    /// `Target`, for code that has only the value's type as an existential.
    static var targetClass: ManagedObject.Type { Target.self }
}

extension Array: ToManyRelationship where Element: ManagedObject {
    public typealias Target = Element
}

/// What deleting an object does to the objects a relationship relates it to.
public enum DeleteRule: Sendable {
    /// The related objects stay; their inverse relationship no longer names the deleted one.
    case nullify
    /// The related objects are deleted too, and theirs in turn by their own rules.
    case cascade
    /// The save fails, naming the object and the relationship, while any are related.
    case deny
    /// Nothing is done: a related row still pointing at the deleted one fails the save
    /// (the store's foreign keys hold).
    case noAction
}
