/// How `ManagedObjectContext.search(_:matching:options:)` reads the last word and marks the
/// snippet.
///
/// ```swift
/// var options = SearchOptions()
/// options.snippetMarkers = ("<b>", "</b>")
/// options.snippetWords = 24
/// let hits = try context.search(FetchDescriptor<Entry>(), matching: "swift", options: options)
/// ```
public struct SearchOptions: Sendable {
    /// The last word also matches the words it begins (`swift lin` finds "Linux"), as a
    /// search box is read while it is typed. `true` by default.
    public var prefixMatchesLastWord = true
    /// What goes before and after each matched word in the snippet: `[` and `]` by default.
    public var snippetMarkers: (start: String, end: String) = ("[", "]")
    /// What stands for text the snippet leaves out: `…` by default.
    public var snippetEllipsis = "…"
    /// At most this many words in the snippet (1 to 64; FTS5's limit): 12 by default.
    public var snippetWords = 12

    public init() {}
}
