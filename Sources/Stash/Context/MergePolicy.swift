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
    /// `overwrite`: a saved object's every loaded attribute is written, not only those set.
    let writesWholeObjects: Bool

    init(kind: Kind, writesWholeObjects: Bool = false) {
        self.kind = kind
        self.writesWholeObjects = writesWholeObjects
    }

    /// The default: the incoming values replace the stored ones, attribute by attribute
    /// (Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`). Every attribute the incoming
    /// object set, or decoded, is what the row holds after the save, even one set to the
    /// value the context last saw: the save compares such values with the row inside its
    /// transaction, so a commit by another process in between never leaves a row that mixes
    /// two saves. Attributes the incoming object did not set (keys absent from the JSON)
    /// keep their stored values, so a re-fetch does not reset local state such as a `read`
    /// flag.
    public static let incomingWins = MergePolicy(kind: .incomingWins)
    /// The whole object wins (Core Data's `NSOverwriteMergePolicy`): as `.incomingWins`, and
    /// a changed saved object is written whole, every attribute it has loaded, not only those
    /// set, so the row is the object as this context has it, whatever another process wrote
    /// meanwhile. Attributes the object never loaded nor was given (keys a payload decoded
    /// for a stored row lacks) keep their stored values, and the row is compared inside the
    /// save, so one that already holds the object is not written.
    public static let overwrite = MergePolicy(kind: .incomingWins, writesWholeObjects: true)
    /// The stored object is kept as it is; incoming values are dropped.
    public static let storedWins = MergePolicy(kind: .storedWins)
    /// A unique value that is already taken is an error (`StashError.Code.uniqueConflict`).
    public static let fail = MergePolicy(kind: .fail)

    public var description: String {
        if writesWholeObjects { return "overwrite" }
        return switch kind {
        case .incomingWins: "incomingWins"
        case .storedWins: "storedWins"
        case .fail: "fail"
        }
    }
}
