import Foundation
import Testing

@testable import Feeds

#if canImport(FoundationXML)
    import FoundationXML
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DemoServerContentTests {
    /// Counts elements by name, and fails on XML that is not well formed.
    private final class ElementCounter: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        var closedRoot = false
        private var depth = 0
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            counts[elementName, default: 0] += 1
        }
        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            depth -= 1
            if depth == 0 { closedRoot = true }
        }
    }

    private func elements(_ resource: DemoResource?) throws -> [String: Int] {
        let data = try #require(resource?.body)
        let counter = ElementCounter()
        let parser = XMLParser(data: data)
        parser.delegate = counter
        #expect(parser.parse())
        #expect(counter.closedRoot)
        return counter.counts
    }

    private let base = URL(string: "http://127.0.0.1:4321/")!

    @Test func theExampleFeedsAreWellFormedAndLinkToTheServer() throws {
        let resources = DemoContent.resources(baseURL: base)
        let rss = try elements(resources[DemoContent.rssPath])
        #expect(rss["item"] == 6)
        #expect(rss["enclosure"] == 1)
        #expect(rss["dc:creator"] == 6)
        let atom = try elements(resources[DemoContent.atomPath])
        #expect(atom["entry"] == 6)
        #expect(atom["author"] == 6)

        let json = try #require(resources[DemoContent.jsonFeedPath]?.body)
        let feed = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(feed["version"] as? String == "https://jsonfeed.org/version/1.1")
        #expect(feed["feed_url"] as? String == "http://127.0.0.1:4321/almanac/feed.json")
        let items = try #require(feed["items"] as? [[String: Any]])
        #expect(items.count == 6)
        #expect(items.allSatisfy { $0["date_published"] is String && $0["url"] is String })

        let page = String(decoding: try #require(resources[DemoContent.pagePath]?.body), as: UTF8.self)
        #expect(
            page.contains(
                "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Lab notes\" href=\"http://127.0.0.1:4321/tidepool/atom.xml\">"
            ))
        for resource in resources.values {
            #expect(!String(decoding: resource.body, as: UTF8.self).contains("{{base}}"))
        }
        // The search word is in more than one feed.
        let containing = [DemoContent.rssPath, DemoContent.atomPath, DemoContent.jsonFeedPath].filter {
            String(decoding: resources[$0]!.body, as: UTF8.self).contains(DemoContent.searchWord)
        }
        #expect(containing.count == 3)
    }

    @Test func theSampleBookmarksFillTwoPagesWithMixedCaseTags() throws {
        let bookmarks = DemoContent.bookmarks
        #expect(bookmarks.count == 30)
        #expect(Set(bookmarks.map(\.url)).count == 30)
        #expect(Set(bookmarks.map(\.id)) == Set(1...30))
        let tags = Set(bookmarks.flatMap(\.tags))
        #expect(tags.contains("Swift") && tags.contains("swift"))
        #expect(tags.contains("HTTP") && tags.contains("http"))
        #expect(bookmarks.filter { $0.tags.contains { $0.lowercased() == "swift" } }.count == 5)
    }

    @Test func theDemoServerServesTheExampleContentAndPagedBookmarks() async throws {
        let server = try DemoServer(
            bookmarks: DemoContent.bookmarks, token: DemoContent.token, resources: DemoContent.resources)
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        for path in [DemoContent.rssPath, DemoContent.atomPath, DemoContent.jsonFeedPath, DemoContent.pagePath] {
            let url = try #require(URL(string: String(path.dropFirst()), relativeTo: server.baseURL))
            let (data, response) = try await session.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
            #expect(data == DemoContent.resources(baseURL: server.baseURL)[path]?.body)
        }
        var request = URLRequest(url: try #require(URL(string: "api/bookmarks/?limit=20", relativeTo: server.baseURL)))
        request.setValue("Token \(DemoContent.token)", forHTTPHeaderField: "Authorization")
        var pages = 0
        var seen: [Int] = []
        while true {
            let (data, _) = try await session.data(for: request)
            let page = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            pages += 1
            seen += (page["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            guard let next = page["next"] as? String else { break }
            request.url = URL(string: next)
        }
        #expect(pages == 2)
        #expect(seen == Array(1...30))
    }

    @Test
    func theDemoRunsEndToEndWithoutTheInternet() async throws {
        let collected = CollectedOutput()
        let status = await DemoRun.run(store: nil, output: collected.output)
        #expect(collected.standardError == "")
        #expect(status == 0)
        let text = collected.standardOutput
        #expect(text.contains("every feed answered 304 Not Modified"))
        #expect(text.contains("Imported 30 bookmarks (30 new, 0 updated) in 2 pages"))
        #expect(text.contains("Harbour Lane Bakery Journal"))
        #expect(text.contains("Tidepool Robotics Lab"))
        #expect(text.contains("Backyard Sky Almanac"))
        #expect(!text.contains("No entries match"))
    }
}
