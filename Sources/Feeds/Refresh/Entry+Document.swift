import Foundation

extension Entry {
    /// Takes the document's text and dates, leaving what the reader did (`read`,
    /// `starred`, `removed`, tags) alone; answers whether anything changed.
    func apply(_ document: EntryDocument) -> Bool {
        var changed = false
        func update<Value: Equatable>(_ keyPath: ReferenceWritableKeyPath<Entry, Value>, _ value: Value) {
            guard self[keyPath: keyPath] != value else { return }
            self[keyPath: keyPath] = value
            changed = true
        }
        update(\.title, Self.oneLine(document.title))
        update(\.link, document.link)
        update(\.author, document.author.map(Self.oneLine))
        let newSummary = document.summary.map(Self.printable)
        let newContent = document.content.map(Self.printable)
        let htmlChanged = newSummary != summary || newContent != content || text.isEmpty
        update(\.summary, newSummary)
        update(\.content, newContent)
        update(\.published, document.published)
        update(\.updated, document.updated)
        update(\.enclosures, document.enclosures)
        // The plain text is derived from the HTML: reduced again only when that changed (an
        // unchanged entry of a changed feed, most of them, costs no HTML walk).
        if htmlChanged { update(\.text, Self.searchText(summary: summary, content: content)) }
        return changed
    }

    /// A title or a name: printable, its line breaks and runs of white space one space.
    static func oneLine(_ text: String) -> String {
        let printable = printable(text)
        guard printable.contains(where: { $0.isNewline || $0 == "\t" }) else { return printable }
        return printable.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `text` without control characters other than tab and line breaks: a feed's terminal
    /// escapes (clear screen, a window title) never reach the store, so no reader of it
    /// prints them.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isDropped) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !isDropped($0) })
        return String(scalars)
    }

    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    /// What search reads: the summary's and content's text, each once.
    static func searchText(summary: String?, content: String?) -> String {
        let summaryText = summary.map(HTMLText.plainText) ?? ""
        let contentText = content.map(HTMLText.plainText) ?? ""
        if summaryText.isEmpty || contentText.contains(summaryText) { return contentText }
        if contentText.isEmpty || summaryText.contains(contentText) { return summaryText }
        return summaryText + "\n" + contentText
    }
}
