/// What a to-many list decoded from JSON means for the list a stored object already has
/// (`@Relationship(..., decoding: .merge)`).
///
/// Feeds, inboxes and paged child lists send windows, not whole sets: a feed document lists
/// its latest 25 entries, and the ones that scrolled out are still the user's, with their read
/// flags. Declare such a list `.merge`. A list that is the whole truth each time (an issue's
/// labels, an order's lines) keeps the default, `.replace`.
public enum ListDecoding: Sendable, Equatable {
    /// The list becomes the payload's, in its order. A member the payload leaves out leaves
    /// the list: its inverse to-one becomes nil, and if the member's identity holds that
    /// to-one (a composite unique constraint such as `[\.feed, \.guid]`) it is deleted, since
    /// a child that can only be found through its parent would otherwise linger unreachable
    /// and come back as a second row when a later payload lists it again.
    case replace
    /// Members are added and updated, none removed: stored members the payload leaves out
    /// stay, in their places; new ones follow them in the payload's order. `null` or `[]`
    /// adds nothing.
    case merge
}
