import Foundation
import Stash

/// The push tests' model: a bookmark of the test server's API
/// (`Tests/StashRESTTests/Server/rest_api.py`), which sets `number`, `created_at` and
/// `updated_at`. `read` stays on the device. Shared by the push tests and the `stash-worker`
/// process they kill mid-push, so both open one store with one schema.
public final class Bookmark: ManagedObject, Codable, RemoteModel {
    public static let remotePath = "api/bookmarks"
    public static var localAttributes: [PartialKeyPath<Bookmark>] { [\.read] }
    @Attribute(.unique) public var id: UUID = UUID()
    @Attribute public var url: String = ""
    @Attribute public var title: String = ""
    @Attribute public var number: Int?
    @Attribute(key: "created_at") public var createdAt: Date?
    @Attribute(key: "updated_at") public var updatedAt: Date?
    @Attribute public var read: Bool = false
    @Relationship public var folder: PushFolder?
}

/// A folder of bookmarks: the API refuses a bookmark whose folder it does not hold yet.
public final class PushFolder: ManagedObject, Codable, RemoteModel {
    public static let remotePath = "api/folders"
    @Attribute(.unique) public var id: UUID = UUID()
    @Attribute public var name: String = ""
}
