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
        update(\.title, document.title)
        update(\.link, document.link)
        update(\.author, document.author)
        update(\.summary, document.summary)
        update(\.content, document.content)
        update(\.published, document.published)
        update(\.updated, document.updated)
        update(\.enclosures, document.enclosures)
        update(\.text, Self.searchText(summary: document.summary, content: document.content))
        return changed
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
