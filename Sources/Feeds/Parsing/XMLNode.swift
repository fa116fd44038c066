import Foundation

/// An XML element as the feed parsers read it: a small tree `XMLParser` builds once, so RSS
/// and Atom are read by walking elements rather than by a state machine per format.
final class XMLNode {
    /// The local name (`creator` for `dc:creator`).
    let name: String
    /// The namespace URI, `""` when none.
    let namespace: String
    let attributes: [String: String]
    private(set) var children: [Child] = []

    enum Child {
        case element(XMLNode)
        case text(String)
    }

    init(name: String, namespace: String, attributes: [String: String]) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
    }

    func append(_ child: Child) {
        if case .text(let more) = child, case .text(let text)? = children.last {
            children[children.count - 1] = .text(text + more)
        } else {
            children.append(child)
        }
    }

    var elements: [XMLNode] {
        children.compactMap { if case .element(let node) = $0 { node } else { nil } }
    }

    /// The text directly inside (CDATA and text joined, child elements skipped).
    var text: String {
        children.reduce(into: "") { if case .text(let text) = $1 { $0 += text } }
    }

    /// The text directly inside, trimmed, or `nil` when that is empty.
    var trimmedText: String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The first child named `name` in one of `namespaces`.
    func child(_ name: String, in namespaces: Set<String>) -> XMLNode? {
        elements.first { $0.name == name && namespaces.contains($0.namespace) }
    }

    func children(_ name: String, in namespaces: Set<String>) -> [XMLNode] {
        elements.filter { $0.name == name && namespaces.contains($0.namespace) }
    }

    /// An attribute by its local name, whatever prefix the document gave it (`rdf:about`).
    func attribute(_ name: String) -> String? {
        if let value = attributes[name] { return value }
        return attributes.first { $0.key.hasSuffix(":" + name) }?.value
    }

    /// `base` with this element's `xml:base` applied.
    func base(inheriting base: URL?) -> URL? {
        guard let value = attributes["xml:base"] else { return base }
        return LinkResolver.url(value, against: base)
    }

    /// The children as markup (elements by local name, text escaped): what Atom's xhtml
    /// content holds.
    var innerMarkup: String {
        var markup = ""
        for child in children {
            switch child {
            case .text(let text): markup += HTMLSanitizer.escapeText(text)
            case .element(let node): markup += node.outerMarkup
            }
        }
        return markup
    }

    /// The HTML an element holds as escaped text: its text is the (unescaped) source, and
    /// elements a feed left unescaped inside it (`<description>a <b>b</b>`) are taken as the
    /// markup they are rather than lost.
    var htmlSource: String {
        var source = ""
        for child in children {
            switch child {
            case .text(let text): source += text
            case .element(let element): source += element.outerMarkup
            }
        }
        return source
    }

    /// The element itself as markup, its children as `innerMarkup`.
    var outerMarkup: String {
        var markup = "<" + name
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) where !key.hasPrefix("xmlns") {
            markup += " \(key)=\"\(HTMLSanitizer.escapeAttribute(value))\""
        }
        return markup + ">" + innerMarkup + "</\(name)>"
    }
}
