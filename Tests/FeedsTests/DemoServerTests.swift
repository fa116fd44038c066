import Foundation
import Testing

@testable import Feeds

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

@Suite struct DemoServerTests {
    private static let rss = "<rss version=\"2.0\"><channel><title>T</title></channel></rss>"

    private func makeServer(bookmarks: [DemoBookmark] = [], token: String? = nil) throws -> DemoServer {
        try DemoServer(bookmarks: bookmarks, token: token) { base in
            [
                "/feed.xml": DemoResource(contentType: "application/rss+xml", text: Self.rss),
                "/page.html": DemoResource(contentType: "text/html", text: "<a href=\"\(base)feed.xml\">feed</a>"),
            ]
        }
    }

    /// A session with no cache of its own, so every request reaches the server as written.
    private let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    private func get(
        _ url: URL, method: String = "GET", headers: [String: String] = [:]
    ) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    @Test func aDocumentIsServedWithItsValidators() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let (data, response) = try await get(server.baseURL.appendingPathComponent("feed.xml"))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == Self.rss)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/rss+xml")
        let etag = try #require(response.value(forHTTPHeaderField: "ETag"))
        #expect(etag == DemoResource(contentType: "x", text: Self.rss).etag)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Thu, 05 Nov 2026 14:30:00 GMT")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == String(Self.rss.utf8.count))
        let (page, _) = try await get(server.baseURL.appendingPathComponent("page.html"))
        #expect(String(decoding: page, as: UTF8.self) == "<a href=\"\(server.baseURL)feed.xml\">feed</a>")
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)/")
    }

    @Test func validatorsSentBackGetNotModified() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("feed.xml")
        let (_, first) = try await get(url)
        let etag = try #require(first.value(forHTTPHeaderField: "ETag"))
        let lastModified = try #require(first.value(forHTTPHeaderField: "Last-Modified"))

        let (body, notModified) = try await get(url, headers: ["If-None-Match": etag])
        #expect(notModified.statusCode == 304)
        #expect(body.isEmpty)
        #expect(try await get(url, headers: ["If-None-Match": "\"other\", W/\(etag)"]).1.statusCode == 304)
        #expect(try await get(url, headers: ["If-None-Match": "\"other\""]).1.statusCode == 200)
        #expect(try await get(url, headers: ["If-Modified-Since": lastModified]).1.statusCode == 304)
        #expect(
            try await get(url, headers: ["If-Modified-Since": "Wed, 04 Nov 2026 14:30:00 GMT"]).1.statusCode == 200)
        // If-None-Match wins over If-Modified-Since.
        #expect(
            try await get(url, headers: ["If-None-Match": "\"other\"", "If-Modified-Since": lastModified]).1
                .statusCode == 200)
        #expect(server.requestLog.filter { $0 == "GET /feed.xml 304" }.count == 3)
    }

    @Test func anUnknownPathIsNotFoundAndHeadSendsNoBody() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let (_, missing) = try await get(server.baseURL.appendingPathComponent("nothing.xml"))
        #expect(missing.statusCode == 404)
        let (body, head) = try await get(server.baseURL.appendingPathComponent("feed.xml"), method: "HEAD")
        #expect(head.statusCode == 200)
        #expect(body.isEmpty)
        #expect(head.value(forHTTPHeaderField: "Content-Length") == String(Self.rss.utf8.count))
        let post = try rawRequest(server, "POST /feed.xml HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(post.contains("Allow: GET, HEAD\r\n"))
        #expect(post.contains("Connection: close\r\n"))
    }

    @Test func bookmarksArePagedWithNextAndPreviousLinks() async throws {
        let bookmarks = (1...30).map {
            DemoBookmark(
                id: $0, url: "https://example.org/\($0)", title: "Bookmark \($0)",
                tags: $0 == 1 ? ["Swift", "linux"] : [],
                dateAdded: Date(timeIntervalSince1970: 1_793_889_000))
        }
        let server = try makeServer(bookmarks: bookmarks)
        defer { server.stop() }
        let first = try #require(URL(string: "api/bookmarks/?limit=20", relativeTo: server.baseURL))
        let (data, response) = try await get(first)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let page = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(page["count"] as? Int == 30)
        #expect(page["previous"] is NSNull)
        let next = try #require(page["next"] as? String)
        #expect(next == "\(server.baseURL)api/bookmarks/?limit=20&offset=20")
        let results = try #require(page["results"] as? [[String: Any]])
        #expect(results.count == 20)
        #expect(results[0]["id"] as? Int == 1)
        #expect(results[0]["url"] as? String == "https://example.org/1")
        #expect(results[0]["title"] as? String == "Bookmark 1")
        #expect(results[0]["tag_names"] as? [String] == ["Swift", "linux"])
        #expect(results[0]["date_added"] as? String == "2026-11-05T14:30:00Z")
        #expect(Set(results[0].keys) == ["id", "url", "title", "description", "notes", "tag_names", "date_added"])

        let (secondData, _) = try await get(try #require(URL(string: next)))
        let second = try #require(try JSONSerialization.jsonObject(with: secondData) as? [String: Any])
        #expect((second["results"] as? [[String: Any]])?.map { $0["id"] as? Int } == Array(21...30))
        #expect(second["next"] is NSNull)
        #expect(second["previous"] as? String == "\(server.baseURL)api/bookmarks/?limit=20&offset=0")

        let bad = try #require(URL(string: "api/bookmarks/?limit=0", relativeTo: server.baseURL))
        #expect(try await get(bad).1.statusCode == 400)
    }

    @Test func theBookmarksTokenIsChecked() async throws {
        let bookmark = DemoBookmark(id: 1, url: "https://example.org/", title: "One", dateAdded: Date())
        let server = try makeServer(bookmarks: [bookmark], token: "s3cret")
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("api/bookmarks/")
        let (body, anonymous) = try await get(url)
        #expect(anonymous.statusCode == 401)
        #expect(String(decoding: body, as: UTF8.self).contains("Invalid token."))
        #expect(try await get(url, headers: ["Authorization": "Token wrong"]).1.statusCode == 401)
        let (data, allowed) = try await get(url, headers: ["Authorization": "Token s3cret"])
        #expect(allowed.statusCode == 200)
        let page = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(page["count"] as? Int == 1)
    }

    @Test func badClientsDoNotStopTheServer() async throws {
        let server = try makeServer()
        defer { server.stop() }
        // Connects, sends half a request and goes away.
        let fd = try connect(server)
        _ = "GET /feed.xml HT".withCString { send(fd, $0, 16, Int32(MSG_NOSIGNAL)) }
        close(fd)
        // A head larger than the bound.
        let huge = try rawRequest(
            server, "GET /feed.xml HTTP/1.1\r\nX-Pad: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        #expect(huge.hasPrefix("HTTP/1.1 431 "))
        #expect(try rawRequest(server, "NONSENSE\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        // Asks and leaves without reading the answer.
        let leaver = try connect(server)
        _ = "GET /feed.xml HTTP/1.1\r\n\r\n".withCString { send(leaver, $0, 27, Int32(MSG_NOSIGNAL)) }
        close(leaver)
        #expect(try await get(server.baseURL.appendingPathComponent("feed.xml")).1.statusCode == 200)
    }

    @Test func stopClosesThePort() throws {
        let server = try makeServer()
        #expect(try rawRequest(server, "GET /feed.xml HTTP/1.0\r\n\r\n").hasPrefix("HTTP/1.1 200 OK\r\n"))
        server.stop()
        server.stop()
        #expect(throws: (any Error).self) { try connect(server) }
    }

    // MARK: A raw client, for what URLSession will not send

    private struct SocketError: Error {}

    private func connect(_ server: DemoServer) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw SocketError()
        }
        return fd
    }

    /// Sends `text` and reads until the server closes.
    private func rawRequest(_ server: DemoServer, _ text: String) throws -> String {
        let fd = try connect(server)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
