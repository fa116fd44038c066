import Foundation
import Testing

@testable import Feeds

@Suite struct OPMLDocumentTests {
    private let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0">
          <head><title> My &amp; subscriptions </title></head>
          <body>
            <outline type="rss" text="Top level" xmlUrl="https://top.example/feed.xml"/>
            <outline text="Tech">
              <outline text="Swift">
                <outline type="rss" text="Swift &lt;news&gt;" title="ignored" xmlUrl="https://swift.example/rss?a=1&amp;b=2" htmlUrl="https://swift.example/"/>
              </outline>
              <outline type="rss" title="Only a title" xmlURL="https://linux.example/atom"/>
            </outline>
            <outline text="Empty folder"/>
          </body>
        </opml>
        """

    @Test func aNestedDocumentIsReadIntoItsTreeAndFlatFeeds() throws {
        let document = try OPMLDocument.parse(Data(sample.utf8))
        #expect(document.title == "My & subscriptions")
        #expect(document.outlines.map(\.title) == ["Top level", "Tech", "Empty folder"])
        #expect(document.outlines[1].children.map(\.title) == ["Swift", "Only a title"])
        #expect(
            document.feeds == [
                OPMLFeed(folderPath: [], url: "https://top.example/feed.xml", title: "Top level"),
                OPMLFeed(
                    folderPath: ["Tech", "Swift"], url: "https://swift.example/rss?a=1&b=2", title: "Swift <news>",
                    siteURL: "https://swift.example/"),
                OPMLFeed(folderPath: ["Tech"], url: "https://linux.example/atom", title: "Only a title"),
            ])
        #expect(document.folders == [["Tech"], ["Tech", "Swift"], ["Empty folder"]])
    }

    @Test func foldersTitlesAndURLsRoundTrip() throws {
        let feeds = [
            OPMLFeed(
                folderPath: ["News & \"Views\""], url: "https://a.example/feed?x=1&y=<2>", title: "A & B <c> \"d\""),
            OPMLFeed(
                folderPath: ["News & \"Views\"", "Deep"], url: "https://b.example/atom", title: "B",
                siteURL: "https://b.example/?q=a&r=b"),
            OPMLFeed(folderPath: [], url: "https://c.example/feed.json", title: "C\nwith a line break"),
            OPMLFeed(folderPath: ["News & \"Views\""], url: "https://d.example/rss", title: "D"),
        ]
        let document = OPMLDocument(title: "Round & trip", feeds: feeds)
        #expect(document.outlines.map(\.title) == ["News & \"Views\"", "C\nwith a line break"])
        let xml = document.xml()
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))
        #expect(xml.contains("text=\"A &amp; B &lt;c&gt; &quot;d&quot;\""))
        #expect(xml.contains("xmlUrl=\"https://a.example/feed?x=1&amp;y=&lt;2&gt;\""))
        let back = try OPMLDocument.parse(Data(xml.utf8))
        #expect(back == document)
        #expect(back.title == "Round & trip")
        // Depth first: a folder's feeds and subfolders in the order they were first named.
        #expect(back.feeds.map(\.url) == [feeds[0].url, feeds[1].url, feeds[3].url, feeds[2].url])
        #expect(
            Set(back.feeds.map { $0.folderPath + [$0.url, $0.title, $0.siteURL ?? ""] })
                == Set(
                    feeds.map { $0.folderPath + [$0.url, $0.title, $0.siteURL ?? ""] }))
    }

    @Test func brokenOrForeignDocumentsAreClearErrors() {
        func message(_ text: String) -> String? {
            do {
                _ = try OPMLDocument.parse(Data(text.utf8))
                return nil
            } catch let error as OPMLError {
                return error.message
            } catch {
                return "unexpected \(error)"
            }
        }
        #expect(message("") == "not an OPML document: it is empty")
        #expect(message("  \n") == "not an OPML document: it is empty")
        #expect(
            message("<rss version=\"2.0\"><channel/></rss>") == "not an OPML document: its root element is <rss>")
        #expect(message("<opml version=\"2.0\"><head/></opml>") == "not an OPML document: it has no <body>")
        let cutOff = message("<opml version=\"2.0\"><body><outline text=\"a\" xmlUrl=\"https://a.example/\"/>")
        #expect(cutOff?.hasPrefix("not an OPML document: ") == true)
        let mismatched = message("<opml><body><outline text=\"a\"></body></opml>")
        #expect(mismatched?.hasPrefix("not an OPML document: ") == true)
        #expect(message("this is not XML at all")?.hasPrefix("not an OPML document: ") == true)
        let entities = """
            <?xml version="1.0"?>
            <!DOCTYPE opml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>
            <opml><body><outline text="&b;" xmlUrl="https://a.example/"/></body></opml>
            """
        #expect(message(entities) == "not accepted: the document declares entities")
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE opml SYSTEM "file:///etc/passwd">
            <opml><body><outline text="x" xmlUrl="https://a.example/"/></body></opml>
            """
        #expect(message(external) == nil)
    }

    @Test func outlinesWithoutTextFallBackToTheirTitleOrURL() throws {
        let text = """
            <opml version="1.0"><body>
            <outline xmlUrl="https://no-title.example/feed"/>
            <outline text="  " title="From title" xmlUrl="https://t.example/feed"/>
            </body></opml>
            """
        let document = try OPMLDocument.parse(Data(text.utf8))
        #expect(document.feeds.map(\.title) == ["https://no-title.example/feed", "From title"])
        #expect(document.title == "")
    }
}
