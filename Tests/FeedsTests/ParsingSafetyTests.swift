import Foundation
import Testing

@testable import Feeds

/// What a hostile or broken document must not do: expand entities, read files, pass for a
/// feed, or crash.
@Suite struct ParsingSafetyTests {
    static let url = URL(string: "https://example.com/feed.xml")!

    func failure(_ text: String) -> FeedParseError? {
        failure(Data(text.utf8))
    }

    func failure(_ data: Data) -> FeedParseError? {
        do {
            _ = try FeedParser.parse(data, url: Self.url)
            return nil
        } catch {
            return error as? FeedParseError
        }
    }

    @Test func billionLaughsExpandsNothingAndFinishesFast() throws {
        var subset = #"<!ENTITY lol "lol">"#
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            subset += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [\(subset)]>
            <rss version="2.0"><channel><title>&lol9;</title><item><title>x &lol9; y</title><guid>1</guid></item></channel></rss>
            """
        let start = Date()
        let document = try FeedParser.parse(Data(text.utf8), url: Self.url)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(document.title == "&lol9;")
        #expect(document.entries[0].title == "x &lol9; y")
    }

    @Test func anExternalEntityIsNeverRead() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd"> <!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;]>
            <rss version="2.0"><channel><title>t&xxe;</title><item><description>&xxe;</description><guid>g</guid></item></channel></rss>
            """
        let document = try FeedParser.parse(Data(text.utf8), url: Self.url)
        #expect(document.title == "t&xxe;")
        let summary = try #require(document.entries[0].summary)
        #expect(summary == "&amp;xxe;")
        #expect(!summary.contains("root:"))
    }

    @Test func anExternalDTDIsNotFetchedAndTheDoctypeGoes() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
            <rss version="0.91"><channel><title>Old &amp; &eacute;</title></channel></rss>
            """
        #expect(try FeedParser.parse(Data(text.utf8), url: Self.url).title == "Old & é")
        let prepared = XMLRecovery.prepare(text).document
        #expect(!prepared.contains("DOCTYPE"))
    }

    @Test func emptyDocuments() {
        #expect(failure(Data())?.code == .empty)
        #expect(failure("  \n\t ")?.code == .empty)
        #expect(failure(Data([0xEF, 0xBB, 0xBF]))?.code == .empty)
        #expect(failure("<?xml version=\"1.0\"?>\n<!-- nothing -->")?.code == .empty)
        #expect(failure(Data())?.description == "https://example.com/feed.xml: empty document")
    }

    @Test func truncatedDocuments() {
        let whole = #"<rss version="2.0"><channel><title>T</title><item><title>One</title></item></channel></rss>"#
        for cut in [20, 40, 60, whole.count - 12] {
            let error = failure(String(whole.prefix(cut)))
            #expect(error?.code == .truncated, "cut at \(cut): \(String(describing: error))")
            #expect(error?.reason == "truncated document: <rss> never closes")
        }
        let atom = #"<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id>"#
        #expect(failure(atom)?.code == .truncated)
    }

    /// Decision: a root end tag cut before its `>` is repaired (everything it holds has come);
    /// a root end tag cut any earlier (`</rs`) is truncation.
    @Test func aRootEndTagMissingOnlyItsBracketIsRepaired() throws {
        let text = #"<rss version="2.0"><channel><item><guid>a</guid></item></channel></rss"#
        #expect(try FeedParser.parse(Data((text + "\n\n").utf8), url: Self.url).entries.count == 1)
        #expect(failure(String(text.dropLast(1)))?.code == .truncated)
    }

    @Test func brokenXMLNamesItsLine() {
        let error = failure("<rss version=\"2.0\">\n<channel>\n<title>a</wrong>\n</channel></rss>")
        #expect(error?.code == .brokenXML)
        #expect(
            error?.reason == "broken XML at line 3: an end tag that does not match its start tag (libxml2 error 76)")
    }

    @Test func anHTMLPageIsNotAFeed() {
        let page = "<!DOCTYPE html>\n<html><head><title>Blog</title></head><body><p>Hi</p></body></html>"
        #expect(failure(page)?.reason == "not a feed: an HTML page")
        #expect(failure(page)?.code == .notAFeed)
        #expect(FeedParser.isHTML(Data(page.utf8)))
        #expect(FeedParser.isHTML(Data("\u{FEFF}  <!-- x --><HTML lang=en>".utf8)))
        #expect(!FeedParser.isHTML(Data("<rss version=\"2.0\"></rss>".utf8)))
        // XHTML parses as XML, and is still a page.
        #expect(
            failure(#"<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>"#)?.reason == "not a feed: an HTML page"
        )
    }

    @Test func otherDocumentsThatAreNoFeed() {
        #expect(failure("<note><to>Tove</to></note>")?.reason == "not a feed: XML whose root is <note>")
        #expect(failure("Just some text")?.reason == "not a feed: neither XML nor JSON")
        #expect(failure(#"{"name": "not a feed"}"#)?.reason == "not a feed: JSON that is not a JSON Feed")
        #expect(failure("[1, 2]")?.code == .brokenJSON)
        #expect(failure(#"{"version": "https://jsonfeed.org/version/1", "items": [}"#)?.code == .brokenJSON)
    }

    @Test func aDocumentOverTheSizeBoundIsRefused() {
        let data = Data(count: FeedParser.maximumSize + 1)
        #expect(failure(data)?.code == .tooLarge)
    }

    @Test func anUndeclaredNamespacePrefixDoesNotLoseTheFeed() throws {
        let text =
            #"<rss version="2.0"><channel><title>T</title><foo:bar x:y="1">z</foo:bar><item><guid>g</guid></item></channel></rss>"#
        let document = try FeedParser.parse(Data(text.utf8), url: Self.url)
        #expect(document.title == "T")
        #expect(document.entries.map(\.identity) == ["g"])
    }

    @Test func garbageAfterTheRootDoesNotLoseTheFeed() throws {
        let text = #"<rss version="2.0"><channel><title>T</title></channel></rss><script>x</script>"#
        #expect(try FeedParser.parse(Data(text.utf8), url: Self.url).title == "T")
    }
}
