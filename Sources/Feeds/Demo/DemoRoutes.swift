import Foundation

/// What the demo server answers to each request: documents by path, with conditional GET,
/// and the linkding-style bookmarks API. Pure (no sockets), so it is simple to reason about.
struct DemoRoutes: Sendable {
    /// Path (`/feed.xml`) to document.
    var resources: [String: DemoResource]
    var bookmarks: [DemoBookmark]
    /// When set, the bookmarks API wants `Authorization: Token <token>`.
    var token: String?
    /// `http://127.0.0.1:PORT/`, for the API's `next` and `previous` links.
    var baseURL: URL

    /// What a write answered, by `Idempotency-Key`: the same key is answered again, and
    /// applies nothing twice.
    var answers: [String: HTTPResponse] = [:]

    static let bookmarksPath = "/api/bookmarks/"

    /// `body` is the request's, for the bookmarks API's writes (`DemoRoutes+Writes`).
    mutating func respond(to request: HTTPRequestHead, body: Data = Data()) -> HTTPResponse {
        if ["POST", "PATCH", "DELETE"].contains(request.method), request.path.hasPrefix("/api/bookmarks") {
            return write(request, body: body)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "Only GET and HEAD are served.\n", headers: [("Allow", "GET, HEAD")])
        }
        if request.path == DemoRoutes.bookmarksPath || request.path == "/api/bookmarks" {
            return bookmarksPage(request)
        }
        guard let resource = resources[request.path] else {
            return .text(404, "Not found: \(request.path)\n")
        }
        if resource.status != 200 {
            return HTTPResponse(
                status: resource.status,
                headers: [("Content-Type", resource.contentType)] + resource.headers.sorted { $0.key < $1.key },
                body: resource.body)
        }
        let validators = [
            ("ETag", resource.etag), ("Last-Modified", HTTPDate.format(resource.lastModified)),
        ]
        if resource.isNotModified(
            ifNoneMatch: request.headers["if-none-match"], ifModifiedSince: request.headers["if-modified-since"])
        {
            return HTTPResponse(status: 304, headers: validators)
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", resource.contentType)] + validators, body: resource.body)
    }

    /// `?limit=&offset=` (100 and 0 by default) answering `{"count", "next", "previous", "results"}`.
    private func bookmarksPage(_ request: HTTPRequestHead) -> HTTPResponse {
        if let refused = unauthorized(request) { return refused }
        let limitText = request.queryValue("limit") ?? "100"
        let offsetText = request.queryValue("offset") ?? "0"
        guard let limit = Int(limitText), (1...1000).contains(limit), let offset = Int(offsetText), offset >= 0
        else {
            return .json(400, .object([("detail", .string("limit must be 1...1000 and offset 0 or more."))]))
        }
        let page = bookmarks.dropFirst(offset).prefix(limit)
        let pageURL = { (offset: Int) -> JSONValue in
            .string(
                baseURL.absoluteString + String(DemoRoutes.bookmarksPath.dropFirst())
                    + "?limit=\(limit)&offset=\(offset)")
        }
        let next = offset + limit < bookmarks.count ? pageURL(offset + limit) : .null
        let previous = offset > 0 ? pageURL(max(0, offset - limit)) : .null
        return .json(
            200,
            .object([
                ("count", .number(Int64(bookmarks.count))), ("next", next), ("previous", previous),
                ("results", .array(page.map(\.json))),
            ]))
    }

    /// A 401 when the API wants a token and the request has not the right one.
    func unauthorized(_ request: HTTPRequestHead) -> HTTPResponse? {
        guard let token, request.headers["authorization"] != "Token \(token)" else { return nil }
        return .json(401, .object([("detail", .string("Invalid token."))]), headers: [("WWW-Authenticate", "Token")])
    }
}
