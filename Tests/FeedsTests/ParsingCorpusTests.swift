import Foundation
import Testing

@testable import Feeds

/// Every feed in the shared fixtures, parsed and checked against what the file says.
@Suite(.enabled(if: FeedFixtures.available, "needs ../shared/fixtures beside the checkout"))
struct ParsingCorpusTests {
    func parse(_ path: String) throws -> FeedDocument {
        try FeedParser.parse(FeedFixtures.data(path), url: URL(string: "https://fixtures.example/\(path)")!)
    }

    /// Kind and entry count of every file, so a fixture added later fails until it is listed.
    static let expected: [String: (FeedKind, Int)] = [
        "feeds/real/feedkit-Atom.xml": (.atom, 1),
        "feeds/real/feedkit-Podcast.xml": (.rss2, 2),
        "feeds/real/feedkit-RSS.xml": (.rss2, 2),
        "feeds/real/feedparser-docs-atom10.xml": (.atom, 1),
        "feeds/real/feedparser-docs-rss10.rdf": (.rss1, 1),
        "feeds/real/feedparser-docs-rss20.xml": (.rss2, 1),
        "feeds/real/rsparser-EMarley.rss": (.rss2, 10),
        "feeds/real/rsparser-KatieFloyd.rss": (.rss2, 20),
        "feeds/real/rsparser-OneFootTsunami.atom": (.atom, 25),
        "feeds/real/rsparser-allthis.atom": (.rss2, 12),
        "feeds/real/rsparser-manton.rss": (.rss2, 10),
        "feeds/real/rsparser-scriptingNews.rss": (.rss2, 50),
        "feeds/real/rsparser-theomnishow.rss": (.rss2, 4),
        "feeds/edge/feedparser-encoding-utf-8-bom.xml": (.rss2, 0),
        "feeds/edge/feedparser-entities-doesnotexist.xml": (.rss2, 0),
        "feeds/edge/feedparser-illformed-aaa_illformed.xml": (.rss2, 0),
        "feeds/edge/feedparser-illformed-rss_item_link_corrupted_ampersands.xml": (.rss2, 1),
        "feeds/edge/feedparser-rss-item_enclosure_multiple.xml": (.rss2, 1),
        "feeds/edge/feedparser-rss-item_guid_not_permalink.xml": (.rss2, 1),
        "feeds/edge/gofeed-atom-entry_content_xml_base_inherit.xml": (.atom, 1),
        "feeds/edge/gofeed-rss_channel_item_description_mixed_cdata.xml": (.rss2, 1),
        "feeds/edge/gofeed-rss_channel_item_pubDate.xml": (.rss2, 1),
        "feeds/edge/gofeed-rss_feed_bom.xml": (.rss2, 0),
        "feeds/edge/gofeed-rss_feed_leading_spaces.xml": (.rss2, 0),
        "feeds/edge/gofeed-version_rss_missing.xml": (.rss2, 0),
        "jsonfeed/feedkit-feed.json": (.jsonFeed, 2),
        "jsonfeed/rsparser-allthis.json": (.jsonFeed, 12),
        "jsonfeed/rsparser-inessential.json": (.jsonFeed, 20),
        "jsonfeed/spec-v1.1-microblog.json": (.jsonFeed, 1),
        "jsonfeed/spec-v1.1-podcast.json": (.jsonFeed, 1),
        "jsonfeed/spec-v1.1-simple.json": (.jsonFeed, 2),
    ]

    /// Files that are documented failures, with the error they give.
    static let failing: [String: FeedParseError.Code] = ["feeds/edge/gofeed-unknown_feed.xml": .notAFeed]

