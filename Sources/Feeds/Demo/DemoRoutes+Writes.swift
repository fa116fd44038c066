import Foundation

/// The bookmarks API's writes, as linkding answers them, so that `feeds bookmarks push` has
/// a real server to push to:
///
/// - `POST /api/bookmarks/` makes a bookmark with the next id (201 with it); a URL it holds
///   already updates that bookmark instead, as linkding does.
/// - `PATCH /api/bookmarks/<id>/` sets the body's `url`, `title`, `notes`, `tag_names` (200).
/// - `DELETE /api/bookmarks/<id>/` (204); an unknown id is a 404.
/// - A tag name with white space in it is refused: 400 `{"tag_names": ["…"]}`.
/// - A write with an `Idempotency-Key` seen before is answered as the first time, and applies
///   nothing.
extension DemoRoutes {
    mutating func write(_ request: HTTPRequestHead, body: Data) -> HTTPResponse {
        if let refused = unauthorized(request) { return refused }
        let key = request.headers["idempotency-key"]
        if let key, let answer = answers[key] { return answer }
        let answer = apply(request, body: body)
        if let key, answer.status < 500 { answers[key] = answer }
        return answer
    }

    private mutating func apply(_ request: HTTPRequestHead, body: Data) -> HTTPResponse {
        let rest = request.path.dropFirst("/api/bookmarks".count).split(separator: "/")
        var values: [String: Any] = [:]
        if request.method != "DELETE" {
            guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
                return .json(400, .object([("detail", .string("The body is not a JSON object."))]))
            }
            values = object
        }
        if let refused = Self.invalid(values) { return refused }
        switch (request.method, rest.count) {
        case ("POST", 0):
            guard let url = values["url"] as? String else {
                return .json(400, .object([("url", .array([.string("This field is required.")]))]))
            }
            if let index = bookmarks.firstIndex(where: { $0.url == url }) {
                Self.set(values, on: &bookmarks[index])
                return .json(201, bookmarks[index].json)
            }
            var made = DemoBookmark(id: (bookmarks.map(\.id).max() ?? 0) + 1, url: url, title: "", dateAdded: Date())
            Self.set(values, on: &made)
            bookmarks.append(made)
            return .json(201, made.json)
        case ("PATCH", 1), ("DELETE", 1):
            guard let id = Int(rest[0]), let index = bookmarks.firstIndex(where: { $0.id == id }) else {
                return .json(404, .object([("detail", .string("No Bookmark matches the given query."))]))
            }
            if request.method == "DELETE" {
                bookmarks.remove(at: index)
                return HTTPResponse(status: 204)
            }
            Self.set(values, on: &bookmarks[index])
            return .json(200, bookmarks[index].json)
        default:
            return .text(405, "Not allowed: \(request.method) \(request.path)\n")
        }
    }

    /// linkding's refusals the demo makes: a URL that is not http(s), a tag with a space.
    private static func invalid(_ values: [String: Any]) -> HTTPResponse? {
        if let url = values["url"] as? String, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            return .json(400, .object([("url", .array([.string("Enter a valid URL.")]))]))
        }
        if let tags = values["tag_names"] as? [String], let bad = tags.first(where: { $0.contains(" ") }) {
            return .json(
                400, .object([("tag_names", .array([.string("Tag names may not contain spaces: \"\(bad)\".")]))]))
        }
        return nil
    }

    private static func set(_ values: [String: Any], on bookmark: inout DemoBookmark) {
        if let url = values["url"] as? String { bookmark.url = url }
        if let title = values["title"] as? String { bookmark.title = title }
        if let notes = values["notes"] as? String { bookmark.notes = notes }
        if let tags = values["tag_names"] as? [String] { bookmark.tags = tags }
    }
}
