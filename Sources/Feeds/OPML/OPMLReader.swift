import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds an `OPMLDocument` from XMLParser's events. It judges the result by what it saw,
/// not by `parse()`'s answer alone: on Linux XMLParser returns true for some broken input.
final class OPMLReader: NSObject, XMLParserDelegate {
    private var stack: [String] = []
    /// Outlines open above the current one; index 0 collects the body's top level.
    private var open: [OPMLOutline] = []
    private var title = ""
    private var inHeadTitle = false
    private var root: String?
    private var sawBody = false
    private var rootClosed = false
    private var failure: String?

    /// How deep elements may nest: folders within folders a person made, not 100,000 levels
    /// (which overflowed the stack when the outline tree was walked and freed).
    static let maximumDepth = 64

    static func read(_ data: Data) throws -> OPMLDocument {
        guard data.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw OPMLError("not an OPML document: it is empty")
        }
        if data.firstRange(of: Data("<!ENTITY".utf8)) != nil {
            throw OPMLError("not accepted: the document declares entities")
        }
        let reader = OPMLReader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let failure = reader.failure { throw OPMLError(failure) }
        if let root = reader.root, root != "opml" {
            throw OPMLError("not an OPML document: its root element is <\(root)>")
        }
        if !parsed {
            let detail = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unreadable XML"
            throw OPMLError("not an OPML document: broken XML at line \(parser.lineNumber) (\(detail))")
        }
        guard reader.root != nil else { throw OPMLError("not an OPML document: no element found") }
        guard reader.rootClosed, reader.stack.isEmpty else {
            throw OPMLError("not an OPML document: it is cut off (line \(parser.lineNumber))")
        }
        guard reader.sawBody else { throw OPMLError("not an OPML document: it has no <body>") }
        return OPMLDocument(
            title: reader.title.trimmingCharacters(in: .whitespacesAndNewlines),
            outlines: reader.open.first?.children ?? [])
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if stack.isEmpty {
            guard root == nil else {
                fail(parser, "not an OPML document: more than one root element")
                return
            }
            root = elementName
            guard elementName == "opml" else {
                parser.abortParsing()
                return
            }
        }
        guard stack.count < Self.maximumDepth else {
            fail(
                parser,
                "not accepted: outlines nested deeper than \(Self.maximumDepth) levels (line \(parser.lineNumber))")
            return
        }
        stack.append(elementName)
        switch (elementName, stack.count) {
        case ("body", 2):
            sawBody = true
            open = [OPMLOutline(title: "")]
        case ("title", 3) where stack[1] == "head":
            inHeadTitle = true
        case ("outline", _) where stack.count >= 3 && stack[1] == "body":
            // Attribute names are matched without case: `xmlUrl`, `xmlURL` and `xmlurl` all occur.
            var lowered: [String: String] = [:]
            for (name, value) in attributes { lowered[name.lowercased()] = value }
            let url = lowered["xmlurl"].flatMap(nonEmpty)
            let title = lowered["text"].flatMap(nonEmpty) ?? lowered["title"].flatMap(nonEmpty) ?? url ?? ""
            open.append(OPMLOutline(title: title, xmlURL: url, htmlURL: lowered["htmlurl"].flatMap(nonEmpty)))
        default:
            break
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard stack.last == elementName else {
            fail(parser, "not an OPML document: </\(elementName)> closes <\(stack.last ?? "nothing")>")
            return
        }
        if elementName == "outline", stack.count >= 3, stack[1] == "body", open.count >= 2 {
            let outline = open.removeLast()
            open[open.count - 1].children.append(outline)
        }
        if elementName == "title" { inHeadTitle = false }
        stack.removeLast()
        if stack.isEmpty { rootClosed = true }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inHeadTitle { title += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if inHeadTitle { title += String(decoding: block, as: UTF8.self) }
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = message }
        parser.abortParsing()
    }

    private func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
