import Feeds
import Foundation

/// The demo servers the feeds are fetched from: one on each of 127.0.0.1 … 127.0.0.H, feed
/// `i` on host `i % H`, plus every feed on the first server too, for the one-host layout.
///
/// FeedLibrary sends one request at a time per host, so with all feeds on one host a
/// refresh is one request after another; spread over H hosts, up to 4 go at once. The
/// layout is which URLs the store holds (`urls(layout:)`).
final class LoopbackHosts {
    let servers: [DemoServer]
    let corpus: FeedCorpus
    /// Each feed's generation: how often its window moved.
    private(set) var generations: [Int]
    /// The size of the first documents, all feeds.
    let firstBytes: Int

    init(corpus: FeedCorpus, hosts: Int) throws {
        self.corpus = corpus
        generations = Array(repeating: 0, count: corpus.feeds)
        var documents: [DemoResource] = []
        documents.reserveCapacity(corpus.feeds)
        for feed in 0..<corpus.feeds {
            documents.append(Self.resource(corpus.document(feed: feed, generation: 0)))
        }
        firstBytes = documents.reduce(0) { $0 + $1.body.count }
        servers = try (0..<hosts).map { host in
            try DemoServer(address: "127.0.0.\(host + 1)") { _ in
                var resources: [String: DemoResource] = [:]
                for feed in 0..<corpus.feeds where host == 0 || feed % hosts == host {
                    resources[FeedCorpus.path(of: feed)] = documents[feed]
                }
                return resources
            }
        }
    }

    /// Each feed's URL when the feeds are spread over `layout` hosts (1: all on the first).
    func urls(layout: Int) -> [String] {
        (0..<corpus.feeds).map { feed in
            let server = servers[layout == 1 ? 0 : feed % servers.count]
            return server.baseURL.absoluteString.dropLast() + FeedCorpus.path(of: feed)
        }
    }

    /// Moves the window of `feed` by one generation, on every server that serves it.
    func publish(_ feed: Int) {
        generations[feed] += 1
        let resource = Self.resource(corpus.document(feed: feed, generation: generations[feed]))
        for (host, server) in servers.enumerated() where host == 0 || feed % servers.count == host {
            server.setResource(resource, at: FeedCorpus.path(of: feed))
        }
    }

    func stop() {
        for server in servers { server.stop() }
    }

    /// A new version gets a later `Last-Modified`, as a server's would.
    private static func resource(_ document: (contentType: String, text: String)) -> DemoResource {
        DemoResource(contentType: document.contentType, text: document.text, lastModified: Date())
    }
}
