import Foundation
import StashREST

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches feed documents over HTTP: one `RESTClient` for all of them, one request at a
/// time per host, and a host that asked to wait (`Retry-After`) is not asked again before.
final class FeedFetcher: Sendable {
    let client: RESTClient
    let gate = HostGate()

    init(configuration: RESTConfiguration = FeedFetcher.configuration) {
        // Every URL a feed reader asks for is absolute; the base is never used.
        client = RESTClient(baseURL: URL(string: "http://localhost/")!, configuration: configuration)
    }

    /// What a feed reader sends and accepts: feed formats first, then what servers label
    /// them as; answers of any content type are read (detection is by content). Two tries
    /// with a short wait: a feed that fails is backed off and tried at a later refresh.
    static var configuration: RESTConfiguration {
        var configuration = RESTConfiguration()
        configuration.headers = [
            "Accept":
                "application/feed+json, application/atom+xml, application/rss+xml, application/rdf+xml;q=0.9, "
                + "application/xml;q=0.8, text/xml;q=0.8, application/json;q=0.7, text/html;q=0.5, */*;q=0.1",
            "User-Agent": "feeds/1.0 (Stash)",
        ]
        configuration.timeout = .seconds(30)
        configuration.deadline = .seconds(90)
        configuration.maximumResponseSize = 32 * 1024 * 1024
        configuration.retry.maximumAttempts = 2
        configuration.retry.maximumTotal = .seconds(5)
        return configuration
    }

    /// One GET of `url`, waiting for its host's turn. Throws `FeedsError` (`.network`)
    /// naming the URL, with the wait the host asked for when it asked.
    func get(_ url: URL, validators: HTTPValidators?) async throws -> RESTResponse {
        let host = url.host?.lowercased() ?? ""
        await gate.enter(host)
        // Asked once the host's turn came: the request before may have been told to wait.
        if let until = await gate.blocked(host) {
            await gate.leave(host)
            throw FetchFailure(
                message: "\(url.absoluteString): not asked, its host asked to wait until \(until.formatted(.iso8601))",
                retryAfter: until.timeIntervalSinceNow, hostWaiting: until)
        }
        do {
            let response = try await client.get(url.absoluteString, validators: validators)
            await gate.leave(host)
            return response
        } catch let error as RESTError {
            if let wait = error.retryAfter {
                await gate.block(host, until: Date().addingTimeInterval(Double(wait.components.seconds)))
            }
            await gate.leave(host)
            throw FetchFailure(
                message: Self.describe(error, url: url),
                retryAfter: error.retryAfter.map { Double($0.components.seconds) })
        } catch {
            await gate.leave(host)
            throw FetchFailure(message: "\(url.absoluteString): \(error)", retryAfter: nil)
        }
    }

    /// A `RESTError` as a line: the URL, the status or what failed.
    static func describe(_ error: RESTError, url: URL) -> String {
        let location = (error.url ?? url).absoluteString
        if let status = error.status {
            return "\(location): HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))"
        }
        return "\(location): \(error.message)"
    }
}

/// Why a feed could not be fetched, and how long its host asked to be left alone.
struct FetchFailure: Error, CustomStringConvertible {
    var message: String
    var retryAfter: TimeInterval?
    /// Set when nothing was sent: another feed's answer from the same host asked to wait
    /// until then. Not this feed's failure.
    var hostWaiting: Date? = nil
    var description: String { message }
}
