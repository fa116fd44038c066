import Foundation
import Stash

/// A saved link, one per URL once normalised (`BookmarkURL`): scheme and host in lower
/// case, so `HTTPS://Example.com/a` and `https://example.com/a` are one bookmark.
public final class Bookmark: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.trimmed, .urlSchemeAndHost]) public var url: String
    @Attribute public var title: String = ""
    @Attribute(key: "notes") public var note: String = ""
    @Attribute(key: "date_added") public var created: Date = Date()
    @Relationship(key: "tag_names") public var tags: [Tag]

    /// Only web links are bookmarks: an import that brings a `javascript:` or `file:` URL
    /// fails whole, naming it, and stores nothing.
    public override func validateForInsert() throws { try validateURL() }
    public override func validateForUpdate() throws { try validateURL() }

    private func validateURL() throws {
        guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw FeedsError(.invalidInput, "the bookmark \"\(self.url)\" is not an http or https URL") }
    }
}
