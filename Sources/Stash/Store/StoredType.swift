/// The kind of value a column holds: what a store makes its column of.
package enum StoredType: Sendable, Hashable {
    case integer
    case real
    case text
    case blob
}
