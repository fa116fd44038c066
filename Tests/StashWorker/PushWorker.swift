import Foundation
import Stash
import StashREST

/// The push tests' bookmark (StashRESTTests' `Support/PushModels.swift`), declared again here
/// with the same attributes, so that this process opens the test's store as it is.
final class Bookmark: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/bookmarks"
    static var localAttributes: [PartialKeyPath<Bookmark>] { [\.read] }
    @Attribute(.unique) var id: UUID = UUID()
    @Attribute var url: String = ""
    @Attribute var title: String = ""
    @Attribute var number: Int?
    @Attribute(key: "created_at") var createdAt: Date?
    @Attribute(key: "updated_at") var updatedAt: Date?
    @Attribute var read: Bool = false
    @Relationship var folder: PushFolder?
}

/// The push tests' folder, as `Bookmark`.
final class PushFolder: ManagedObject, Codable, RemoteModel {
    static let remotePath = "api/folders"
    @Attribute(.unique) var id: UUID = UUID()
    @Attribute var name: String = ""
}

/// Pushes a store's outbox to the test API and prints what it sent: the process a test kills
/// at random moments, to show that a push resumed after a crash sends every edit once.
struct PushWorker {
    let store: URL
    let baseURL: String

    func run() async throws -> String {
        let container = try PersistentContainer(for: Bookmark.self, PushFolder.self, storeURL: store)
        var configuration = RESTConfiguration()
        configuration.retry.initialDelay = .milliseconds(10)
        configuration.retry.maximumDelay = .milliseconds(50)
        guard let url = URL(string: baseURL) else { return "error: no URL: \(baseURL)" }
        let report = try await RESTClient(baseURL: url, configuration: configuration).push(container)
        return "sent \(report.sent) failed \(report.failed.count) waiting \(report.waiting)"
    }
}
