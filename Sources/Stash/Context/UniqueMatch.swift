/// What inserting a new object does when its unique value (or composite key) names an
/// object the context or the store already has: `context.insert(_:onMatch:)`,
/// `init(context:onMatch:)`.
///
/// ```swift
/// let feed = Feed()
/// feed.url = url
/// feed.title = "(loading…)"                // for a new feed only
/// context.insert(feed, onMatch: .adopt)    // a stored feed keeps its title
/// feed.lastOpened = .now                   // set after the match: an edit, whichever feed it is
/// ```
///
/// The object is matched as soon as its unique value is known: at `insert`, or when its
/// unique attribute is set afterwards (`init(context:)` inserts a blank object), and for a
/// composite key at the save. What it was given before that moment is what the choice is
/// about; anything set through it afterwards is an edit of the object it stands in for.
/// Without a choice, the context's `mergePolicy` decides (`.incomingWins` upserts,
/// `.storedWins` adopts, `.fail` keeps the object apart and fails the save).
public enum UniqueMatch: Hashable, Sendable {
    /// The values the new object was given replace the existing object's, attribute by
    /// attribute (the others keep theirs): Stash's upsert, what `.incomingWins` does.
    case upsert
    /// The existing object is taken as it is: the values the new object was given count
    /// only for a new row (a placeholder title, a default), and are dropped when a row or
    /// object already has its unique value.
    case adopt
}
