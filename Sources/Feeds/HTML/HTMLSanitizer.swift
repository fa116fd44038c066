import Foundation

/// Cleans feed HTML with an allow list before it is shown or indexed: a feed is someone
/// else's markup, and a reader that renders it must not run its scripts.
///
/// For example:
///
///     HTMLSanitizer.sanitize(#"<p onclick="x()">Hi <script>evil()</script><a href="/a">a</a>"#,
///                            baseURL: URL(string: "https://example.com/feed"))
///     // <p>Hi <a href="https://example.com/a">a</a></p>
///
/// - Elements outside the allow list lose their tags but keep their text, except those whose
///   content is code or a foreign document (`script`, `style`, `iframe`, `object`, `embed`,
///   `form`, `svg`, `math`…), which go with everything inside them.
/// - Attributes outside the allow list go, so every `on*` handler and `style` does.
/// - `href`, `src` and `cite` keep only `http`, `https`, `mailto`, `ftp` and `tel` URLs (and
///   `data:image/…` raster images on `img`), judged after decoding references and removing
///   the whitespace and control characters browsers ignore (`java&#9;script:` is caught);
///   relative ones are resolved against `baseURL`.
/// - The output is well formed: text and attribute values escaped, attributes quoted, every
///   element closed (void ones as `<br />`), end tags with no open element dropped.
public enum HTMLSanitizer {
    static let allowed: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for name in [
            "p", "br", "em", "strong", "b", "i", "u", "s", "sub", "sup", "ul", "li", "dl", "dt", "dd", "pre", "code",
            "kbd", "samp", "var", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "figure", "figcaption", "table", "thead",
            "tbody", "tfoot", "tr", "caption", "span", "div", "small", "big", "mark", "ins", "del", "strike", "tt",
            "center", "article", "section", "aside", "header", "footer", "details", "summary", "address", "dfn",
            "wbr", "picture", "audio", "video", "source",
        ] {
            table[name] = []
        }
        table["a"] = ["href", "title"]
        table["img"] = ["src", "alt", "title", "width", "height"]
        table["ol"] = ["start", "type", "reversed"]
        table["blockquote"] = ["cite"]
        table["q"] = ["cite"]
        table["cite"] = ["title"]
        table["abbr"] = ["title"]
        table["acronym"] = ["title"]
        table["time"] = ["datetime"]
        table["td"] = ["colspan", "rowspan", "align"]
        table["th"] = ["colspan", "rowspan", "align", "scope"]
        table["del"] = ["datetime"]
        table["ins"] = ["datetime"]
        table["audio"] = ["src", "controls"]
        table["video"] = ["src", "poster", "controls", "width", "height"]
        table["source"] = ["src", "type"]
        return table
    }()

    /// Elements dropped together with everything inside them.
    static let droppedWithContent: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "svg", "math",
        "noscript", "template", "textarea", "select", "button", "title", "head", "noembed", "noframes", "xmp",
    ]

    static let voidElements: Set<String> = ["br", "img", "hr", "wbr", "source"]

    static let urlAttributes: Set<String> = ["href", "src", "cite", "poster"]

    static let safeSchemes: Set<String> = ["http", "https", "mailto", "ftp", "tel"]

    /// Elements an open one of the same name closes (`<p>a<p>b` is two paragraphs).
    static let selfClosingSiblings: Set<String> = ["p", "li", "dt", "dd", "tr", "td", "th", "option"]

    /// `html` with only allowed elements, attributes and URLs left; see the type's rules.
    public static func sanitize(_ html: String, baseURL: URL?) -> String {
        var output = ""
        output.reserveCapacity(html.utf8.count)
        var open: [String] = []
        var dropping: DroppedElement?
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            if var current = dropping {
                dropping = current.continues(after: token) ? current : nil
                continue
            }
            switch token {
            case .text(let text):
                output += escapeText(text)
            case .ignorable:
                break
            case .start(let name, let attributes, let selfClosing):
                if droppedWithContent.contains(name) {
                    if !selfClosing { dropping = DroppedElement(name) }
                    continue
                }
                guard let permitted = allowed[name] else { continue }
                if selfClosingSiblings.contains(name), open.last == name {
                    open.removeLast()
                    output += "</\(name)>"
                }
                output += "<" + name
                for (attribute, value) in attributes where permitted.contains(attribute) {
                    guard let clean = cleanValue(value, attribute: attribute, element: name, baseURL: baseURL) else {
                        continue
                    }
                    output += " \(attribute)=\"\(escapeAttribute(clean))\""
                }
                if voidElements.contains(name) {
                    output += " />"
                } else if selfClosing {
                    output += "></\(name)>"
                } else {
                    output += ">"
                    open.append(name)
                }
            case .end(let name):
                guard let index = open.lastIndex(of: name) else { continue }
                for element in open[index...].reversed() { output += "</\(element)>" }
                open.removeSubrange(index...)
            }
        }
        for element in open.reversed() { output += "</\(element)>" }
        return output
    }

    /// The value to write, or `nil` to drop the attribute (an unsafe or unusable URL).
    static func cleanValue(_ value: String, attribute: String, element: String, baseURL: URL?) -> String? {
        guard urlAttributes.contains(attribute) else { return value }
        // Browsers ignore control characters and whitespace in a URL: so does the check.
        let compact = String(
            String.UnicodeScalarView(value.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
        guard !compact.isEmpty else { return nil }
        if let scheme = scheme(of: compact) {
            if scheme == "data" {
                let lowered = compact.lowercased()
                let raster = ["data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp"]
                guard element == "img", attribute == "src", raster.contains(where: lowered.hasPrefix) else {
                    return nil
                }
                return compact
            }
            guard safeSchemes.contains(scheme) else { return nil }
        }
        return LinkResolver.resolve(value, against: baseURL)
    }

    /// The lowercased scheme of `url`, or `nil` when it is relative (no `:` before any `/`,
    /// `?` or `#`).
    static func scheme(of url: String) -> String? {
        for (offset, character) in url.enumerated() {
            if character == ":" { return offset == 0 ? "" : String(url.prefix(offset)).lowercased() }
            if character == "/" || character == "?" || character == "#" { return nil }
        }
        return nil
    }

    static func escapeText(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }

    static func escapeAttribute(_ text: String) -> String {
        escapeText(text).replacingOccurrences(of: "\"", with: "&quot;")
    }
}
