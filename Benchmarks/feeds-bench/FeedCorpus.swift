import Foundation

/// The generated feeds: RSS 2.0, Atom and JSON Feed in turn, each a window of `entries`
/// items, newest first, with HTML content made of invented words. A feed's `generation`
/// moves its window: each one adds `shift` entries at the top and drops as many at the
/// bottom, as a real feed does when it publishes.
///
/// Everything is derived from the feed's and the entry's numbers, so a document is the same
/// byte for byte whenever it is made again (its ETag too), and the search words' hit
/// counts are known: every word of `words` is in about one entry in eight; `rareWord` is in
/// the eighth entry of every twentieth feed only.
struct FeedCorpus: Sendable {
    let feeds: Int
    let entries: Int
    let shift = 5

    /// Invented, so that search hits only what the generator put there.
    static let words: [String] = {
        let onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st", "pl"]
        let nuclei = ["a", "e", "i", "o", "u", "ai", "ou"]
        let codas = ["n", "r", "l", "s", "th", "m", "x"]
        var words: [String] = []
        for onset in onsets {
            for nucleus in nuclei {
                for coda in codas
                where words.count < 300 && (onset.count + nucleus.count + coda.count).isMultiple(of: 2) {
                    words.append(onset + nucleus + coda + "a")
                }
            }
        }
        return words
    }()

    /// A word no other entry has: the search that hits few.
    static let rareWord = "quorvelline"
    /// A word of the list: the search that hits many (about one entry in eight).
    static var commonWord: String { words[0] }

    enum Format: CaseIterable {
        case rss, atom, json

        var contentType: String {
            switch self {
            case .rss: "application/rss+xml"
            case .atom: "application/atom+xml"
            case .json: "application/feed+json"
            }
        }
    }

    static func format(of feed: Int) -> Format { Format.allCases[feed % 3] }

    /// Where feed `feed` is served on every server.
    static func path(of feed: Int) -> String { "/feeds/\(feed).\(format(of: feed) == .json ? "json" : "xml")" }

    /// One entry's invented values.
    struct Item {
        var number: Int
        var title: String
        var html: String
        var author: String
        var date: Date
    }

    /// Entry `number` of feed `feed`: the same every time it is asked for.
    func item(feed: Int, number: Int) -> Item {
        var random = SeededGenerator(seed: UInt64(feed) &* 1_000_003 &+ UInt64(number) &* 7919 &+ 17)
        func word() -> String { Self.words[Int(random.next() % UInt64(Self.words.count))] }
        func phrase(_ count: Int) -> String { (0..<count).map { _ in word() }.joined(separator: " ") }
        let title = phrase(5).split(separator: " ").map { Self.capitalized(String($0)) }.joined(separator: " ")
        // Paragraphs of text, a link and emphasis: markup the sanitiser keeps and search skips
        // (the link's address is a word only in an attribute, never to be found).
        var html =
            "<p>\(phrase(14)) <a href=\"https://example.org/\(word())/\(number)\">\(phrase(3))</a> \(phrase(6)).</p>"
        html += "<p><em>\(phrase(4))</em> \(phrase(10))</p>"
        if feed.isMultiple(of: 20), number == 7 { html += "<p>\(Self.rareWord) \(phrase(3))</p>" }
        let date = Date(timeIntervalSince1970: 1_767_225_600 + Double(number) * 3600 + Double(feed) * 7)
        return Item(number: number, title: title, html: html, author: Self.capitalized(word()), date: date)
    }

    /// The document of feed `feed` after `generation` moves of its window.
    func document(feed: Int, generation: Int) -> (contentType: String, text: String) {
        let first = generation * shift
        let numbers = (first..<(first + entries)).reversed()
        let items = numbers.map { item(feed: feed, number: $0) }
        let format = Self.format(of: feed)
        switch format {
        case .rss: return (format.contentType, rss(feed: feed, items: items))
        case .atom: return (format.contentType, atom(feed: feed, items: items))
        case .json: return (format.contentType, json(feed: feed, items: items))
        }
    }

    private func site(_ feed: Int) -> String { "https://example.org/site-\(feed)/" }
    private func link(_ feed: Int, _ item: Item) -> String { "https://example.org/site-\(feed)/entry-\(item.number)" }
    private func title(_ feed: Int) -> String {
        "Feed \(feed) \(Self.capitalized(Self.words[feed % Self.words.count]))"
    }

    private func rss(feed: Int, items: [Item]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(title(feed))</title><link>\(site(feed))</link>
            <description>Generated for feeds-bench</description>

            """
        for item in items {
            text += "<item><title>\(item.title)</title><link>\(link(feed, item))</link>"
            text += "<guid isPermaLink=\"false\">feed-\(feed)-entry-\(item.number)</guid>"
            text += "<pubDate>\(Self.rfc822(item.date))</pubDate><author>\(item.author)@example.org</author>"
            text += "<description><![CDATA[\(item.html)]]></description></item>\n"
        }
        return text + "</channel></rss>\n"
    }

    private func atom(feed: Int, items: [Item]) -> String {
        var text = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>\(title(feed))</title>
            <id>urn:feeds-bench:\(feed)</id><updated>\(Self.iso8601(items.first?.date ?? Date()))</updated>
            <link rel="alternate" href="\(site(feed))"/>

            """
        for item in items {
            text += "<entry><title>\(item.title)</title><id>urn:feeds-bench:\(feed):\(item.number)</id>"
            text += "<link rel=\"alternate\" href=\"\(link(feed, item))\"/>"
            text += "<published>\(Self.iso8601(item.date))</published><updated>\(Self.iso8601(item.date))</updated>"
            text += "<author><name>\(item.author)</name></author>"
            text += "<content type=\"html\">\(Self.xmlEscaped(item.html))</content></entry>\n"
        }
        return text + "</feed>\n"
    }

    private func json(feed: Int, items: [Item]) -> String {
        var text = "{\"version\": \"https://jsonfeed.org/version/1.1\", \"title\": \"\(title(feed))\", "
        text += "\"home_page_url\": \"\(site(feed))\", \"items\": [\n"
        text += items.map { item in
            "{\"id\": \"feed-\(feed)-entry-\(item.number)\", \"url\": \"\(link(feed, item))\", "
                + "\"title\": \"\(item.title)\", \"date_published\": \"\(Self.iso8601(item.date))\", "
                + "\"authors\": [{\"name\": \"\(item.author)\"}], \"content_html\": \"\(Self.jsonEscaped(item.html))\"}"
        }.joined(separator: ",\n")
        return text + "]}\n"
    }

    private static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func jsonEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    static func rfc822(_ date: Date) -> String { CivilTime(secondsSince1970: Int(date.timeIntervalSince1970)).rfc822 }

    static func iso8601(_ date: Date) -> String { CivilTime(secondsSince1970: Int(date.timeIntervalSince1970)).iso8601 }

    /// `Word`: the first letter in upper case (every word is ASCII).
    static func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
}
