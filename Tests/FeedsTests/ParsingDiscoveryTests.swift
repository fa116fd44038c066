import Foundation
import Testing

@testable import Feeds

/// The feeds an HTML page links to.
@Suite struct ParsingDiscoveryTests {
    static let page = URL(string: "https://example.com/blog/index.html")!

    func links(_ html: String, base: URL = Self.page) -> [String] {
        FeedDiscovery.feedLinks(inHTML: Data(html.utf8), baseURL: base, contentType: "text/html").map(\.absoluteString)
    }

    @Test func relativeHrefsResolveAgainstThePage() {
        let html =
            #"<html><head><link rel="alternate" type="application/rss+xml" href="feed.xml" title="RSS"></head></html>"#
        #expect(links(html) == ["https://example.com/blog/feed.xml"])
    }

    @Test func severalLinksInPageOrderWithEveryType() {
        let html = """
            <head>
            <link rel="stylesheet" href="/s.css">
            <LINK REL="Alternate" TYPE="application/atom+xml" HREF="/atom.xml">
            <link rel="alternate" type="application/rss+xml; charset=utf-8" href="https://feeds.example.net/rss">
            <link rel="alternate" type="text/html" href="/fr/">
            <link rel="alternate" type="application/feed+json" href="feed.json">
            <link rel="alternate home" type="application/json" href="/j.json">
            <link rel="alternate" type="application/atom+xml" href="/atom.xml">
            <link rel="icon" type="application/rss+xml" href="/not-alternate.xml">
            <link rel=alternate type=application/rss+xml href=/unquoted.xml>
            </head>
            """
        #expect(
            links(html) == [
                "https://example.com/atom.xml", "https://feeds.example.net/rss", "https://example.com/blog/feed.json",
                "https://example.com/j.json", "https://example.com/unquoted.xml",
            ])
    }

    @Test func theBaseElementWins() {
        let html = """
            <head><base href="https://cdn.example.org/site/">
            <link rel="alternate" type="application/atom+xml" href="atom.xml"></head>
            """
        #expect(links(html) == ["https://cdn.example.org/site/atom.xml"])
        let relativeBase = #"<base href="/sub/"><link rel="alternate" type="application/rss+xml" href="r.xml">"#
        #expect(links(relativeBase) == ["https://example.com/sub/r.xml"])
        // Only the first base counts, and it counts for links before it too.
        let late = """
            <link rel="alternate" type="application/rss+xml" href="early.xml">
            <base href="https://first.example/"><base href="https://second.example/">
            """
        #expect(links(late) == ["https://first.example/early.xml"])
    }

    @Test func aPageWithNoFeedLinksNone() {
        #expect(links("<html><head><title>x</title></head><body>No feeds here</body></html>").isEmpty)
        #expect(links(#"<a rel="alternate" type="application/rss+xml" href="/a-not-link.xml">x</a>"#).isEmpty)
        #expect(links("").isEmpty)
    }

    @Test func linksInsideCommentsAndScriptsDoNotCount() {
        let html = """
            <!-- <link rel="alternate" type="application/rss+xml" href="/commented.xml"> -->
            <script>var s = '<link rel="alternate" type="application/rss+xml" href="/scripted.xml">';</script>
            <link rel="alternate" type="application/rss+xml" href="/real.xml">
            """
        #expect(links(html) == ["https://example.com/real.xml"])
    }
}
