import Foundation

/// One document the demo server answers with. Its validators are fixed when it is made, so
/// a second request with them gets `304 Not Modified`.
public struct DemoResource: Sendable, Equatable {
    public var contentType: String
    public var body: Data
    /// `Last-Modified`, to the second.
    public var lastModified: Date
    /// `ETag`, quoted: a digest of the body, so equal bodies have equal tags.
    public var etag: String
    /// The status it is answered with: 200, or a failure a test or benchmark asks for (a
    /// 500, a 429 with `Retry-After` in `headers`); only a 200 is ever a 304.
    public var status = 200
    /// Headers sent besides the validators (`Retry-After`).
    public var headers: [String: String] = [:]
    /// How long the server takes before it answers: a slow host, to see how many requests
    /// a client has in flight.
    public var delay: Duration = .zero

    public init(contentType: String, body: Data, lastModified: Date = Date(timeIntervalSince1970: 1_793_889_000)) {
        self.contentType = contentType
        self.body = body
        self.lastModified = Date(timeIntervalSince1970: lastModified.timeIntervalSince1970.rounded(.down))
        self.etag = "\"" + String(FNV1a.hash(body), radix: 16) + "\""
    }

    public init(contentType: String, text: String, lastModified: Date = Date(timeIntervalSince1970: 1_793_889_000)) {
        self.init(contentType: contentType, body: Data(text.utf8), lastModified: lastModified)
    }

    /// A failure answer: `status` with a short text body and these headers.
    public static func failure(_ status: Int, headers: [String: String] = [:]) -> DemoResource {
        var resource = DemoResource(contentType: "text/plain", text: "HTTP \(status)\n")
        resource.status = status
        resource.headers = headers
        return resource
    }

    /// Whether a request's `If-None-Match` (any of its tags, weak or strong, or `*`) or else
    /// its `If-Modified-Since` says the client has this version.
    func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let ifNoneMatch {
            let tags = ifNoneMatch.split(separator: ",").map { tag in
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
            }
            return tags.contains("*") || tags.contains(etag)
        }
        if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince) {
            return lastModified <= since
        }
        return false
    }
}
