/// A model whose local edits go back to its REST API: each save of a context that records
/// edits (`ManagedObjectContext.recordsEdits`, the default) keeps what to send in the
/// store's outbox, in the same transaction as the rows, until StashREST's `push` has sent it.
///
/// ```swift
/// final class Bookmark: ManagedObject, Codable, RemoteModel {
///     static let remotePath = "bookmarks"    // POST bookmarks, PATCH/DELETE bookmarks/<id>
///     @Attribute(.unique) var id: UUID = UUID()
///     @Attribute var url: URL
/// }
/// ```
///
/// - A new object is sent as `POST <remotePath>` with its encoded values; an edit of a saved
///   one as `PATCH <remotePath>/<unique value>` with only the attributes that changed (under
///   their JSON keys); a deletion as `DELETE <remotePath>/<unique value>`.
/// - The first `.unique` attribute names the object on the API, so it must exist before the
///   server answers: a client-made value (a `UUID`). Whatever else the server sets (its own
///   id, timestamps) comes back in the answer's body, which is decoded into the row.
/// - Models that are not `RemoteModel`s record nothing and pay nothing.
public protocol RemoteModel: ManagedObject, Codable {
    /// The collection's path, relative to the client's base URL (`"bookmarks"`).
    static var remotePath: String { get }
    /// Attributes kept on this device alone (a read flag): never sent, and an edit of only
    /// these records nothing. None by default.
    static var localAttributes: [PartialKeyPath<Self>] { get }
}

extension RemoteModel {
    public static var localAttributes: [PartialKeyPath<Self>] { [] }

    /// The slots of `localAttributes` in `entity`.
    static func localSlots(in entity: EntityDescription) throws -> AttributeSet {
        var slots = AttributeSet()
        for keyPath in localAttributes {
            slots.insert(try entity.attribute(for: keyPath).index)
        }
        return slots
    }
}
