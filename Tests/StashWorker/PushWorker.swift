import Foundation
import PushModels
import Stash
import StashREST

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
