/// The values of a composite unique constraint, as `compositeHolder` compares them.
struct CompositeKey: Hashable {
    enum Part: Hashable {
        case value(StoredValue)
        /// A related object not saved yet.
        case object(ObjectIdentifier)
    }

    let parts: [Part]
}
