import Foundation
import Testing

@testable import Feeds

/// `EntryIdentity`'s rule, through documents the tests write.
@Suite struct ParsingIdentityTests {
    static let url = URL(string: "https://example.com/feed.xml")!

    func identities(_ items: String) throws -> [String] {
        let text = #"<rss version="2.0"><channel><title>T</title>"# + items + "</channel></rss>"
        return try FeedParser.parse(Data(text.utf8), url: Self.url).entries.map(\.identity)
    }

    @Test func theGuidTrimmedIsTheIdentity() throws {
        #expect(try identities("<item><guid>  abc-123 \n</guid></item>") == ["abc-123"])
    }

    @Test func httpAndHTTPSIdsAreTheSameIdentity() throws {
        let before = try identities("<item><guid>http://example.com/post/1</guid></item>")
        let after = try identities("<item><guid>HTTPS://example.com/post/1</guid></item>")
        #expect(before == ["example.com/post/1"])
        #expect(after == before)
        #expect(EntryIdentity.folded("ftp://example.com/x") == "ftp://example.com/x")
        #expect(EntryIdentity.folded("urn:uuid:1") == "urn:uuid:1")
    }

    @Test func withoutAnIdTheLinkAndPublishedDate() throws {
        let items = """
            <item><link>https://example.com/a</link><pubDate>Thu, 05 Nov 2026 14:30:00 GMT</pubDate></item>
            <item><link>http://example.com/b</link></item>
            """
        #expect(try identities(items) == ["example.com/a 2026-11-05T14:30:00Z", "example.com/b"])
    }

    @Test func theDigestReadsWhatTheFeedWroteNotWhatTheSanitizerMade() throws {
        let identity = try identities(
            "<item><title>T</title><description>&lt;p onclick='x'&gt;Hi&lt;/p&gt;</description></item>")
        let expected = FNV1a.hash(Array("T".utf8) + [0] + Array("<p onclick='x'>Hi</p>".utf8))
        #expect(identity == ["digest:" + EntryIdentity.hex(expected)])
    }

    @Test func withNeitherADigestOfTitleAndContent() throws {
        let one = try identities("<item><title>Hello</title><description>World</description></item>")
        let same = try identities("<item><title>Hello</title><description>World</description></item>")
        let other = try identities("<item><title>Hello</title><description>World!</description></item>")
        #expect(one == same)
        #expect(one != other)
        #expect(one[0].hasPrefix("digest:"))
        #expect(one[0].count == "digest:".count + 16)
        // FNV-1a 64's published test vectors.
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(EntryIdentity.hex(0xaf63_dc4c_8601_ec8c) == "af63dc4c8601ec8c")
    }

    @Test func duplicateIdsAreDisambiguatedTheSameWayEveryTime() throws {
        let items = """
            <item><guid>x</guid><title>1</title></item>
            <item><guid>x</guid><title>2</title></item>
            <item><guid>x#2</guid><title>3</title></item>
            <item><guid>http://x</guid><title>4</title></item>
            """
        let first = try identities(items)
        #expect(first == ["x", "x#3", "x#2", "x#4"])
        #expect(try identities(items) == first)
    }

    @Test func everyFormatFillsTheIdentity() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
            <entry><id>https://example.com/e/1</id><title>One</title></entry>
            <entry><title>Two</title><link href="https://example.com/e/2"/><updated>2026-11-05T14:30:00Z</updated></entry>
            <entry><link href="https://example.com/e/3"/><published>2026-11-05T14:30:00Z</published></entry>
            </feed>
            """
        let document = try FeedParser.parse(Data(atom.utf8), url: Self.url)
        // The updated date never counts: an entry edited in place keeps its identity.
        #expect(
            document.entries.map(\.identity) == [
                "example.com/e/1", "example.com/e/2", "example.com/e/3 2026-11-05T14:30:00Z",
            ])
        let json =
            #"{"version":"https://jsonfeed.org/version/1","title":"J","items":[{"id":42},{"id":"42"},{"id":1.0}]}"#
        let feed = try FeedParser.parse(Data(json.utf8), url: Self.url)
        #expect(feed.entries.map(\.identity) == ["42", "42#2", "1"])
    }

    /// An identity's date is Foundation's ISO 8601 in UTC to the second: identities made by
    /// earlier builds (a hand-written formatter) must not move.
    @Test func rfc3339OfDates() {
        #expect(Date(timeIntervalSince1970: 0).formatted(.iso8601) == "1970-01-01T00:00:00Z")
        #expect(Date(timeIntervalSince1970: 1_793_889_000.75).formatted(.iso8601) == "2026-11-05T14:30:00Z")
        #expect(Date(timeIntervalSince1970: -1).formatted(.iso8601) == "1969-12-31T23:59:59Z")
        #expect(Date(timeIntervalSince1970: 951_782_400).formatted(.iso8601) == "2000-02-29T00:00:00Z")
    }
}
