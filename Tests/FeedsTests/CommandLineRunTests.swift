import Foundation
import Testing

@testable import Feeds

@Suite struct CommandLineRunTests {
    private func temporaryStore() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("feeds-cli-\(UUID().uuidString)/feeds.sqlite")
    }

    @Test func refreshingAnEmptyStorePrintsNoFeedsAsJSON() async {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
        let collected = CollectedOutput()
        let status = await FeedsCommand.run(
            ["refresh", "--json", "--store", store.path], environment: [:], output: collected.output)
        #expect(status == 0)
        #expect(collected.standardOutput == "{\n  \"feeds\": []\n}\n")
        #expect(collected.standardError == "")
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    @Test func theStoreComesFromTheEnvironmentWhenNotGiven() async {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
        let collected = CollectedOutput()
        let status = await FeedsCommand.run(
            ["refresh"], environment: ["FEEDS_STORE": store.path], output: collected.output)
        #expect(status == 0)
        #expect(collected.standardOutput == "Refreshed 0 feeds: 0 new entries, 0 updated, 0 not modified, 0 failed\n")
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    @Test func anUnreadableOPMLFileFailsNamingIt() async {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
        let collected = CollectedOutput()
        let missing = "/nonexistent/subscriptions.opml"
        let status = await FeedsCommand.run(
            ["opml", "import", missing, "--store=\(store.path)"], environment: [:], output: collected.output)
        #expect(status == 1)
        #expect(collected.standardOutput == "")
        #expect(collected.standardError.hasPrefix("feeds: \(missing): cannot read it"))
    }

    @Test func errorsNameTheURLOrIdTheyAreAbout() throws {
        let library = try FeedLibrary(storeURL: nil)
        let output = CollectedOutput().output
        func handler(_ arguments: [String]) throws -> CommandHandler {
            guard case .run(let command) = try CommandLineParser.parse(arguments) else { throw UsageError("help") }
            return CommandHandler(library: library, command: command, output: output)
        }
        let url = "https://gone.example/feed"
        #expect(
            try handler(["remove", url]).describe(FeedsError(.notFound, "not subscribed")) == "\(url): not subscribed")
        #expect(try handler(["remove", url]).describe(FeedsError(.notFound, "no feed \(url)")) == "no feed \(url)")
        #expect(
            try handler(["show", "42"]).describe(FeedsError(.notFound, "no such entry")) == "entry 42: no such entry")
        #expect(try handler(["read", "1", "2"]).describe(FeedsError(.notFound, "no entry 2")) == "no entry 2")
        #expect(
            try handler(["read", "--feed", url]).describe(FeedsError(.notFound, "unknown feed"))
                == "\(url): unknown feed")
        #expect(try handler(["list"]).describe(FeedsError(.store, "disk full")) == "disk full")
    }
}
