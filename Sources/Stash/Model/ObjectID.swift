/// A `Sendable` identity for a managed object, to pass between isolation domains where the
/// object itself cannot go.
///
/// A saved object's ID names its row and stays the same in every context of the
/// container; a new object's ID is temporary until its first save.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    public let entityName: String
    /// The row's `_pk` column, `nil` before the first save.
    public let rowID: Int64?
    let temporaryID: UInt64

    init(entityName: String, rowID: Int64?, temporaryID: UInt64) {
        self.entityName = entityName
        self.rowID = rowID
        self.temporaryID = rowID == nil ? temporaryID : 0
    }

    /// The ID of a saved row: what `objectID` gives for the object of row `rowID` of the model
    /// class named `entityName` (an ID kept as numbers, in a file or another store).
    public init(entityName: String, rowID: Int64) {
        self.init(entityName: entityName, rowID: rowID, temporaryID: 0)
    }

    /// `true` until the object has been saved.
    public var isTemporary: Bool { rowID == nil }

    public var description: String {
        if let rowID { return "\(entityName)/\(rowID)" }
        return "\(entityName)/new-\(temporaryID)"
    }
}
