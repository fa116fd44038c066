import Foundation

extension URL {
    /// Whether `other` has this URL's origin (RFC 6454): the same scheme, host and port,
    /// the default port filled in. Credentials are sent only there.
    func hasSameOrigin(as other: URL) -> Bool {
        scheme?.lowercased() == other.scheme?.lowercased() && host?.lowercased() == other.host?.lowercased()
            && effectivePort == other.effectivePort
    }

    private var effectivePort: Int? {
        if let port { return port }
        switch scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// Whether going from this URL to `other` leaves https for http.
    func downgrades(to other: URL) -> Bool {
        scheme?.lowercased() == "https" && other.scheme?.lowercased() == "http"
    }
}
