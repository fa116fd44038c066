/// A small, tolerant HTML tokenizer: what feed content needs, not the whole HTML5 algorithm.
///
/// Feed HTML is often broken (unclosed tags, bare `<` and `&`, unquoted attributes), and
/// what reads it must never fail, so everything that is not a tag is text: a `<` not
/// followed by a letter, `/` + letter, `!` or `?` is a literal `<`. `script`, `style`,
/// `textarea`, `title`, `xmp` and `noembed` hold raw text up to their end tag, as browsers
/// read them, so a `<` inside a script never opens a tag.
struct HTMLTokenizer {
    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title", "xmp", "noembed", "noframes"]

    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ html: String) {
        scalars = Array(html.unicodeScalars)
    }

    /// Every token of `html`, in order.
    static func tokens(_ html: String) -> [HTMLToken] {
        var tokenizer = HTMLTokenizer(html)
        var tokens: [HTMLToken] = []
        while let token = tokenizer.next() { tokens.append(token) }
        return tokens
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    /// Raw text waiting to be returned after a raw-text element's start tag.
    private var pendingRawTextEnd: String?

    mutating func next() -> HTMLToken? {
        if let element = pendingRawTextEnd {
            pendingRawTextEnd = nil
            if let text = rawText(until: element), !text.isEmpty { return .text(text) }
        }
        guard position < scalars.count else { return nil }
        if scalars[position] == "<", let token = markup() { return token }
        return .text(HTMLEntities.decode(text()))
    }

    /// Characters up to the next `<` that starts markup (at least one character).
    private mutating func text() -> String {
        var result = String.UnicodeScalarView()
        result.append(scalars[position])
        position += 1
        while position < scalars.count {
            if scalars[position] == "<", startsMarkup() { break }
            result.append(scalars[position])
            position += 1
        }
        return String(result)
    }

    private func startsMarkup() -> Bool {
        guard let next = peek(1) else { return false }
        if isASCIILetter(next) || next == "!" || next == "?" { return true }
        return next == "/" && peek(2).map(isASCIILetter) == true
    }

    /// The tag, comment or declaration at `<`, or `nil` (and no move) if it is text.
    private mutating func markup() -> HTMLToken? {
        guard startsMarkup() else { return nil }
        let next = scalars[position + 1]
        if next == "!" {
            if peek(2) == "-", peek(3) == "-" {
                position += 4
                skip(past: "-->")
            } else {
                position += 2
                skip(past: ">")
            }
            return .ignorable
        }
        if next == "?" {
            position += 2
            skip(past: ">")
            return .ignorable
        }
        if next == "/" {
            position += 2
            let name = tagName()
            skip(past: ">")
            return .end(name: name)
        }
        position += 1
        let name = tagName()
        var attributes: [(name: String, value: String)] = []
        var selfClosing = false
        while position < scalars.count {
            skipSpaces()
            guard let scalar = peek() else { break }
            if scalar == ">" {
                position += 1
                break
            }
            if scalar == "/" {
                position += 1
                if peek() == ">" {
                    selfClosing = true
                    position += 1
                    break
                }
                continue
            }
            let attribute = attributeName()
            skipSpaces()
            var value = ""
            if peek() == "=" {
                position += 1
                skipSpaces()
                value = HTMLEntities.decode(attributeValue())
            }
            if !attribute.isEmpty, !attributes.contains(where: { $0.name == attribute }) {
                attributes.append((attribute, value))
            }
        }
        if Self.rawTextElements.contains(name), !selfClosing { pendingRawTextEnd = name }
        return .start(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    private mutating func tagName() -> String {
        var name = String.UnicodeScalarView()
        while let scalar = peek(), !isSpace(scalar), scalar != ">", scalar != "/" {
            name.append(lowercased(scalar))
            position += 1
        }
        return String(name)
    }

    private mutating func attributeName() -> String {
        var name = String.UnicodeScalarView()
        // The first character may be anything but space or `>` (even `=` or `/`, as HTML reads it).
        if let scalar = peek(), !isSpace(scalar), scalar != ">" {
            name.append(lowercased(scalar))
            position += 1
        }
        while let scalar = peek(), !isSpace(scalar), scalar != ">", scalar != "/", scalar != "=" {
            name.append(lowercased(scalar))
            position += 1
        }
        return String(name)
    }

    private mutating func attributeValue() -> String {
        var value = String.UnicodeScalarView()
        if let quote = peek(), quote == "\"" || quote == "'" {
            position += 1
            while let scalar = peek(), scalar != quote {
                value.append(scalar)
                position += 1
            }
            position += 1
        } else {
            while let scalar = peek(), !isSpace(scalar), scalar != ">" {
                value.append(scalar)
                position += 1
            }
        }
        return String(value)
    }

    /// The text up to `</element` (not included), or to the end.
    private mutating func rawText(until element: String) -> String? {
        let start = position
        let closing = Array(("</" + element).unicodeScalars)
        while position < scalars.count {
            if scalars[position] == "<", position + closing.count <= scalars.count,
                zip(closing, scalars[position..<position + closing.count]).allSatisfy({ $0 == lowercased($1) })
            {
                break
            }
            position += 1
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<position])
        let raw = String(text)
        return element == "textarea" || element == "title" ? HTMLEntities.decode(raw) : raw
    }

    private mutating func skip(past terminator: String) {
        let pattern = Array(terminator.unicodeScalars)
        while position < scalars.count {
            if position + pattern.count <= scalars.count,
                zip(pattern, scalars[position..<position + pattern.count]).allSatisfy({ $0 == $1 })
            {
                position += pattern.count
                return
            }
            position += 1
        }
    }

    private mutating func skipSpaces() {
        while let scalar = peek(), isSpace(scalar) { position += 1 }
    }
}

private func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
}

private func isSpace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
}

private func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
}
