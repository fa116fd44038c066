import Foundation
import Stash

/// A label on bookmarks and entries; `Swift`, `swift` and ` SWIFT ` are one tag.
public final class Tag: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.trimmed, .caseFolded, .precomposed]) public var name: String
    @Relationship(inverse: \Bookmark.tags) public var bookmarks: [Bookmark]
    @Relationship(inverse: \Entry.tags) public var entries: [Entry]
}
