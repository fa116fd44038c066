import Foundation

/// What a to-one relationship's slot holds once set or loaded.
@usableFromInline
enum RelationshipTarget {
    /// No related object: a NULL column.
    case none
    /// The related row, not loaded yet: the column's value.
    case row(Int64)
    /// The related object, loaded or set.
    case object(ManagedObject)

    /// The target a value as the context passes values names: a `RelationshipTarget`, or an
    /// object; `nil` (unset) and anything else name none. A target is read in place (see
    /// `unboxed`): the runtime's cast cost about 300 instructions a related object kept
    /// (stash-bench's graph fetch).
    init(slotValue: Any?) {
        // Read in the `Any?` as it came: unwrapped first, it was copied through its type's
        // witnesses (156 instructions, twice an essay of stash-bench's graph import).
        let inline: RelationshipTarget? = withUnsafePointer(to: slotValue) { pointer in
            inlineValue(in: UnsafeRawPointer(pointer), as: RelationshipTarget.self)
        }
        if let inline {
            self = inline
            return
        }
        guard let value = slotValue else {
            self = .none
            return
        }
        if let target = value as? RelationshipTarget {
            self = target
        } else if let object = value as? ManagedObject {
            self = .object(object)
        } else {
            self = .none
        }
    }

    /// The target kept at `slot` of `object`; `.none` if the slot is not a to-one
    /// relationship's in the object's class (a subclass numbers its slots its own way).
    @inline(__always)
    init(of object: ManagedObject, atSlot slot: Int) {
        let layout = object.layout
        guard layout.isToOne(atSlot: slot) else {
            self = .none
            return
        }
        self = ToOneSlot.target(at: layout.wrapper(atSlot: slot, of: object)) ?? .none
    }

    /// The related row, if it is known: a new object has none before it is saved.
    var rowID: Int64? {
        switch self {
        case .none: nil
        case .row(let rowID): rowID
        case .object(let object): object.resolved.rowID
        }
    }
}

/// The column of a to-one relationship: the target's `_pk`, NULL for none.
///
/// Decoding and encoding are the context's (see `ObjectGraph` and `ObjectDecoder+Relationships`): a
/// related object arrives nested or as a reference to its unique value.
struct RelationshipCodec<Target: ManagedObject>: AttributeCodec {
    var storedType: StoredType { .integer }
    /// A fetch reads the column straight into the slot (`ToOneSlot.readTarget`), as `read` does.
    var readsColumnAsIs: Bool { true }
    var isOptional: Bool { true }
    var nilValue: Any { RelationshipTarget.none }
    var typeName: String { "\(Target.self)?" }
    var valueType: Any.Type { Target?.self }
    var queryKind: QueryKind { .other }

    /// Never called: decoding walks only `nonUniqueAttributes` and unique attributes, and a
    /// relationship is neither; the context decodes relationships (`decodeRelationships`).
    func decode(from container: KeyedDecodingContainer<AttributeKey>, forKey key: AttributeKey) throws -> Any {
        throw StashError(.decodingFailed, "a relationship is decoded by its context, not by its column's codec")
    }

    func encode(_ value: Any, to container: inout KeyedEncodingContainer<AttributeKey>, forKey key: AttributeKey)
        throws
    {}

    /// The target's row id: for a related object already saved, or a stored row.
    func storedValue(for value: Any) throws -> StoredValue {
        let target = RelationshipTarget(slotValue: value)
        if case .object(let object) = target, object.resolved.rowID == nil {
            throw StashError(
                .invalidValue, "the related \(type(of: object)) has no row yet", entity: nil, attribute: nil)
        }
        return target.rowID.map(StoredValue.integer) ?? .null
    }

    func value(from storedValue: StoredValue) throws -> Any {
        switch storedValue {
        case .null: return RelationshipTarget.none
        case .integer(let rowID): return RelationshipTarget.row(rowID)
        default:
            throw StashError(.invalidValue, "the stored \(storedValue.kindName) value is not a row id for \(typeName)")
        }
    }

    func placeholder() -> Any? { RelationshipTarget.none }
}

extension Relationship: ManagedProperty {
    static var isToMany: Bool { !_isOptional(Value.self) }

    static var slotAccess: SlotAccess { .toOne }

    static var toOneTargetType: ManagedObject.Type? {
        (Value.self as? any ToOneRelationship.Type)?.targetClass
    }

    static func makeCodec() throws -> any AttributeCodec {
        guard let toOne = Value.self as? any ToOneRelationship.Type else {
            throw StashError(
                .invalidModel, "a relationship is to `Target?` (one) or `[Target]` (many), not \(Value.self)")
        }
        return codec(for: toOne)
    }

    private static func codec<ToOne: ToOneRelationship>(for type: ToOne.Type) -> any AttributeCodec {
        RelationshipCodec<ToOne.Target>()
    }
}
