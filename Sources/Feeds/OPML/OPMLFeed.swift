/// A feed of an OPML document with the folders it sits in: the flat form an import walks
/// and an export is built from (`OPMLDocument.feeds`, `OPMLDocument(title:feeds:)`).
public struct OPMLFeed: Sendable, Equatable {
    /// Folder titles from the top: `["Tech", "Swift"]`; `[]` at the top level.
    public var folderPath: [String]
    /// The feed's URL (`xmlUrl`).
    public var url: String
    public var title: String
    /// `htmlUrl`.
    public var siteURL: String?

    public init(folderPath: [String] = [], url: String, title: String, siteURL: String? = nil) {
        self.folderPath = folderPath
        self.url = url
        self.title = title
        self.siteURL = siteURL
    }
}
