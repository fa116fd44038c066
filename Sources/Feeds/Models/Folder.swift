import Foundation
import Stash

/// An OPML outline that holds feeds (and other folders): the nesting an OPML file brings
/// and takes back out.
public final class Folder: ManagedObject {
    /// The folder's path from the top, its titles joined by `/` (unique: one folder per
    /// path).
    @Attribute(.unique) public var path: String
    @Attribute public var title: String = ""
    @Relationship public var parent: Folder?
    @Relationship(inverse: \Folder.parent) public var children: [Folder]
    @Relationship(inverse: \Feed.folder) public var feeds: [Feed]
}
