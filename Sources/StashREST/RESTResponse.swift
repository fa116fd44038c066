import Foundation

/// The answer of `RESTClient.get(_:validators:options:)`: a body that is not decoded into
/// models (a feed document, a web page), with what is needed to ask again conditionally.
public struct RESTResponse: Sendable {
    /// Where the answer came from, after redirects.
    public let url: URL
    /// 2xx, or 304 when the validators sent still hold.
    public let status: Int
    /// The body; empty on a 304.
    public let body: Data
    /// The response's `Content-Type`, with its parameters (`charset`).
    public let contentType: String?
    /// The validators to send next time: the answer's own, or on a 304 the ones sent (a
    /// server may leave them out of a 304).
    public let validators: HTTPValidators
    /// Every header of the answer, names as the server wrote them.
    public let headers: [String: String]

    /// `true` for a 304: what was kept from the last full answer still stands.
    public var notModified: Bool { status == 304 }

    /// The header `name`, whatever its case.
    public func header(_ name: String) -> String? {
        let lowercased = name.lowercased()
        return headers.first { $0.key.lowercased() == lowercased }?.value
    }
}

/// The validators of an HTTP answer (RFC 9110 §8.8), sent back as `If-None-Match` and
/// `If-Modified-Since` so a server can answer 304 Not Modified.
public struct HTTPValidators: Sendable, Equatable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// `true` when there is nothing to send.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
