/// One result of `ManagedObjectContext.search(_:matching:options:)`: the object, how well
/// it matched, and the words around the match.
///
/// ```swift
/// for hit in try context.search(FetchDescriptor<Entry>(), matching: "swift linux") {
///     print(hit.score, hit.object.title, hit.snippet)   // 4.2 "Swift on Linux" "…runs [Swift] on [Linux]…"
/// }
/// ```
public struct SearchHit<T: ManagedObject> {
    /// The context's one instance for the row: the same object a fetch returns (`===`).
    public let object: T
    /// Relevance by BM25 (SQLite's `bm25()`, negated): higher is better, and only comparable
    /// between hits of one search.
    public let score: Double
    /// Text of the best matching column around the matched words, marked with the options'
    /// markers (`[Swift] on [Linux]`), with the ellipsis where text was cut.
    public let snippet: String
}
