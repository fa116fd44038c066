import Foundation
import Stash

/// A value the app remembers in its store, by name: the bookmarks API of the last import or
/// push, which `feeds bookmarks push` uses when given none. (Never a token: those are given
/// each time.)
public final class Setting: ManagedObject {
    @Attribute(.unique) public var name: String
    @Attribute public var value: String = ""

    static let bookmarksAPI = "bookmarks.api"
}
