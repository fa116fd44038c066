import Foundation
import Stash

/// A label on bookmarks and entries; `Swift`, `swift` and ` SWIFT ` are one tag.
public final class Tag: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.trimmed, .caseFolded, .precomposed]) public var name: String
    @Relationship(inverse: \Bookmark.tags) public var bookmarks: [Bookmark]
    @Relationship(inverse: \Entry.tags) public var entries: [Entry]

    /// A tag has a name: `""` or white space alone (which normalizes to `""`) is refused.
    public override func validateForInsert() throws {
        if name.isEmpty { throw FeedsError(.invalidInput, "a tag needs a name (one was empty)") }
    }
}
