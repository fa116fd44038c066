import Foundation

extension RESTConfiguration {
    /// Whether a body of this `Content-Type` (parameters and all) is one to decode.
    func accepts(contentType: String) -> Bool {
        let mediaType = Self.mediaType(contentType)
        let (type, subtype) = Self.split(mediaType)
        return acceptedContentTypes.contains { accepted in
            let (acceptedType, acceptedSubtype) = Self.split(Self.mediaType(accepted))
            guard acceptedType == "*" || acceptedType == type else { return false }
            if acceptedSubtype == "*" || acceptedSubtype == subtype { return true }
            return acceptedSubtype.hasPrefix("*+") && subtype.hasSuffix(acceptedSubtype.dropFirst())
        }
    }

    /// `text/plain` of `Text/Plain; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
        (contentType.split(separator: ";", omittingEmptySubsequences: false).first.map(String.init) ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    private static func split(_ mediaType: String) -> (type: Substring, subtype: Substring) {
        let parts = mediaType.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        return (parts[0], parts.count > 1 ? parts[1] : "")
    }
}
