import Foundation
import PushModels
import Stash
import StashREST
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One write the test API received.
struct APIWrite: Sendable {
    let method: String
    let path: String
    let key: String?
    let ifMatch: String?
    let body: String
    /// The status it answered, or `"dropped"`.
    let status: String
    /// Whether it changed what the API holds (not a replay of an earlier answer).
    let applied: Bool
}

extension TestServer {
    /// The bookmarks the test API holds, by id.
    func bookmarks() async throws -> [String: [String: Any]] {
        try await objects(of: "bookmarks")
    }

    /// The objects of a collection the test API holds, by their text id.
    func objects(of collection: String) async throws -> [String: [String: Any]] {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("api/\(collection)"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        var byID: [String: [String: Any]] = [:]
        for item in list { byID[item["id"] as? String ?? ""] = item }
        return byID
    }

    /// The writes the test API received, in order.
    func writes() async throws -> [APIWrite] {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("api/_log"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return list.map { entry in
            APIWrite(
                method: entry["method"] as? String ?? "", path: entry["path"] as? String ?? "",
                key: entry["key"] as? String, ifMatch: entry["if_match"] as? String,
                body: entry["body"] as? String ?? "", status: entry["status"].map { "\($0)" } ?? "",
                applied: entry["applied"] as? Bool ?? false)
        }
    }

    /// Makes the API's next `times` writes of `method` fail as `kind` says (see rest_api.py).
    func fault(_ kind: String, status: Int = 500, times: Int = 1, method: String) async throws {
        try await get("api/_fault?kind=\(kind)&status=\(status)&times=\(times)&method=\(method)")
    }
}

extension TestServer {
    /// Waits until the API has received `count` writes (the last one may still be unanswered).
    func waitForWrites(_ count: Int) async throws {
        for _ in 0..<500 {
            if try await writes().count >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Testing.Issue.record("the API never received \(count) writes")
    }
}

extension Bookmark {
    /// A new bookmark of `context` with `url` and `title`.
    static func new(in context: ManagedObjectContext, _ url: String, _ title: String = "") -> Bookmark {
        let bookmark = Bookmark(context: context)
        bookmark.url = url
        bookmark.title = title
        return bookmark
    }
}

/// A store with the push tests' model.
func pushContainer(_ store: TemporaryStore) throws -> PersistentContainer {
    try PersistentContainer(for: Bookmark.self, PushFolder.self, PushLink.self, PushNote.self, storeURL: store.file)
}

/// A link of the test API's numbered collection (`api/links/`), named on the API by the id
/// the server makes when it answers the `POST` (`remoteKey`), as linkding names bookmarks.
final class PushLink: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/links/"
    static var remoteKey: PartialKeyPath<PushLink>? { \.remoteID }
    @Attribute(.unique) var url: String = ""
    @Attribute(key: "id") var remoteID: Int?
    @Attribute var title: String = ""
}

extension TestServer {
    /// The links the test API holds, by the id it made.
    func links() async throws -> [Int: [String: Any]] {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("api/links"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        var byID: [Int: [String: Any]] = [:]
        for item in list { byID[item["id"] as? Int ?? 0] = item }
        return byID
    }
}

/// A note named on the API by a slug the user typed: its paths must carry any text as one
/// segment (`..`, `/`, `?`, letters beyond ASCII).
final class PushNote: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/notes"
    @Attribute(.unique) var id: String = ""
    @Attribute var text: String = ""
}
