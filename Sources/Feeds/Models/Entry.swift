import Foundation
import Stash

/// One item of a feed, unique per feed by its identity string (`EntryIdentity`).
///
/// What the reader does to it (`read`, `starred`, `removed`) is never in a document, so a
/// refresh that lists the entry again updates its text and keeps those.
public final class Entry: ManagedObject, CompositeUniqueModel, IndexedModel {
    @Relationship public var feed: Feed?
    /// The guid or Atom id, else link and date, else a digest of title and content; the
    /// same for `http` and `https` (see `EntryIdentity`).
    @Attribute public var identity: String
    /// Title as plain text (markup removed), the empty string when the item has none.
    @Attribute(.searchable) public var title: String = ""
    @Attribute public var link: String?
    @Attribute public var author: String?
    /// Sanitised HTML.
    @Attribute public var summary: String?
    /// Sanitised HTML.
    @Attribute public var content: String?
    /// Summary and content as plain text: what search reads, so words only inside tags or
    /// attributes are never found.
    @Attribute(.searchable) public var text: String = ""
    @Attribute public var published: Date?
    @Attribute public var updated: Date?
    /// When a refresh first stored the entry.
    @Attribute public var firstSeen: Date = Date()
    /// `published`, else `updated`, else `firstSeen`: the order `feeds entries` lists in.
    @Attribute(.indexed) public var sortDate: Date = Date()
    @Attribute public var read: Bool = false
    @Attribute public var starred: Bool = false
    /// Deleted by the reader: a tombstone kept while the feed may list the entry again, so a
    /// refresh never brings it back.
    @Attribute public var removed: Bool = false
    @Attribute public var enclosures: [Enclosure] = []
    @Relationship public var tags: [Tag]

    public static var uniqueConstraints: [[PartialKeyPath<Entry>]] { [[\.feed, \.identity]] }
    /// One feed's entries newest first, and every entry newest first. (An index that led
    /// with `removed`, which nearly every row shares, was what SQLite chose for one feed's
    /// counts too, and read all 500,000 rows for each.)
    public static var indexes: [[PartialKeyPath<Entry>]] { [[\.feed, \.sortDate]] }

    public override func willSave() {
        let date = published ?? updated ?? firstSeen
        if sortDate != date { sortDate = date }
    }
}

/// A file an entry carries (a podcast's episode): RSS `enclosure`, Atom `rel="enclosure"`,
/// JSON Feed `attachments`.
public struct Enclosure: Codable, Sendable, Equatable {
    public var url: String
    public var type: String?
    public var length: Int?

    public init(url: String, type: String? = nil, length: Int? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
