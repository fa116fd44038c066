/// An element being left out with everything inside it (`script`, `style`, `iframe`…):
/// the sanitiser and the plain-text reducer skip tokens until its own end tag, counting
/// nested elements of the same name so an inner end tag does not stop the skip early.
struct DroppedElement {
    let name: String
    private var depth = 1

    init(_ name: String) { self.name = name }

    /// Takes the next token inside the element; answers `false` once the element has ended.
    mutating func continues(after token: HTMLToken) -> Bool {
        switch token {
        case .start(let name, _, let selfClosing) where name == self.name && !selfClosing:
            depth += 1
        case .end(let name) where name == self.name:
            depth -= 1
        default: break
        }
        return depth > 0
    }
}