    @Test func everyFileParsesToItsKindAndCountWithUniqueNonEmptyIdentities() throws {
        var seen = 0
        for folder in ["feeds/real", "feeds/edge", "jsonfeed"] {
            for name in try FeedFixtures.files(in: folder) where !name.hasSuffix(".expected.json") {
                let path = "\(folder)/\(name)"
                seen += 1
                if let code = Self.failing[path] {
                    #expect(throws: FeedParseError.self, "\(path)") { try parse(path) }
                    do { _ = try parse(path) } catch let error as FeedParseError { #expect(error.code == code) }
                    continue
                }
                let (kind, count) = try #require(Self.expected[path], "\(path) is not listed")
                let document = try parse(path)
                #expect(document.kind == kind, "\(path)")
                #expect(document.entries.count == count, "\(path)")
                let identities = document.entries.map(\.identity)
                #expect(Set(identities).count == identities.count, "\(path)")
                #expect(identities.allSatisfy { !$0.isEmpty }, "\(path)")
            }
        }
        #expect(seen == Self.expected.count + Self.failing.count)
    }

    @Test func feedKitAtom() throws {
        let document = try parse("feeds/real/feedkit-Atom.xml")
        #expect(document.title == "dive into mark")
        #expect(document.siteURL == "http://example.org/")
        let entry = try #require(document.entries.first)
        #expect(entry.identity == "tag:example.org,2003:3.2397")
        #expect(entry.title == "Atom draft-07 snapshot")
        #expect(entry.link == "http://example.org/2005/04/02/atom")
        #expect(entry.author == "Mark Pilgrim")
        #expect(entry.published == instant("2003-12-13T12:29:29Z"))
        #expect(entry.updated == instant("2005-07-31T12:29:29Z"))
        #expect(
            entry.enclosures == [
                Enclosure(url: "http://example.org/audio/ph34r_my_podcast.mp3", type: "audio/mpeg", length: 1337)
            ])
        // Out-of-line content (`src`) is a reference, not content.
        #expect(entry.content == nil)
        #expect(entry.summary == "An overview of Atom 1.0")
    }

