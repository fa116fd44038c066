/// One piece of HTML as `HTMLTokenizer` reads it.
enum HTMLToken: Equatable {
    /// Text with its character references decoded.
    case text(String)
    /// A start tag: the name lowercased, attributes in order (names lowercased, values
    /// decoded; a later duplicate is dropped), and whether it ended in `/>`.
    case start(name: String, attributes: [(name: String, value: String)], selfClosing: Bool)
    case end(name: String)
    /// A comment, a doctype, a processing instruction: nothing a reader sees.
    case ignorable

    static func == (lhs: HTMLToken, rhs: HTMLToken) -> Bool {
        switch (lhs, rhs) {
        case (.text(let a), .text(let b)): a == b
        case (.start(let a, let x, let s), .start(let b, let y, let t)):
            a == b && s == t && x.map(\.name) == y.map(\.name) && x.map(\.value) == y.map(\.value)
        case (.end(let a), .end(let b)): a == b
        case (.ignorable, .ignorable): true
        default: false
        }
    }
}
