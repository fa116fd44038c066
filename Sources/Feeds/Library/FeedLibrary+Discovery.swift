import Foundation
import StashREST

extension FeedLibrary {
    /// The feed `url` leads to: the document itself, or the first feed an HTML page links
    /// to as an alternate that is one. Throws `notAFeed` or `network`, naming the URL.
    func discover(_ url: URL) async throws -> (URL, RESTResponse, FeedDocument) {
        let page = try await download(url)
        do {
            return (url, page, try FeedParser.parse(page.body, url: page.url, contentType: page.contentType))
        } catch let failure as FeedParseError {
            guard FeedParser.isHTML(page.body) else {
                throw FeedsError(.notAFeed, "\(failure)")
            }
            let links = FeedDiscovery.feedLinks(inHTML: page.body, baseURL: page.url, contentType: page.contentType)
            var reasons: [String] = []
            for link in links.prefix(5) {
                do {
                    let answer = try await download(link)
                    let document = try FeedParser.parse(answer.body, url: answer.url, contentType: answer.contentType)
                    return (link, answer, document)
                } catch {
                    reasons.append("\(error)")
                }
            }
            if links.isEmpty {
                throw FeedsError(.notAFeed, "\(url.absoluteString): an HTML page that links to no feed")
            }
            throw FeedsError(
                .notAFeed,
                "\(url.absoluteString): an HTML page whose feed links failed: " + reasons.joined(separator: "; "))
        }
    }

    /// A GET with no validators, its failure as a `FeedsError`.
    func download(_ url: URL, validators: HTTPValidators? = nil) async throws -> RESTResponse {
        do {
            return try await fetcher.get(url, validators: validators)
        } catch let failure as FetchFailure {
            throw FeedsError(.network, failure.message)
        }
    }
}
