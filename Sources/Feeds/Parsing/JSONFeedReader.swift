import Foundation

/// Reads JSON Feed 1.0 and 1.1 with `JSONDecoder`.
///
/// Decoding is forgiving field by field: a field of the wrong type is absent rather than the
/// whole feed lost, and an item that is not an object is skipped. An item's id may be a
/// string or a number (its digits); its link is `url`, else `external_url`; its content is
/// `content_html`, else `content_text` escaped into HTML; its author is its `authors` (1.1)
/// joined with ", ", else its `author` (1.0), else the feed's. Relative URLs in items resolve
/// against `home_page_url` (itself resolved against the feed's URL), else the feed's URL.
enum JSONFeedReader {
    static func read(_ data: Data, url: URL) throws -> FeedDocument {
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: data)
        } catch let error as DecodingError {
            throw FeedParseError(url: url, code: .brokenJSON, reason: "broken JSON: \(Self.describe(error))")
        }
        let isJSONFeed = payload.version?.contains("jsonfeed.org") ?? (payload.items != nil)
        guard isJSONFeed, let items = payload.items else {
            throw FeedParseError(url: url, code: .notAFeed, reason: "not a feed: JSON that is not a JSON Feed")
        }
        let home = payload.homePageURL.flatMap { LinkResolver.link($0, against: url) }
        let base = home.flatMap { URL(string: $0) } ?? url
        let feedAuthor = Author.names(payload.authors, payload.author)
        let entries = items.compactMap(\.value).map { item in
            let link = (item.url ?? item.externalURL).flatMap { LinkResolver.link($0, against: base) }
            let content = FeedMarkup.html(item.contentHTML, base: base) ?? FeedMarkup.escapedHTML(item.contentText)
            let summary = FeedMarkup.escapedHTML(item.summary)
            let title = HTMLText.collapsingWhitespace(item.title ?? "")
            let published = FeedMarkup.date(item.datePublished)
            return EntryDocument(
                identity: EntryIdentity.identity(
                    id: item.id, link: link, published: published, title: item.title ?? "",
                    content: item.contentHTML ?? item.contentText ?? item.summary),
                title: title, link: link, author: Author.names(item.authors, item.author) ?? feedAuthor,
                summary: summary, content: content, published: published, updated: FeedMarkup.date(item.dateModified),
                enclosures: (item.attachments ?? []).compactMap(\.value).compactMap {
                    FeedMarkup.enclosure(url: $0.url, type: $0.mimeType, length: $0.size.map(String.init), base: base)
                })
        }
        let title = payload.title.map(HTMLText.collapsingWhitespace)
        return FeedDocument(
            kind: .jsonFeed, title: title?.isEmpty == false ? title : nil, siteURL: home,
            nextURL: payload.nextURL.flatMap { LinkResolver.link($0, against: url) },
            entries: EntryIdentity.disambiguated(entries),
            feedURL: payload.feedURL.flatMap { LinkResolver.link($0, against: url) })
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        @unknown default: return "\(error)"
        }
    }

    struct Payload: Decodable {
        var version: String?
        var title: String?
        var homePageURL: String?
        var nextURL: String?
        var feedURL: String?
        var author: Author?
        var authors: [Author]?
        var items: [Lossy<Item>]?

        enum CodingKeys: String, CodingKey {
            case version, title, author, authors, items
            case homePageURL = "home_page_url"
            case nextURL = "next_url"
            case feedURL = "feed_url"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            version = container.lenient(String.self, .version)
            title = container.lenient(String.self, .title)
            homePageURL = container.lenient(String.self, .homePageURL)
            nextURL = container.lenient(String.self, .nextURL)
            feedURL = container.lenient(String.self, .feedURL)
            author = container.lenient(Author.self, .author)
            authors = container.lenient([Author].self, .authors)
            items = container.lenient([Lossy<Item>].self, .items)
        }
    }

    struct Item: Decodable {
        var id: String?
        var url: String?
        var externalURL: String?
        var title: String?
        var contentHTML: String?
        var contentText: String?
        var summary: String?
        var datePublished: String?
        var dateModified: String?
        var author: Author?
        var authors: [Author]?
        var attachments: [Lossy<Attachment>]?

        enum CodingKeys: String, CodingKey {
            case id, url, title, summary, author, authors, attachments
            case externalURL = "external_url"
            case contentHTML = "content_html"
            case contentText = "content_text"
            case datePublished = "date_published"
            case dateModified = "date_modified"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = container.lenient(FlexibleID.self, .id)?.value
            url = container.lenient(String.self, .url)
            externalURL = container.lenient(String.self, .externalURL)
            title = container.lenient(String.self, .title)
            contentHTML = container.lenient(String.self, .contentHTML)
            contentText = container.lenient(String.self, .contentText)
            summary = container.lenient(String.self, .summary)
            datePublished = container.lenient(String.self, .datePublished)
            dateModified = container.lenient(String.self, .dateModified)
            author = container.lenient(Author.self, .author)
            authors = container.lenient([Author].self, .authors)
            attachments = container.lenient([Lossy<Attachment>].self, .attachments)
        }
    }

    struct Author: Decodable {
        var name: String?

        /// 1.1's `authors` joined, else 1.0's `author`, else `nil`.
        static func names(_ authors: [Author]?, _ author: Author?) -> String? {
            let names = (authors ?? []).compactMap { $0.name?.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
            if !names.isEmpty { return names.joined(separator: ", ") }
            guard let name = author?.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
                return nil
            }
            return name
        }
    }

    struct Attachment: Decodable {
        var url: String?
        var mimeType: String?
        var size: Int?

        enum CodingKeys: String, CodingKey {
            case url
            case mimeType = "mime_type"
            case size = "size_in_bytes"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            url = container.lenient(String.self, .url)
            mimeType = container.lenient(String.self, .mimeType)
            size =
                container.lenient(Int.self, .size) ?? container.lenient(Double.self, .size).flatMap { Int(exactly: $0) }
        }
    }

    /// An id as JSON Feed 1.0 feeds send it: a string, or a number written as its digits.
    struct FlexibleID: Decodable {
        var value: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                value = string
            } else if let integer = try? container.decode(Int64.self) {
                value = String(integer)
            } else if let integer = try? container.decode(UInt64.self) {
                value = String(integer)
            } else {
                let number = try container.decode(Double.self)
                value = number == number.rounded() && abs(number) < 1e18 ? String(Int64(number)) : String(number)
            }
        }
    }

    /// A value that is `nil` rather than an error when it does not decode.
    struct Lossy<Value: Decodable>: Decodable {
        var value: Value?

        init(from decoder: any Decoder) throws {
            value = try? Value(from: decoder)
        }
    }
}

extension KeyedDecodingContainer {
    /// The value at `key`, or `nil` when it is missing, null or of another type.
    fileprivate func lenient<Value: Decodable>(_ type: Value.Type, _ key: Key) -> Value? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}
