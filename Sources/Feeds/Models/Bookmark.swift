import Foundation
import Stash

/// A saved link, one per URL once normalised (`BookmarkURL`): scheme and host in lower
/// case, so `HTTPS://Example.com/a` and `https://example.com/a` are one bookmark.
///
/// A `RemoteModel` of linkding's API: edits made here are kept in the store's outbox and sent
/// by `feeds bookmarks push`. linkding names a bookmark by its own numeric id
/// (`/api/bookmarks/<id>/`), set when it answers the `POST`: that is `remoteID` (`remoteKey`).
public final class Bookmark: ManagedObject, Codable, RemoteModel {
    public static let remotePath = "api/bookmarks/"
    public static var remoteKey: PartialKeyPath<Bookmark>? { \.remoteID }

    @Attribute(.unique, normalized: [.trimmed, .urlSchemeAndHost]) public var url: String
    /// linkding's id, `nil` until the server has answered this bookmark's `POST`.
    @Attribute(key: "id") public var remoteID: Int?
    @Attribute public var title: String = ""
    @Attribute(key: "notes") public var note: String = ""
    @Attribute(key: "date_added") public var created: Date = Date()
    /// The names of `tags`, sorted: what the outbox sends as linkding's `tag_names`. The
    /// outbox sends attributes, not to-many relationships (and a change of links alone does
    /// not make an object changed), so this copy of the relationship is what a tag change
    /// changes: `addTags` keeps the two together, and both decode from `tag_names`.
    @Attribute(key: "tag_names") public var tagNames: [String] = []
    @Relationship(key: "tag_names") public var tags: [Tag]

    /// linkding's keys: what a push sends (the outbox keeps those of the attributes it sends).
    private enum LinkdingKey: String, CodingKey {
        case id, url, title, notes
        case dateAdded = "date_added"
        case tagNames = "tag_names"
    }

    /// Written by hand so that `tag_names` is `tagNames` alone: the default encoding would
    /// also write the `tags` relationship under that key, and after a pull that kept a
    /// waiting tag change in `tagNames` (not in the links), the links would win.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LinkdingKey.self)
        try container.encodeIfPresent(remoteID, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(title, forKey: .title)
        try container.encode(note, forKey: .notes)
        try container.encode(created, forKey: .dateAdded)
        try container.encode(tagNames, forKey: .tagNames)
    }

    /// Adds the tags it has not, and sets `tagNames` to match: a change the outbox sends.
    func addTags(_ added: [Tag]) {
        for tag in added where !tags.contains(where: { $0 === tag }) { tags.append(tag) }
        let names = tags.map(\.name).sorted()
        if names != tagNames { tagNames = names }
    }

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
