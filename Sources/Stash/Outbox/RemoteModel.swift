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
/// - An API whose item paths use the server's own id (linkding's `/api/bookmarks/<id>/`)
///   names that attribute in `remoteKey`: an optional, server-set one (`remoteID: Int?`,
///   decoded from the `POST` answer's `id`). An item path is then made when its operation is
///   sent, and an edit or deletion made before the `POST` was answered waits for it.
/// - Models that are not `RemoteModel`s record nothing and pay nothing.
public protocol RemoteModel: ManagedObject, Codable {
    /// The collection's path, relative to the client's base URL (`"bookmarks"`); one that ends
    /// with `/` (`"api/bookmarks/"`) gives item paths with a `/` at the end too.
    static var remotePath: String { get }
    /// Attributes kept on this device alone (a read flag): never sent, and an edit of only
    /// these records nothing. None by default.
    static var localAttributes: [PartialKeyPath<Self>] { get }
    /// The attribute that names an object in the API's item paths (`<remotePath>/<value>`);
    /// `nil`, the default, for the first `.unique` attribute. When set, it may be one the
    /// server sets (`nil` until its `POST` is answered).
    static var remoteKey: PartialKeyPath<Self>? { get }
}

extension RemoteModel {
    public static var localAttributes: [PartialKeyPath<Self>] { [] }
    public static var remoteKey: PartialKeyPath<Self>? { nil }

    /// The attribute `remoteKey` names in `entity`, or `nil` for the first unique one.
    static func remoteKeyAttribute(in entity: EntityDescription) throws -> AttributeDescription? {
        guard let remoteKey else { return nil }
        return try entity.attribute(for: remoteKey)
    }

    /// The attribute whose value names an object on the API, as text in its operations:
    /// `remoteKey`'s, or the first unique one.
    static func namingAttribute(in entity: EntityDescription) throws -> AttributeDescription? {
        try remoteKeyAttribute(in: entity) ?? entity.uniqueAttributes.first
    }

    /// The slots of `localAttributes` in `entity`.
    static func localSlots(in entity: EntityDescription) throws -> AttributeSet {
        var slots = AttributeSet()
        for keyPath in localAttributes {
            slots.insert(try entity.attribute(for: keyPath).index)
        }
        return slots
    }
}
