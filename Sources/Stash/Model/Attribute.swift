/// A stored attribute of a `ManagedObject`: one column of the entity's table, one key of
/// its JSON.
///
/// ```swift
/// final class Article: ManagedObject, Decodable {
///     @Attribute(.unique) var id: Int
///     @Attribute var title: String
///     @Attribute var summary: String?        // NULL column; absent or null key is nil
///     @Attribute var read: Bool = false      // used when the key is absent
/// }
/// ```
///
/// The wrapper keeps no value: values live in the object, in the slot the wrapper was
/// given when the object was built (see `ConstructionFrame`). So the context can read and
/// write every attribute of any object by slot, without reflection, and every assignment
/// through the property is seen by change tracking.
@propertyWrapper
public struct Attribute<Value: Codable> {
    @usableFromInline let storage: ObjectStorage
    @usableFromInline let slot: Int
    @usableFromInline let options: AttributeOptions

    // Everything here is inlinable so that, in the model's module, it is specialized for
    // `Value`: reading an attribute is then an array load and a cast.

    /// An attribute with a default, used for new objects when the JSON has no such key.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = []) {
        self.options = options
        storage = ConstructionFrame.currentStorage
        slot = storage.values.count
        // As `Any`, so that an optional's `nil` is kept as a value, distinct from unset.
        storage.values.append(wrappedValue as Any)
    }

    /// An attribute without a default. If `Value` is optional, it is `nil` (a NULL column)
    /// until set; otherwise decoding fails if its key is missing, and saving fails if it
    /// was never set.
    @inlinable
    public init(_ options: AttributeOptions = []) {
        self.options = options
        storage = ConstructionFrame.currentStorage
        slot = storage.values.count
        // Swift picks this initializer for optionals too (a constrained overload loses to
        // a non-generic one), so an optional starts "unset" and reads as nil.
        storage.values.append(nil)
    }

    @inlinable
    public var wrappedValue: Value {
        get {
            guard let value = storage.values[slot] else {
                return storage.owner!.valueOfUnsetAttribute(atAbsoluteSlot: slot) as! Value
            }
            return value as! Value
        }
        nonmutating set {
            storage.owner!.setValue(newValue as Any, atAbsoluteSlot: slot)
        }
    }
}

/// What schema building needs from an `@Attribute` it finds by reflection, whatever its
/// `Value`.
protocol AttributeWrapper {
    var slot: Int { get }
    var options: AttributeOptions { get }
    /// The codec for `Value`, built once per entity.
    func makeCodec() throws -> any AttributeCodec
}

extension Attribute: AttributeWrapper {
    func makeCodec() throws -> any AttributeCodec {
        try makeAttributeCodec(for: Value.self)
    }
}
