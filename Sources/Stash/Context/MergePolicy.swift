/// What happens when an object arrives with a unique value that another object (in the
/// context or in the store) already has.
///
/// Either way the context keeps one object per unique value and the store one row.
public struct MergePolicy: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case incomingWins
        case storedWins
        case fail
    }
    let kind: Kind

    /// The default: the incoming values replace the stored ones, attribute by attribute
    /// (Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`). Every attribute the incoming
    /// object set, or decoded, is what the row holds after the save, even one set to the
    /// value the context last saw: the save compares such values with the row inside its
    /// transaction, so a commit by another process in between never leaves a row that mixes
    /// two saves. Attributes the incoming object did not set (keys absent from the JSON)
    /// keep their stored values, so a re-fetch does not reset local state such as a `read`
    /// flag.
    public static let incomingWins = MergePolicy(kind: .incomingWins)
    /// The stored object is kept as it is; incoming values are dropped.
    public static let storedWins = MergePolicy(kind: .storedWins)
    /// A unique value that is already taken is an error (`StashError.Code.uniqueConflict`).
    public static let fail = MergePolicy(kind: .fail)

    public var description: String {
        switch kind {
        case .incomingWins: "incomingWins"
        case .storedWins: "storedWins"
        case .fail: "fail"
        }
    }
}
