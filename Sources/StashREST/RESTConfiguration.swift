import Foundation

/// How a `RESTClient` talks to its API: headers every request carries, limits, retries, and
/// the decoder.
public struct RESTConfiguration: Sendable {
    /// Sent with every request; per-call headers (`FetchOptions.headers`) win.
    public var headers: [String: String] = ["Accept": "application/json", "User-Agent": "StashREST"]
    /// The `Authorization` header.
    public var authorization: Authorization?
    /// Headers that carry credentials: sent only to the origin of the call's URL, never on to
    /// another one by a redirect or a next page's URL. Names are matched case-insensitively;
    /// add an API's own key header if it has another name. `Authorization`,
    /// `Proxy-Authorization` and `Cookie` are kept from other origins even if this set is
    /// replaced. (Headers of the `URLSessionConfiguration`, `httpAdditionalHeaders`, are added
    /// by the session itself, to every request: give credentials here instead.)
    public var credentialHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "X-Auth-Token",
    ]

    /// `credentialHeaders` and the ones always kept from other origins.
    var allCredentialHeaders: Set<String> {
        credentialHeaders.union(["Authorization", "Proxy-Authorization", "Cookie"])
    }
    /// How long a request may wait for the next bytes before it fails (and is retried).
    public var timeout: Duration = .seconds(60)
    /// The longest one call may take, every page, retry and wait included, until its save:
    /// past it the call fails with `RESTError.timedOut` and saves nothing (`.perPage` keeps
    /// the pages saved before). `timeout` counts idle time only, so a body trickled a byte
    /// at a time would never end without it.
    public var deadline: Duration = .seconds(300)
    /// The longest a body may be; a longer one is cut off with `RESTError.tooLarge`.
    public var maximumResponseSize = 256 * 1024 * 1024
    /// The URL schemes a request may use.
    public var allowedSchemes: Set<String> = ["http", "https"]
    /// How many redirects a request follows; a redirect from https to http never is.
    public var maximumRedirects = 10
    /// The `Content-Type`s a body may have to be decoded; a body with another is refused
    /// (`RESTError.notJSON`) before decoding, and one without a `Content-Type` is decoded.
    /// Each is a media type (`application/json`), a whole type (`text/*`), `*/*` for any,
    /// or a structured suffix (`*/*+json`: `application/feed+json`). Add `text/plain` for
    /// JSON files a static host serves so. Parameters (`; charset=utf-8`) are ignored.
    public var acceptedContentTypes: Set<String> = ["application/json", "text/json", "*/*+json"]
    public var retry = RetryPolicy()
    /// Conditional GET: keep each page URL's `ETag` and `Last-Modified` in the store (in
    /// Stash's own table, `_stash_http_validators`), send them as `If-None-Match` and
    /// `If-Modified-Since`, and take a 304 for the objects the last full answer held.
    /// `false` sends none and keeps none; `FetchOptions.conditional` turns it off per call.
    public var keepsValidators = true
    /// Makes the decoder for each import. By default keys are used as they come and dates
    /// are read leniently (`JSONDecoder.DateDecodingStrategy.lenient`: RFC 3339 and its
    /// variants, RFC 822 / 1123, date-only, no zone as UTC).
    public var makeDecoder: @Sendable () -> JSONDecoder = RESTConfiguration.defaultDecoder
    /// Makes the encoder of a push's bodies (`RESTClient.push`). By default dates are
    /// ISO 8601 with milliseconds, as the default decoder reads them.
    public var makeEncoder: @Sendable () -> JSONEncoder = RESTConfiguration.defaultEncoder

    public init() {}

    public enum Authorization: Sendable {
        /// `Authorization: Bearer <token>`.
        case bearer(String)
        /// `Authorization: Basic <base64 of user:password>`.
        case basic(user: String, password: String)
        /// `Authorization: Token <token>`, as Django REST framework's token authentication
        /// (and linkding, built on it) asks.
        case token(String)

        var headerValue: String {
            switch self {
            case .token(let token): "Token \(token)"
            case .bearer(let token): "Bearer \(token)"
            case .basic(let user, let password): "Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"
            }
        }
    }

    /// A `JSONDecoder` whose dates are read by `LenientDateParser`: ISO 8601 as before (with
    /// or without fractional seconds), and what feeds and APIs send besides (`2026-11-05`,
    /// `2026-11-05 14:30:00Z`, `Tue, 05 Nov 2026 14:30:00 GMT`); a date with no zone is UTC.
    /// A string that is no date is a decoding error that quotes it. For strict ISO 8601,
    /// set `makeDecoder` to a decoder with `.iso8601`.
    @Sendable public static func defaultDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .lenient
        return decoder
    }

    /// A `JSONEncoder` whose dates are ISO 8601 with milliseconds (`2026-11-05T14:30:00.250Z`).
    @Sendable public static func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }
}

/// When a failed request is tried again: 429 and 503 after the server's `Retry-After`
/// (seconds or an HTTP date), other 5xx statuses and transport errors after a capped
/// exponential backoff with jitter; never more than `maximumAttempts` tries or
/// `maximumTotal` of waiting.
public struct RetryPolicy: Sendable {
    public var maximumAttempts = 4
    /// The first backoff; each next one doubles, up to `maximumDelay`.
    public var initialDelay: Duration = .milliseconds(250)
    public var maximumDelay: Duration = .seconds(10)
    /// The most a request waits between tries in all.
    public var maximumTotal: Duration = .seconds(60)
    /// A random part (0…1) taken off each backoff, so that clients do not retry in step.
    public var jitter = 0.5

    public init() {}

    /// No retry: every failure is final.
    public static var none: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumAttempts = 1
        return policy
    }

    /// The backoff before try number `attempt + 1`.
    func backoff(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) where delay < maximumDelay { delay *= 2 }
        delay = min(delay, maximumDelay)
        return delay * (1 - Double.random(in: 0...max(0, min(jitter, 1))))
    }
}
