import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds an `XMLNode` tree with `XMLParser`, recording what a judgement of the document
/// needs: on Linux `parse()` returns `true` for some broken input, so whether the root
/// element opened and closed is what tells a whole document from a cut one.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// How deep elements may nest. Real feeds nest a dozen levels (HTML left unescaped in a
    /// description a few more); a document 100,000 levels deep overflowed the stack when its
    /// tree was read and freed. Deeper is an error of that one document.
    static let maximumDepth = 256

    private var stack: [XMLNode] = []
    /// Set when the document nested deeper than `maximumDepth`: parsing stopped there.
    private(set) var tooDeep = false
    private(set) var root: XMLNode?
    private(set) var rootClosed = false
    /// The first error that breaks the document (libxml2's code), and its line.
    private(set) var error: (code: Int, line: Int)?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let code = (parseError as NSError).code
        // libxml2's namespace errors (XML_NS_ERR_*, 200 and up: an undeclared prefix, as real
        // feeds have) leave the XML well formed, and parsing goes on.
        guard error == nil, code < 200 else { return }
        error = (code, parser.lineNumber)
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard stack.count < Self.maximumDepth else {
            tooDeep = true
            parser.abortParsing()
            return
        }
        let node = XMLNode(name: elementName, namespace: namespaceURI ?? "", attributes: attributes)
        if let parent = stack.last {
            parent.append(.element(node))
        } else if root == nil {
            root = node
        }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard !tooDeep, stack.popLast() != nil else { return }
        if stack.isEmpty { rootClosed = true }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.append(.text(string))
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        stack.last?.append(.text(String(decoding: block, as: UTF8.self)))
    }
}