    @Test func feedKitRSSUsesTheGuidThatIsNoPermalinkAsIdentityOnly() throws {
        let document = try parse("feeds/real/feedkit-RSS.xml")
        #expect(document.title == "Iris")
        #expect(document.siteURL == "http://www.iris.news/")
        let first = document.entries[0]
        #expect(first.identity == "tag:dallas.example.com,4131:news")
        #expect(first.title == "Seventh Heaven! Ryan Hurls Another No Hitter")
        #expect(first.link == "http://dallas.example.com/1991/05/02/nolan.htm")
        #expect(first.author == "Joe Bob Briggs")
        #expect(first.published == instant("2007-10-05T15:00:00Z"))  // 09:00 CST
        #expect(
            first.enclosures == [
                Enclosure(url: "http://dallas.example.com/joebob_050689.mp3", type: "audio/mpeg", length: 24_986_239)
            ])
        #expect(document.entries[1].identity == "dallas.example.com/item/1234")
    }

    @Test func feedKitPodcastItemsWithNoIdOrLinkGetDigests() throws {
        let document = try parse("feeds/real/feedkit-Podcast.xml")
        #expect(document.title == "Test Podcast")
        #expect(document.entries.map(\.title) == ["Episode 1: Introduction", "Episode 2: Advanced Topics"])
        #expect(document.entries.allSatisfy { $0.identity.hasPrefix("digest:") && $0.link == nil })
        #expect(document.entries[0].summary == "This is the first episode of our test podcast.")
    }

    @Test func feedparserAtomSampleAppliesXMLBaseAndStripsTheStyleTrick() throws {
        let document = try parse("feeds/real/feedparser-docs-atom10.xml")
        #expect(document.title == "Sample Feed")
        #expect(document.siteURL == "http://example.org/")
        let entry = try #require(document.entries.first)
        #expect(entry.link == "http://example.org/entry/3")
        #expect(entry.author == "Mark Pilgrim")
        #expect(entry.published == instant("2005-11-09T00:23:47Z"))
        #expect(entry.updated == instant("2005-11-09T11:56:34Z"))
        #expect(entry.summary == "Watch out for nasty tricks")
        #expect(entry.content == "Watch out for <span> nasty tricks</span>")
        #expect(
            entry.enclosures == [Enclosure(url: "http://www.example.com/movie.mp4", type: "video/mpeg4", length: 42301)]
        )
    }

    @Test func feedparserRSS10ItemsSitOutsideTheChannel() throws {
        let document = try parse("feeds/real/feedparser-docs-rss10.rdf")
        #expect(document.kind == .rss1)
        #expect(document.title == "Sample Feed")
        #expect(document.siteURL == "http://www.example.org/")
        let entry = try #require(document.entries.first)
        #expect(entry.identity == "www.example.org/1")
        #expect(entry.title == "First of all")
        #expect(entry.link == "http://example.org/archives/2002/09/04.html#first_of_all")
        #expect(entry.author == "Aaron Swartz")
        #expect(entry.published == instant("2004-05-30T20:23:54Z"))
        #expect(entry.content?.contains(#"<a href="http://ln.hixie.ch/?start=1030823786&amp;count=1">"#) == true)
    }

    @Test func feedparserRSS20Sample() throws {
        let document = try parse("feeds/real/feedparser-docs-rss20.xml")
        let entry = try #require(document.entries.first)
        #expect(entry.identity == "example.org/guid/1")
        #expect(entry.title == "First item title")
        #expect(entry.link == "http://example.org/item/1")
        #expect(entry.author == "mark@example.org")
        #expect(entry.published == instant("2002-09-05T00:00:01Z"))
        #expect(entry.summary == "Watch out for <span>nasty tricks</span>")
        #expect(
            entry.enclosures == [
                Enclosure(url: "http://example.org/audio/demo.mp3", type: "audio/mpeg", length: 1_069_871)
            ])
    }

    @Test func mediumFeedWithCDATAAndCreator() throws {
        let document = try parse("feeds/real/rsparser-EMarley.rss")
        #expect(document.title == "Stories by Liz Marley on Medium")
        let first = document.entries[0]
        #expect(first.identity == "medium.com/p/c44a41af38d1")
        #expect(first.title == "UI Automation & screenshots")
        #expect(
            first.link
                == "https://medium.com/@emarley/ui-automation-screenshots-c44a41af38d1?source=rss-b4981c59ffa5------2")
        #expect(first.author == "Liz Marley")
        #expect(first.published == Date(timeIntervalSince1970: 1_462_665_210))
        #expect(
            first.summary?.hasPrefix("<div><p>Here’s a partial collection of links from my talk today…</p>") == true)
        #expect(document.entries[1].title == "They didn’t.")
        #expect(document.entries[9].title == "This is a test.")
    }

    @Test func squarespaceFeed() throws {
        let document = try parse("feeds/real/rsparser-KatieFloyd.rss")
        #expect(document.siteURL == "http://www.katiefloyd.com")
        let first = document.entries[0]
        #expect(first.title == "Special Mac Power Users for Relay FM Members")
        #expect(first.link == "http://tracking.feedpress.it/link/980/4243452")
        #expect(first.author == "Katie Floyd")
        #expect(first.published == Date(timeIntervalSince1970: 1_472_163_600))
        #expect(document.entries[19].title == #"Mac Power Users #330: I'm not familiar with "Wookieepedia""#)
    }

    @Test func wordPressAtomWithXMLBaseOnEntries() throws {
        let document = try parse("feeds/real/rsparser-OneFootTsunami.atom")
        #expect(document.title == "One Foot Tsunami")
        #expect(document.siteURL == "http://onefoottsunami.com")
        let first = document.entries[0]
        #expect(first.identity == "onefoottsunami.com/?p=14863")
        #expect(first.title == "Link: Pillow Fight Leaves 24 Concussed")
        #expect(first.author == "Paul Kafasis")
        #expect(first.published == Date(timeIntervalSince1970: 1_441_722_101))
        #expect(first.updated == Date(timeIntervalSince1970: 1_441_649_651))
        #expect(document.entries[1].link == "http://onefoottsunami.com/2015/09/07/perverse-incentives-2/")
        #expect(document.entries[24].title == "Planes, “Planes”, and Automated Fare Pricing")
    }

    @Test func allThisAtomIsRSSByItsContent() throws {
        let document = try parse("feeds/real/rsparser-allthis.atom")
        #expect(document.kind == .rss2)
        #expect(document.siteURL == "http://leancrew.com/all-this")
        #expect(document.entries[0].title == "Last thoughts on modifier keys")
        #expect(document.entries[0].link == "http://leancrew.com/all-this/2017/11/last-thoughts-on-modifier-keys/")
        #expect(document.entries[0].author == "Dr. Drang")
        #expect(document.entries[0].published == Date(timeIntervalSince1970: 1_511_471_309))
    }

    @Test func untitledMicroblogAndScriptingNewsItems() throws {
        let manton = try parse("feeds/real/rsparser-manton.rss")
        #expect(manton.title == "Manton Reece")
        #expect(manton.entries[0].title == "")
        #expect(manton.entries[0].identity == "www.manton.org/?p=3071")
        #expect(manton.entries[0].link == "http://www.manton.org/2015/09/3071.html")
        #expect(manton.entries[0].published == Date(timeIntervalSince1970: 1_443_191_200))
        let scripting = try parse("feeds/real/rsparser-scriptingNews.rss")
        #expect(scripting.entries[0].link == "http://scripting.com/2017/06/26.html#a080605")
        #expect(scripting.entries[0].published == Date(timeIntervalSince1970: 1_498_479_605))
        #expect(scripting.entries.filter { !$0.enclosures.isEmpty }.count == 1)
    }

    @Test func omniShowEnclosures() throws {
        let document = try parse("feeds/real/rsparser-theomnishow.rss")
        #expect(document.title == "The Omni Show")
        #expect(document.feedURL == "https://theomnishow.omnigroup.com/rss/")
        #expect(
            document.entries.map { $0.enclosures.first?.length } == [24_388_318, 24_985_882, 24_354_550, 22_275_279])
        #expect(document.entries.allSatisfy { $0.enclosures.count == 1 && $0.enclosures[0].type == "audio/mpeg" })
        #expect(document.entries.allSatisfy { $0.identity.hasPrefix("theomnishow.omnigroup.com/episode/") })
        let first = document.entries[0]
        #expect(first.title == "Andrea McVittie, User Experience Designer")
        #expect(first.author == "The Omni Group")
        #expect(first.published == instant("2017-12-06T14:00:00Z"))
        #expect(first.enclosures[0].url == "https://d2vstsfo8knv0p.cloudfront.net/audio/the-omni-show-004.mp3")
    }

    // MARK: Edge cases

    @Test func edgeCasesGiveTheirDocumentedResults() throws {
        #expect(try parse("feeds/edge/feedparser-entities-doesnotexist.xml").title == "testing &doesnotexist; entity")
        #expect(try parse("feeds/edge/gofeed-rss_feed_bom.xml").title == "Feed Title")
        #expect(try parse("feeds/edge/gofeed-rss_feed_leading_spaces.xml").title == "Feed Title")
        #expect(try parse("feeds/edge/feedparser-encoding-utf-8-bom.xml").entries.isEmpty)
        // The root's end tag is cut before its `>`: repaired, and the link recovered.
        #expect(try parse("feeds/edge/feedparser-illformed-aaa_illformed.xml").kind == .rss2)
        let corrupted = try parse("feeds/edge/feedparser-illformed-rss_item_link_corrupted_ampersands.xml")
        #expect(corrupted.entries.first?.link == "http://link/get?a=1&b=2")
        let multiple = try parse("feeds/edge/feedparser-rss-item_enclosure_multiple.xml").entries[0].enclosures
        #expect(multiple.count == 2)
        #expect(multiple[1] == Enclosure(url: "http://example.com/2", type: "image/gif", length: 200_000))
        let notPermalink = try parse("feeds/edge/feedparser-rss-item_guid_not_permalink.xml").entries[0]
        #expect(notPermalink.link == nil)
        #expect(notPermalink.identity == "guid.example.com/")
        do {
            _ = try parse("feeds/edge/gofeed-unknown_feed.xml")
            Issue.record("a <note> parsed as a feed")
        } catch let error as FeedParseError {
            #expect(error.reason == "not a feed: XML whose root is <note>")
            #expect(error.description.hasPrefix("https://fixtures.example/feeds/edge/gofeed-unknown_feed.xml: "))
        }
    }

    /// gofeed's expected parses, compared field by field with ours.
    @Test func gofeedExpectations() throws {
        func expected(_ name: String) throws -> [String: Any] {
            try #require(
                JSONSerialization.jsonObject(with: FeedFixtures.data("feeds/edge/\(name).expected.json"))
                    as? [String: Any])
        }
        let base = try expected("gofeed-atom-entry_content_xml_base_inherit")
        let baseContent = ((base["entries"] as? [[String: Any]])?[0]["content"] as? [String: Any])?["value"] as? String
        let inherited = try parse("feeds/edge/gofeed-atom-entry_content_xml_base_inherit.xml").entries[0].content
        #expect(inherited == baseContent)
        #expect(baseContent == #"Example <a href="http://example.com/test/test.html">test</a>"#)

        let mixed = try expected("gofeed-rss_channel_item_description_mixed_cdata")
        let mixedItem = try #require((mixed["items"] as? [[String: Any]])?.first)
        let parsedMixed = try parse("feeds/edge/gofeed-rss_channel_item_description_mixed_cdata.xml")
        #expect(parsedMixed.title == mixed["title"] as? String)
        #expect(parsedMixed.entries[0].title == mixedItem["title"] as? String)
        #expect(parsedMixed.entries[0].summary == mixedItem["description"] as? String)

        let date = try expected("gofeed-rss_channel_item_pubDate")
        let parsedDate = (date["items"] as? [[String: Any]])?[0]["pubDateParsed"] as? String
        #expect(
            try parse("feeds/edge/gofeed-rss_channel_item_pubDate.xml").entries[0].published == parsedDate.map(instant))

        let missing = try expected("gofeed-version_rss_missing")
        #expect((missing["items"] as? [Any])?.isEmpty == true)
        #expect(try parse("feeds/edge/gofeed-version_rss_missing.xml").entries.isEmpty)
    }

    /// Every prefix of a real feed is a clear error, never a crash or a feed that lost its end;
    /// only the whole file (and the file cut inside its final `</rss>`'s `>`) parses.
    @Test func everyPrefixOfAFeedIsAClearError() throws {
        let data = try FeedFixtures.data("feeds/real/feedparser-docs-rss20.xml")
        let text = String(decoding: data, as: UTF8.self)
        let end = try #require(text.range(of: "</rss>", options: .backwards))
        let lastWhole = text.utf8.distance(from: text.startIndex, to: end.upperBound)
        for length in 0..<lastWhole {
            do {
                _ = try FeedParser.parse(data.prefix(length), url: URL(string: "https://fixtures.example/cut")!)
                #expect(length == lastWhole - 1, "the first \(length) bytes parsed as a feed")
            } catch let error as FeedParseError {
                #expect([.empty, .truncated, .brokenXML].contains(error.code), "\(length): \(error)")
            }
        }
        #expect(
            try FeedParser.parse(data.prefix(lastWhole), url: URL(string: "https://fixtures.example/")!).entries.count
                == 1)
        let json = try FeedFixtures.data("jsonfeed/spec-v1.1-simple.json")
        for length in 1..<json.count - 2 {
            #expect(throws: FeedParseError.self, "\(length)") {
                try FeedParser.parse(json.prefix(length), url: URL(string: "https://fixtures.example/cut.json")!)
            }
        }
    }

    // MARK: JSON Feed

    @Test func feedKitJSONFeedWithEveryField() throws {
        let document = try parse("jsonfeed/feedkit-feed.json")
        #expect(document.title == "Title")
        #expect(document.siteURL == "https://example.org/")
        #expect(document.nextURL == "https://example.org/feed.json?p=2")
        #expect(document.feedURL == "https://example.org/feed.json?p=1")
        let first = document.entries[0]
        #expect(first.identity == "therecord.co/chris-parrish")
        #expect(first.link == "http://therecord.co/chris-parrish")
        #expect(first.author == "Brent Simmons")  // the feed's author, the item having none
        #expect(
            first.summary
                == "Brent interviews Chris Parrish, co-host of The Record and one-half of Aged &amp; Distilled.")
        #expect(first.content?.hasPrefix(#"Chris has worked at <a href="http://adobe.com/">Adobe</a>"#) == true)
        #expect(first.published == instant("2014-05-09T19:04:00Z"))
        #expect(first.updated == instant("2014-05-09T21:04:00Z"))
        #expect(first.enclosures.map(\.length) == [63_207_998, 89_970_236])
        #expect(first.enclosures[0].type == "audio/x-m4a")
        #expect(document.entries[1].identity == "1")
    }

    @Test func realJSONFeeds() throws {
        let allThis = try parse("jsonfeed/rsparser-allthis.json")
        #expect(allThis.title == "And now it’s all this")
        #expect(allThis.siteURL == "http://leancrew.com/all-this/")
        #expect(allThis.entries[1].title == "My next Mac")
        #expect(allThis.entries[1].summary == "Apple isn't making it easy to choose a Mac and hasn't for a few years.")
        #expect(allThis.entries[1].author == "Dr. Drang")
        #expect(allThis.entries[1].published == Date(timeIntervalSince1970: 1_511_388_297))
        let inessential = try parse("jsonfeed/rsparser-inessential.json")
        #expect(inessential.entries[0].title == "James Dempsey and the Breakpoints Benefit App Camp for Girls")
        #expect(
            inessential.entries[0].link == "http://inessential.com/2017/06/02/james_dempsey_and_the_breakpoints_benefi")
        #expect(inessential.entries[0].published == Date(timeIntervalSince1970: 1_496_466_347))
        #expect(inessential.entries[0].author == "Brent Simmons")
    }

    @Test func jsonFeedSpecExamples() throws {
        let simple = try parse("jsonfeed/spec-v1.1-simple.json")
        #expect(simple.title == "My Example Feed")
        #expect(simple.entries.map(\.identity) == ["2", "1"])
        #expect(simple.entries[0].content == "This is a second item.")
        #expect(simple.entries[1].content == "<p>Hello, world!</p>")
        #expect(simple.entries[1].link == "https://example.org/initial-post")

        let microblog = try parse("jsonfeed/spec-v1.1-microblog.json")
        #expect(microblog.entries[0].title == "")
        #expect(microblog.entries[0].author == "Brent Simmons")
        #expect(microblog.entries[0].content == "Cats are neat. <br /><br />https://example.org/cats")
        #expect(microblog.entries[0].published == instant("2016-02-09T21:22:00Z"))

        let podcast = try parse("jsonfeed/spec-v1.1-podcast.json")
        let episode = podcast.entries[0]
        #expect(episode.published == instant("2014-05-09T21:04:00Z"))  // 14:04:00-07:00
        #expect(episode.content?.hasPrefix("Chris has worked at <a href=\"http://adobe.com/\">Adobe</a>") == true)
        #expect(
            episode.enclosures == [
                Enclosure(
                    url: "http://therecord.co/downloads/The-Record-sp1e1-ChrisParrish.m4a", type: "audio/x-m4a",
                    length: 89_970_236)
            ])
    }
}
