/// What one object's JSON gave its attributes, once decoded: the unique values (and the
/// keys they are looked up by) and the other attributes' values that were there. Kept by
/// `NestedObjectMemo` so that a nested object sent again byte for byte (an author named
/// by a thousand essays) is applied again without being decoded again.
///
/// Only values of plain types are kept (`AttributeCodec.holdsPlainValues`): an instance of
/// a class kept as JSON would be shared by every object it is applied to.
struct DecodedAttributes {
    var uniqueValues: [(AttributeDescription, Any)]
    var keys: [(index: Int, key: StoredValue)]
    /// The other attributes the JSON gave a value (absent keys, and nulls that leave a
    /// value as it is, are not here).
    var values: [(AttributeDescription, Any)]

    init(
        _ uniqueValues: [(AttributeDescription, Any)], _ keys: [(index: Int, key: StoredValue)],
        _ values: [(AttributeDescription, Any)]
    ) {
        self.uniqueValues = uniqueValues
        self.keys = keys
        self.values = values
    }
}
