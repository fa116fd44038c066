/// HTML reduced to the words a reader sees: what search indexes and what a title shows.
///
/// For example:
///
///     HTMLText.plainText(#"<p title="secret">Caf&eacute; <b>open</b></p><script>x()</script>"#)
///     // "Café open"
public enum HTMLText {
    /// Elements whose end (and start) separates words: `a<br>b` is two words, not `ab`.
    static let breaking: Set<String> = [
        "br", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
        "table", "blockquote", "pre", "hr", "figure", "figcaption", "section", "article", "header", "footer", "img",
        "caption", "address", "aside", "details", "summary",
    ]

    /// `html` with its tags removed, the content of `script`, `style` and the other elements
    /// `HTMLSanitizer` drops whole left out, references decoded and whitespace collapsed to
    /// single spaces, trimmed. Words inside tags or attributes never appear.
    public static func plainText(_ html: String) -> String {
        var words = ""
        var dropping: DroppedElement?
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            if var current = dropping {
                dropping = current.continues(after: token) ? current : nil
                continue
            }
            switch token {
            case .text(let text): words += text
            case .start(let name, _, let selfClosing):
                if HTMLSanitizer.droppedWithContent.contains(name), name != "title" {
                    if !selfClosing { dropping = DroppedElement(name) }
                } else if breaking.contains(name) {
                    words += " "
                }
            case .end(let name): if breaking.contains(name) { words += " " }
            case .ignorable: break
            }
        }
        return collapsingWhitespace(words)
    }

    /// `text` with every run of whitespace (no-break spaces too) made one space, trimmed.
    static func collapsingWhitespace(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.value < 0x20 {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result += " " }
                pendingSpace = false
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
