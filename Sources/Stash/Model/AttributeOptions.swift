/// What an `@Attribute` promises beyond its type.
public struct AttributeOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No two objects of the entity share this value: the store keeps a unique index on the
    /// column, and inserting or decoding an object with a value already taken updates the
    /// object that has it (upsert) instead of adding another.
    public static let unique = AttributeOptions(rawValue: 1 << 0)

    /// The store keeps an index on the column, for queries that filter or sort on it.
    /// (A unique attribute has one already.)
    public static let indexed = AttributeOptions(rawValue: 1 << 1)

    /// JSON of another scalar kind is taken when it stands for the value exactly: a number
    /// for a `String` (its digits: `42` is `"42"`, `1.5` is `"1.5"`), a string for a number
    /// (`"42"` for an `Int`, not `"42.0"`; `"2.5"` for a `Double`), `0`/`1` or
    /// `"true"`/`"false"` for a `Bool`. Anything else is still an error. For `String`, the
    /// integer types, `Double`, `Float`, `Bool` and `Decimal` (optional or not).
    public static let lossless = AttributeOptions(rawValue: 1 << 2)

    /// The store keeps the column in the entity's full-text index (SQLite FTS5), for
    /// `ManagedObjectContext.search(_:matching:)`. For `String` and `String?` attributes only.
    /// The index is kept by triggers on the table, so every writer keeps it right: a save,
    /// another process, the `sqlite3` shell. An entity without one pays nothing.
    public static let searchable = AttributeOptions(rawValue: 1 << 3)
}
