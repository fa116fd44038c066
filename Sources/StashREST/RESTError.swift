import Foundation

/// Why a request of `RESTClient` failed: what, where (the URL, the status) and the start of
/// what the server said. Nothing was saved.
///
/// ```
/// StashREST: HTTP 422 from http://127.0.0.1:8080/repos/o/r/issues: Validation Failed
/// (title: missing_field); body: {"message":"Validation Failed",…
/// ```
public struct RESTError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// A status the client does not retry, or the last one when retries ran out.
        case status
        /// The connection failed, or timed out, after the retries.
        case transport
        /// Nothing came for `RESTConfiguration.timeout`, or the call passed its `deadline`.
        case timedOut
        /// The body was longer than `RESTConfiguration.maximumResponseSize`.
        case tooLarge
        /// The body's `Content-Type` is not one of `RESTConfiguration.acceptedContentTypes`.
        case notJSON
        /// The body could not be decoded into the models.
        case decoding
        /// A URL (the call's, a redirect's, a next page's) with a scheme outside
        /// `RESTConfiguration.allowedSchemes`.
        case schemeNotAllowed
        /// More redirects than `RESTConfiguration.maximumRedirects`.
        case tooManyRedirects
        /// A redirect, or a next page's URL, from https to http.
        case insecureRedirect
        /// A path that makes no URL against the base URL.
        case invalidURL
        /// More pages than `FetchOptions.pageLimit`.
        case tooManyPages
        /// A page's next URL is one the call has visited already: the pages form a cycle,
        /// and the call cannot know it has them all.
        case pageCycle
        /// A header name that is not an RFC 9110 token, or a value with a CR, LF or other
        /// control character: refused before anything is sent.
        case invalidHeader
        /// A 304 Not Modified to a request that sent no validators (or whose validators
        /// name no answer kept): there is nothing it could stand for.
        case unexpectedNotModified
        /// The call cannot be made as asked (a parent with no row yet); nothing was sent.
        case invalidRequest
    }

    public let code: Code
    public let message: String
    public let url: URL?
    /// The HTTP status, when there was a response.
    public let status: Int?
    /// The start of the response body (up to 1,000 bytes) as text, when there was one.
    public let body: String?
    /// What failed underneath: a `URLError`, a `StashError`.
    public let underlying: (any Error)?
    /// How long the server asked to wait (`Retry-After` on a 429 or 503), when it did: a
    /// caller that schedules its own next try (a feed reader's backoff per host) waits that.
    public let retryAfter: Duration?

    init(
        _ code: Code, _ message: String, url: URL?, status: Int? = nil, body: Data? = nil,
        underlying: (any Error)? = nil, retryAfter: Duration? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
        self.body = body.flatMap(Self.start(of:))
        self.underlying = underlying
        self.retryAfter = retryAfter
    }

    public var description: String {
        var text = "StashREST: "
        if let status { text += "HTTP \(status) " }
        text += message
        if let url { text += " (\(url.absoluteString))" }
        if let body, !body.isEmpty { text += "; body: \(body)" }
        return text
    }

    /// The first 1,000 bytes as text, cut at a character.
    static func start(of data: Data) -> String? {
        guard !data.isEmpty else { return nil }
        let prefix = data.prefix(1_000)
        let text = String(decoding: prefix, as: UTF8.self)
        return data.count > 1_000 ? text + "…" : text
    }

    /// What an error body says, as GitHub and many APIs put it: `"message"`, then each of
    /// `"errors"` (`field: code`, or its own message); or as Django REST framework (linkding)
    /// does: `"detail"`, or each field's messages (`{"url": ["Enter a valid URL."]}`).
    static func summary(of data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        var summary =
            (object["message"] as? String) ?? (object["error"] as? String) ?? (object["detail"] as? String)
            ?? fieldMessages(object)
        if let errors = object["errors"] as? [Any], !errors.isEmpty {
            let details = errors.map { error -> String in
                guard let error = error as? [String: Any] else { return "\(error)" }
                if let message = error["message"] as? String { return message }
                let field = error["field"].map { "\($0)" } ?? "?"
                let code = error["code"].map { "\($0)" } ?? "invalid"
                return "\(field): \(code)"
            }
            summary += " (" + details.joined(separator: "; ") + ")"
        }
        return summary.isEmpty ? nil : summary
    }

    /// `field: message` for each field whose value is a list of messages, by field name.
    private static func fieldMessages(_ object: [String: Any]) -> String {
        object.keys.sorted().compactMap { field in
            guard let messages = object[field] as? [String], !messages.isEmpty else { return nil }
            return "\(field): " + messages.joined(separator: " ")
        }
        .joined(separator: "; ")
    }
}
