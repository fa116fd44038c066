import Foundation
import Testing

@testable import Feeds

/// A large feed parses in bounded time: the recovery, tree and sanitizer are linear.
@Suite struct ParsingScaleTests {
    @Test func twoThousandItemsWithHTMLContent() throws {
        var text = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>"#
        for index in 0..<2_000 {
            text += """
                <item><title>Item \(index) &amp; more</title><link>https://example.com/\(index)?a=1&b=2</link>
                <guid>https://example.com/\(index)</guid><pubDate>Thu, 05 Nov 2026 14:30:00 GMT</pubDate>
                <description><![CDATA[<p>Paragraph <a href="/x/\(index)" onclick="x()">link</a> with <b>bold</b> &nbsp; text.</p>
                <script>alert(\(index))</script><img src="i\(index).png">]]></description></item>
                """
        }
        text += "</channel></rss>"
        let data = Data(text.utf8)
        let start = Date()
        let document = try FeedParser.parse(data, url: URL(string: "https://example.com/feed")!)
        let elapsed = Date().timeIntervalSince(start)
        #expect(document.entries.count == 2_000)
        #expect(document.entries[1_999].link == "https://example.com/1999?a=1&b=2")
        #expect(document.entries[0].summary?.contains("script") == false)
        #expect(elapsed < 10, "\(data.count) bytes took \(elapsed) s")
        print("ParsingScaleTests: \(data.count) bytes, 2,000 items in \(elapsed) s")
    }
}
