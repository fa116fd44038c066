import Foundation

extension RESTConfiguration {
    /// Whether `url`'s scheme is one of `allowedSchemes`.
    func allows(_ url: URL) -> Bool {
        url.scheme.map { allowedSchemes.contains($0.lowercased()) } ?? false
    }

    /// Where a call is led from `from`, by a redirect or by a page's next URL (`step` says
    /// which, for the message): never from https to http, only to an allowed scheme.
    func checkStep(from: URL, to: URL, _ step: String, status: Int? = nil) throws {
        if from.downgrades(to: to) {
            throw RESTError(
                .insecureRedirect, "\(step) from https to http (\(to.absoluteString)) is not followed", url: from,
                status: status)
        }
        guard allows(to) else {
            throw RESTError(
                .schemeNotAllowed, "\(step) to \(to.absoluteString), a scheme that is not allowed, is not followed",
                url: from, status: status)
        }
    }
}
