import Foundation
import Testing

@testable import Feeds

/// RSS, Atom and JSON Feed details, with documents the tests write.
@Suite struct ParsingFormatTests {
    static let url = URL(string: "https://example.com/blog/feed")!

    func parse(_ text: String) throws -> FeedDocument {
        try FeedParser.parse(Data(text.utf8), url: Self.url)
    }

    // MARK: RSS

    @Test func bareAmpersandsAndHTMLEntitiesInRSS() throws {
        let document = try parse(
            """
            <rss version="2.0"><channel><title>Tom & Jerry&nbsp;&mdash; caf&eacute; &copy; &#8364; &#x41; &bogus; AT&T</title>
            <item><link>https://example.com/?a=1&b=2</link><title>R&amp;D &lt;b&gt;bold&lt;/b&gt;</title>
            <enclosure url="https://example.com/a.mp3?x=1&y=2" length="12" type="audio/mpeg"/></item>
            </channel></rss>
            """)
        #expect(document.title == "Tom & Jerry — café © € A &bogus; AT&T")
        let entry = try #require(document.entries.first)
        #expect(entry.link == "https://example.com/?a=1&b=2")
        #expect(entry.title == "R&D bold")
        #expect(
            entry.enclosures == [Enclosure(url: "https://example.com/a.mp3?x=1&y=2", type: "audio/mpeg", length: 12)])
    }

    @Test func rssItemFields() throws {
        let document = try parse(
            """
            <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
                 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
            <channel><title>T</title><link>/</link>
            <atom:link rel="self" href="https://example.com/blog/feed"/>
            <item>
              <title><![CDATA[Fish <em>&</em> chips]]></title>
              <guid>https://example.com/p/1</guid>
              <description>Short <b onclick="x()">summary</b></description>
              <content:encoded><![CDATA[<p>Long <a href="/p/2">link</a> <img src="i.png" onerror="x()"></p><script>alert(1)</script>]]></content:encoded>
              <dc:creator>Ada Lovelace</dc:creator>
              <dc:date>2026-11-05T15:30:00+01:00</dc:date>
              <enclosure url="/media/1.mp3" length="not a number" type="audio/mpeg"/>
              <enclosure url="https://cdn.example.com/2.ogg" length="2000" type="audio/ogg"/>
            </item>
            <item><guid isPermaLink="true">https://example.com/p/3</guid><pubDate>someday</pubDate>
              <author>jo@example.com (Jo Bloggs)</author></item>
            <item><guid isPermaLink="false">https://example.com/p/4</guid><atom:link href="https://example.com/p/4.html"/></item>
            </channel></rss>
            """)
        #expect(document.siteURL == "https://example.com/")
        #expect(document.feedURL == "https://example.com/blog/feed")
        let first = document.entries[0]
        #expect(first.title == "Fish & chips")
        #expect(first.link == "https://example.com/p/1")  // a permalink guid stands for the link
        #expect(first.summary == "Short <b>summary</b>")
        #expect(
            first.content
                == #"<p>Long <a href="https://example.com/p/2">link</a> <img src="https://example.com/blog/i.png" /></p>"#
        )
        #expect(first.author == "Ada Lovelace")
        #expect(first.published == Date(timeIntervalSince1970: 1_793_889_000))
        #expect(
            first.enclosures == [
                Enclosure(url: "https://example.com/media/1.mp3", type: "audio/mpeg", length: nil),
                Enclosure(url: "https://cdn.example.com/2.ogg", type: "audio/ogg", length: 2000),
            ])
        #expect(document.entries[1].link == "https://example.com/p/3")
        #expect(document.entries[1].published == nil)  // unreadable: no date, never 1970 or now
        #expect(document.entries[1].author == "Jo Bloggs")
        #expect(document.entries[2].link == "https://example.com/p/4.html")
        #expect(document.entries[2].identity == "example.com/p/4")
    }

    @Test func linksThatAreNoWebLinksAreDropped() throws {
        let document = try parse(
            """
            <rss version="2.0"><channel><title>T</title><link>javascript:alert(1)</link>
            <item><guid>1</guid><link>javascript:alert(1)</link><enclosure url="data:audio/mp3;base64,AAAA" type="audio/mpeg"/></item>
            <item><guid>2</guid><link> ftp://files.example.com/a.txt </link></item>
            </channel></rss>
            """)
        #expect(document.siteURL == nil)
        #expect(document.entries[0].link == nil)
        #expect(document.entries[0].enclosures.isEmpty)
        #expect(document.entries[1].link == "ftp://files.example.com/a.txt")
    }

    @Test func rssWithoutVersionOrItems() throws {
        let document = try parse("<rss><channel><title>Empty</title></channel></rss>")
        #expect(document.kind == .rss2)
        #expect(document.entries.isEmpty)
        #expect(document.title == "Empty")
    }

    @Test func rss10WithItemsBesideTheChannel() throws {
        let document = try parse(
            """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
                     xmlns:dc="http://purl.org/dc/elements/1.1/">
              <channel rdf:about="https://example.com/"><title>RDF</title><link>https://example.com/</link></channel>
              <item rdf:about="https://example.com/1"><title>One</title><link>https://example.com/1</link>
                <dc:date>2026-11-05T14:30:00Z</dc:date><dc:creator>Bo</dc:creator></item>
              <item rdf:about="https://example.com/2"><title>Two</title><link>https://example.com/2</link></item>
            </rdf:RDF>
            """)
        #expect(document.kind == .rss1)
        #expect(document.entries.map(\.title) == ["One", "Two"])
        #expect(document.entries.map(\.identity) == ["example.com/1", "example.com/2"])
        #expect(document.entries[0].published == Date(timeIntervalSince1970: 1_793_889_000))
        #expect(document.entries[0].author == "Bo")
    }

    // MARK: Atom

    @Test func atomTextConstructsAndXMLBase() throws {
        let document = try parse(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <!-- a comment before the root -->
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/base/">
              <title type="html">A &lt;b&gt;bold&lt;/b&gt; title &amp;lt;3</title>
              <link href="/"/><link rel="self" href="feed.atom"/>
              <author><name>Feed Author</name></author>
              <entry xml:base="posts/">
                <id>urn:uuid:1</id>
                <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">An <b>xhtml</b> title</div></title>
                <link rel="alternate" type="text/html" href="one.html"/>
                <link rel="enclosure" href="one.mp3" type="audio/mpeg" length="99"/>
                <summary>Plain &lt;text&gt; &amp; more</summary>
                <content type="xhtml" xml:base="/other/"><div xmlns="http://www.w3.org/1999/xhtml"><p>See <a href="x.html" onclick="y()">x</a> <img src="p.png"/></p></div></content>
                <published>2026-11-05T14:30:00Z</published>
                <updated>2026-11-06T14:30:00+02:00</updated>
              </entry>
              <entry>
                <id>urn:uuid:2</id><title>Two</title>
                <author><name>A</name></author><author><name>B</name></author>
                <content type="html">&lt;p&gt;Hi &lt;a href="rel"&gt;r&lt;/a&gt;&lt;script&gt;bad()&lt;/script&gt;&lt;/p&gt;</content>
                <updated>2026-11-05T14:30:00Z</updated>
              </entry>
            </feed>
            """)
        #expect(document.kind == .atom)
        #expect(document.title == "A bold title <3")
        #expect(document.siteURL == "https://example.org/")
        #expect(document.feedURL == "https://example.org/base/feed.atom")
        let first = document.entries[0]
        #expect(first.title == "An xhtml title")
        #expect(first.link == "https://example.org/base/posts/one.html")
        #expect(
            first.enclosures == [
                Enclosure(url: "https://example.org/base/posts/one.mp3", type: "audio/mpeg", length: 99)
            ])
        #expect(first.summary == "Plain &lt;text&gt; &amp; more")
        #expect(
            first.content
                == #"<p>See <a href="https://example.org/other/x.html">x</a> <img src="https://example.org/other/p.png" /></p>"#
        )
        #expect(first.author == "Feed Author")
        #expect(first.published == Date(timeIntervalSince1970: 1_793_889_000))
        #expect(first.updated == Date(timeIntervalSince1970: 1_793_889_000 + 86_400 - 7_200))
        let second = document.entries[1]
        #expect(second.author == "A, B")
        #expect(second.content == #"<p>Hi <a href="https://example.org/base/rel">r</a></p>"#)
        #expect(second.published == nil)
        #expect(second.updated == Date(timeIntervalSince1970: 1_793_889_000))
    }

    // MARK: JSON Feed

    @Test func jsonFeedFields() throws {
        let document = try parse(
            """
            {"version": "https://jsonfeed.org/version/1.1", "title": "J", "home_page_url": "/home/",
             "feed_url": "feed.json", "next_url": "?page=2", "authors": [{"name": "Feed One"}],
             "items": [
               {"id": 7, "url": "post/7", "title": "Seven", "content_text": "a < b\\nnew line & more",
                "date_published": "2026-11-05T14:30:00Z", "date_modified": "not a date",
                "authors": [{"name": "X"}, {"name": "Y"}],
                "attachments": [{"url": "a.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 100}, {"url": 5}]},
               {"id": "e", "external_url": "https://elsewhere.example/", "content_html": "<p onclick='x'>Hi</p>",
                "summary": "S", "author": {"name": "Solo"}},
               "not an item",
               {"id": "z", "title": 12}
             ]}
            """)
        #expect(document.siteURL == "https://example.com/home/")
        #expect(document.nextURL == "https://example.com/blog/feed?page=2")
        #expect(document.feedURL == "https://example.com/blog/feed.json")
        let first = document.entries[0]
        #expect(first.identity == "7")
        #expect(first.link == "https://example.com/home/post/7")
        #expect(first.content == "a &lt; b<br />new line &amp; more")
        #expect(first.author == "X, Y")
        #expect(first.published == Date(timeIntervalSince1970: 1_793_889_000))
        #expect(first.updated == nil)
        #expect(first.enclosures == [Enclosure(url: "https://example.com/home/a.mp3", type: "audio/mpeg", length: 100)])
        let second = document.entries[1]
        #expect(second.link == "https://elsewhere.example/")
        #expect(second.content == "<p>Hi</p>")
        #expect(second.summary == "S")
        #expect(second.author == "Solo")
        #expect(document.entries.count == 3)
        #expect(document.entries[2].title == "")
        #expect(document.entries[2].author == "Feed One")
    }
}
