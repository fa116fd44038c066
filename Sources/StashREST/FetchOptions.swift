import Foundation

/// What one `fetch` asks for beyond the path: query items and headers, where the items are
/// in the body, how to follow pages, how to save, and where to report progress.
public struct FetchOptions: Sendable {
    /// Added to the URL's query.
    public var query: [URLQueryItem] = []
    /// Sent with the request, over the client's own.
    public var headers: [String: String] = [:]
    /// Where the array is in an envelope, as keys separated by dots: `"data"` for
    /// `{"data": […], "meta": …}`, `"results"`, `"response.items"`. `nil`: the body is the
    /// array (or the object).
    public var itemsKey: String?
    public var pagination: Pagination = .linkHeader
    /// The most pages one call follows; more is `RESTError.tooManyPages`, and nothing is saved.
    public var pageLimit = 100
    public var saving: Saving = .atEnd
    /// Send `If-None-Match` / `If-Modified-Since` from the validators kept for the URL, and
    /// keep the new ones, per page URL, in Stash's own table (`RESTConfiguration.keepsValidators`).
    public var conditional = true
    /// Progress events (bytes, objects, pages), for a command line's bar.
    public var progress: AsyncStream<RESTProgress>.Continuation?

    public init() {}

    /// How the next page is found.
    public enum Pagination: Sendable {
        /// One request.
        case none
        /// The `Link` header's `rel="next"` (RFC 8288), as GitHub sends it, when there is one.
        case linkHeader
        /// A URL in the body at this key path (`"next"`, `"links.next"`), absolute or
        /// relative to the request's; null or absent ends.
        case nextURL(key: String)
        /// A cursor in the body at `key`, sent back as the query item `parameter`; null,
        /// absent or empty ends.
        case cursor(key: String, parameter: String)
        /// `parameter=1, 2, …` (from `first`) until a page has no items.
        case page(parameter: String = "page", first: Int = 1)
        /// `offset=0, n, 2n, …` with `limitParameter=n` until a page has fewer than `n` items.
        case offset(parameter: String = "offset", limitParameter: String = "limit", limit: Int)

        /// Whether the next page's URL depends on how many items a page held, which only its
        /// decode tells (`.page`, `.offset`); the others read it from the answer as it is.
        var needsItemCount: Bool {
            switch self {
            case .page, .offset: true
            case .none, .linkHeader, .nextURL, .cursor: false
            }
        }

        /// Whether the next page is named by the answer's `Link` header, which a 304 may send.
        var isLinkHeader: Bool {
            if case .linkHeader = self { true } else { false }
        }
    }

    /// When the import saves.
    public enum Saving: Sendable {
        /// All pages in one transaction once the last is in: a failure on any page saves
        /// nothing. Memory holds every page's objects until then.
        case atEnd
        /// Each page in its own transaction as it comes: memory holds one page, and a failure
        /// keeps the pages saved before it.
        case perPage
    }
}

/// What a `fetch` moved so far.
public enum RESTProgress: Sendable, Equatable {
    /// Bytes of a page received, of its `Content-Length` if known. The next page may be on
    /// its way while one decodes: its bytes can come before that page's `.page`.
    case bytes(received: Int, expected: Int?)
    /// A page decoded (or answered 304): its number (from 1) and the objects decoded in all.
    /// A page whose 304 led to a page that is gone is asked again in full, and its number
    /// comes again: count pages by the highest number, not by the events.
    case page(number: Int, objects: Int)
    /// Saved: the report.
    case saved(inserted: Int, updated: Int, deleted: Int)
}
