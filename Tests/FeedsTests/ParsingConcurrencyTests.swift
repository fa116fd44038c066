import Foundation
import Testing

@testable import Feeds

/// The refresh parses several feeds at once: each parse is independent of the others.
@Suite struct ParsingConcurrencyTests {
    @Test func feedsParsedConcurrentlyEachGetTheirOwnEntries() async throws {
        let results = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for feed in 0..<16 {
                group.addTask {
                    var text = "<rss version=\"2.0\"><channel><title>Feed \(feed)</title>"
                    for item in 0..<200 {
                        text += "<item><guid>\(feed)-\(item)</guid><title>T &amp; \(item)</title></item>"
                    }
                    text += "</channel></rss>"
                    let document = try FeedParser.parse(
                        Data(text.utf8), url: URL(string: "https://example.com/\(feed)")!)
                    return (feed, document.entries.map(\.identity))
                }
            }
            var results: [Int: [String]] = [:]
            for try await (feed, identities) in group { results[feed] = identities }
            return results
        }
        #expect(results.count == 16)
        for (feed, identities) in results {
            #expect(identities == (0..<200).map { "\(feed)-\($0)" })
        }
    }
}
