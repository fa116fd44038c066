import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads a fetched document into a `FeedDocument`, whatever its format: the format is told
/// from the content (never from the URL or the Content-Type, which are often wrong).
///
/// For example:
///
///     let document = try FeedParser.parse(data, url: feedURL, contentType: "application/rss+xml; charset=iso-8859-1")
///     document.kind          // .rss2
///     document.entries[0]    // title, link, dates, sanitised content, identity
///
/// JSON (after whitespace and a BOM) must be a JSON Feed. XML is decoded by `CharsetDecoder`,
/// repaired by `XMLRecovery`, then parsed by `XMLParser` without fetching anything: its root
/// decides the reader (`<rss>`, `<rdf:RDF>`, Atom's `<feed>`). The document is judged by what
/// was parsed, not by `parse()`'s answer, which on Linux is `true` for some broken input.
public enum FeedParser {
    /// The largest document read, in bytes (32 MiB): larger is an error, not a feed.
    public static let maximumSize = 32 << 20

    /// The document in `data`, fetched from `url` (what relative links resolve against) with
    /// the HTTP `contentType`, whose `charset` beats the XML declaration's.
    ///
    /// - Throws: `FeedParseError` naming `url` and what was wrong.
    public static func parse(_ data: Data, url: URL, contentType: String? = nil) throws -> FeedDocument {
        guard data.count <= maximumSize else {
            throw FeedParseError(
                url: url, code: .tooLarge, reason: "document too large: \(data.count) bytes, over \(maximumSize)")
        }
        let text = CharsetDecoder.decode(data, contentType: contentType).text
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        guard let first = start.first else {
            throw FeedParseError(url: url, code: .empty, reason: "empty document")
        }
        if first == "{" || first == "[" {
            return try JSONFeedReader.read(Data(start.utf8), url: url)
        }
        if isHTML(text: start) {
            throw FeedParseError(url: url, code: .notAFeed, reason: "not a feed: an HTML page")
        }
        guard first == "<" else {
            throw FeedParseError(url: url, code: .notAFeed, reason: "not a feed: neither XML nor JSON")
        }
        return try parseXML(text, url: url)
    }

    /// Whether `data` is an HTML page (a doctype, `<html>`, `<head>` or `<body>` first, after
    /// whitespace and comments), for `add` to look for the feeds it links to.
    public static func isHTML(_ data: Data) -> Bool {
        let head = CharsetDecoder.decode(data.prefix(4_096), contentType: nil).text
        return isHTML(text: head.drop { $0.isWhitespace || $0 == "\u{FEFF}" })
    }

    static func isHTML(text: Substring) -> Bool {
        var rest = text
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("<!--"), let end = rest.range(of: "-->") {
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<?xml"), let end = rest.range(of: "?>") {
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        let lowered = rest.prefix(20).lowercased()
        return ["<!doctype html", "<html", "<head", "<body"].contains { lowered.hasPrefix($0) }
    }

    static func parseXML(_ text: String, url: URL) throws -> FeedDocument {
        let (document, rootName) = XMLRecovery.prepare(text)
        guard let rootName else {
            throw FeedParseError(url: url, code: .empty, reason: "empty document: no root element")
        }
        let parser = XMLParser(data: Data(document.utf8))
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()
        if builder.tooDeep {
            throw FeedParseError(
                url: url, code: .brokenXML,
                reason: "elements nested deeper than \(XMLTreeBuilder.maximumDepth) levels at line \(parser.lineNumber)"
            )
        }
        let error =
            builder.error?.code ?? parser.parserError.map { ($0 as NSError).code }.flatMap { $0 < 200 ? $0 : nil }
        // libxml2's XML_ERR_DOCUMENT_END (5): the input ended inside the root, or has content
        // after it. libxml2 reports some end tags even for broken input, so the root closing is
        // not enough: any other error is judged too.
        let documentEnd = 5
        if let root = builder.root, builder.rootClosed, error == nil || error == documentEnd {
            return try read(root, rootName: rootName, url: url)
        }
        if builder.root == nil {
            throw FeedParseError(url: url, code: .empty, reason: "empty document: no root element")
        }
        // A whole document ends with `>` (its root's end tag, or a comment after it).
        let endsWhole = document.last { !$0.isWhitespace } == ">"
        if let error, error != documentEnd, endsWhole {
            throw FeedParseError(
                url: url, code: .brokenXML,
                reason: "broken XML at line \(builder.error?.line ?? parser.lineNumber): \(describe(error))")
        }
        throw FeedParseError(url: url, code: .truncated, reason: "truncated document: <\(rootName)> never closes")
    }

    static func read(_ root: XMLNode, rootName: String, url: URL) throws -> FeedDocument {
        switch (root.name, root.namespace) {
        case ("rss", _): return RSSReader.read(root, url: url, kind: .rss2)
        case ("RDF", let namespace) where XMLNamespace.rdf.contains(namespace):
            return RSSReader.read(root, url: url, kind: .rss1)
        case ("feed", let namespace) where XMLNamespace.atom.contains(namespace) || namespace.isEmpty:
            return AtomReader.read(root, url: url)
        case ("html", _):
            throw FeedParseError(url: url, code: .notAFeed, reason: "not a feed: an HTML page")
        default:
            throw FeedParseError(url: url, code: .notAFeed, reason: "not a feed: XML whose root is <\(rootName)>")
        }
    }

    /// libxml2's error codes, as `XMLParser` passes them on, in words.
    static func describe(_ code: Int) -> String {
        let words: [Int: String] = [
            4: "no root element", 5: "the document ends inside an element", 9: "a character XML does not allow",
            23: "an entity reference without its ;", 26: "an undefined entity", 38: "< inside an attribute value",
            39: "an attribute value without quotes", 40: "an unfinished attribute value",
            41: "an attribute without a value", 42: "an attribute given twice", 45: "an unfinished comment",
            63: "an unfinished CDATA section", 68: "a name expected", 73: "> expected",
            76: "an end tag that does not match its start tag", 77: "an unfinished tag",
        ]
        return words[code].map { "\($0) (libxml2 error \(code))" } ?? "libxml2 error \(code)"
    }
}
