/// One `<outline>` of an OPML document: a feed (it has `xmlURL`) or a folder of outlines.
public struct OPMLOutline: Sendable, Equatable {
    /// `text` (else `title`): what readers show.
    public var title: String
    /// The feed's URL; `nil` for a folder.
    public var xmlURL: String?
    /// The site the feed belongs to.
    public var htmlURL: String?
    public var children: [OPMLOutline]

    public init(title: String, xmlURL: String? = nil, htmlURL: String? = nil, children: [OPMLOutline] = []) {
        self.title = title
        self.xmlURL = xmlURL
        self.htmlURL = htmlURL
        self.children = children
    }

    /// A folder of `children`.
    public static func folder(_ title: String, _ children: [OPMLOutline]) -> OPMLOutline {
        OPMLOutline(title: title, children: children)
    }

    public var isFeed: Bool { xmlURL != nil }
}
