import Dispatch
import Foundation
import Stash

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for `feeds demo` and tests: a real server on an
/// ephemeral port, so what is fetched from it goes through the same code as the internet.
///
/// Every response carries `Connection: close` and the socket is closed after it: one request
/// per connection keeps the server simple and leaves no idle keep-alive connections for
/// `stop()` to wait on. Requests are read up to `maxHeadBytes` (else 431) with a 5-second
/// timeout (else 408); a client that goes away mid-request or mid-response is dropped (writes
/// use `MSG_NOSIGNAL`, so no SIGPIPE). GET and HEAD, and the bookmarks API's writes (POST,
/// PATCH, DELETE with a `Content-Length` body of at most `maxBodyBytes`, else 413).
///
/// For example:
///
///     let server = try DemoServer { base in
///         ["/feed.xml": DemoResource(contentType: "application/rss+xml", text: rss)]
///     }
///     defer { server.stop() }
///     let url = server.baseURL.appendingPathComponent("feed.xml")
public final class DemoServer: Sendable {
    /// The port the OS chose.
    public let port: UInt16
    /// `http://127.0.0.1:PORT/`.
    public let baseURL: URL
    private let core: Core

    /// Binds to 127.0.0.1 on an ephemeral port and starts answering. `resources` is given the
    /// base URL, so documents can link to the server itself.
    /// `address` is where it listens: 127.0.0.1, or another address of the loopback range
    /// (127.0.0.2 is another host to a client, on the same machine).
    public init(
        address: String = "127.0.0.1", bookmarks: [DemoBookmark] = [], token: String? = nil,
        maxHeadBytes: Int = 16 * 1024, resources: (_ baseURL: URL) -> [String: DemoResource] = { _ in [:] }
    ) throws {
        var loopback = in_addr()
        guard inet_pton(AF_INET, address, &loopback) == 1, address.hasPrefix("127.") else {
            throw DemoServerError("\(address) is not an IPv4 loopback address (127.0.0.0/8)")
        }
        let listener = try DemoServer.openListener(on: loopback)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else {
            close(listener)
            throw DemoServerError("getsockname failed: errno \(errno)")
        }
        port = UInt16(bigEndian: bound.sin_port)
        baseURL = URL(string: "http://\(address):\(port)/")!
        let routes = DemoRoutes(resources: resources(baseURL), bookmarks: bookmarks, token: token, baseURL: baseURL)
        core = Core(listener: listener, routes: routes, maxHeadBytes: maxHeadBytes)
        core.start()
    }

    deinit { core.stop() }

    /// Stops accepting, waits for the requests in flight (up to 5 seconds) and closes the
    /// socket. Safe to call more than once.
    public func stop() { core.stop() }

    /// `GET /feed.xml 304`, one line per request answered, in order.
    public var requestLog: [String] { core.log.withLock { $0 } }

    /// The bookmarks the API holds now, writes included.
    public var bookmarks: [DemoBookmark] { core.routes.withLock { $0.bookmarks } }

    /// The most requests the server was answering at one time.
    public var mostAtOnce: Int { core.inFlight.withLock { $0.most } }

    /// Answers `resource` at `path` from now on (`nil`: 404).
    public func setResource(_ resource: DemoResource?, at path: String) {
        core.routes.withLock { $0.resources[path] = resource }
    }

    private static func openListener(on loopback: in_addr) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw DemoServerError("socket failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw DemoServerError("cannot listen on the loopback address: errno \(code)")
        }
        return fd
    }
}

/// Why the demo server could not start.
public struct DemoServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension DemoServer {
    /// The accepting thread and the connections; apart from `DemoServer` so that the thread
    /// does not keep the server alive (its `deinit` stops it).
    fileprivate final class Core: Sendable {
        let listener: Int32
        let routes: Locked<DemoRoutes>
        let maxHeadBytes: Int
        let log = Locked<[String]>([])
        /// Requests being answered now, and the most there were at once.
        let inFlight = Locked<(now: Int, most: Int)>((0, 0))
        private let stopped = Locked(false)
        private let acceptorDone = DispatchSemaphore(value: 0)
        private let connections = DispatchGroup()

        init(listener: Int32, routes: DemoRoutes, maxHeadBytes: Int) {
            self.listener = listener
            self.routes = Locked(routes)
            self.maxHeadBytes = maxHeadBytes
        }

        func start() {
            let thread = Thread { [self] in acceptLoop() }
            thread.name = "feeds-demo-server"
            thread.start()
        }

        func stop() {
            let first = stopped.withLock { stopped in
                defer { stopped = true }
                return !stopped
            }
            guard first else { return }
            // Wakes the blocked accept(); the descriptor is closed only once the thread has
            // left it, so it cannot be reused under the thread's feet.
            shutdown(listener, Int32(SHUT_RDWR))
            acceptorDone.wait()
            close(listener)
            _ = connections.wait(timeout: .now() + 5)
        }

        private func acceptLoop() {
            defer { acceptorDone.signal() }
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    if stopped.withLock({ $0 }) { return }
                    // EMFILE and the like: back off a little rather than spin.
                    usleep(10_000)
                    continue
                }
                if stopped.withLock({ $0 }) {
                    close(client)
                    return
                }
                DispatchQueue.global().async(group: connections) { [self] in serve(client) }
            }
        }

        private func serve(_ client: Int32) {
            defer { close(client) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

            let response: HTTPResponse
            var request: HTTPRequestHead?
            switch readHead(client) {
            case .head(let bytes, let rest):
                request = HTTPRequestHead(bytes)
                let length = request.flatMap { Int($0.headers["content-length"] ?? "0") } ?? 0
                guard length <= Self.maxBodyBytes, let body = readBody(client, length, after: rest) else {
                    let refused = HTTPResponse.text(413, "The body is larger than \(Self.maxBodyBytes) bytes.\n")
                    log.withLock { $0.append("\(request?.method ?? "-") \(request?.path ?? "-") 413") }
                    write(refused.serialized(includingBody: true), to: client)
                    return
                }
                inFlight.withLock { $0 = ($0.now + 1, max($0.most, $0.now + 1)) }
                defer { inFlight.withLock { $0.now -= 1 } }
                if let request {
                    let (answer, delay) = routes.withLock { routes in
                        (routes.respond(to: request, body: body), routes.resources[request.path]?.delay ?? .zero)
                    }
                    if delay > .zero {
                        Thread.sleep(
                            forTimeInterval: Double(delay.components.attoseconds) / 1e18
                                + Double(delay.components.seconds))
                    }
                    response = answer
                } else {
                    response = .text(400, "Bad request.\n")
                }
            case .tooLarge:
                response = .text(431, "Request head larger than \(maxHeadBytes) bytes.\n")
            case .timedOut:
                response = .text(408, "Request timed out.\n")
            case .gone:
                return
            }
            let method = request?.method ?? "-"
            let path = request?.path ?? "-"
            log.withLock { $0.append("\(method) \(path) \(response.status)") }
            write(response.serialized(includingBody: method != "HEAD"), to: client)
            // Half-close, then drain what the client may still send (a body we did not read),
            // so the close does not reset the connection before the response is read.
            shutdown(client, Int32(SHUT_WR))
            var scratch = [UInt8](repeating: 0, count: 4096)
            var drained = 0
            while drained < 65_536 {
                let count = recv(client, &scratch, scratch.count, 0)
                if count <= 0 { break }
                drained += count
            }
        }

        private enum HeadRead {
            /// The head, and the bytes read after it (the body's first).
            case head([UInt8], [UInt8])
            case tooLarge
            case timedOut
            case gone
        }

        /// Reads until the blank line that ends the head, at most `maxHeadBytes`.
        private func readHead(_ client: Int32) -> HeadRead {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let end: [UInt8] = [13, 10, 13, 10]
            while true {
                let count = recv(client, &chunk, chunk.count, 0)
                if count == 0 { return .gone }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK ? (buffer.isEmpty ? .gone : .timedOut) : .gone
                }
                let searchFrom = max(0, buffer.count - 3)
                buffer.append(contentsOf: chunk[0..<count])
                if let range = buffer[searchFrom...].firstRange(of: end) {
                    guard range.lowerBound <= maxHeadBytes else { return .tooLarge }
                    return .head(Array(buffer[..<range.lowerBound]), Array(buffer[range.upperBound...]))
                }
                if buffer.count > maxHeadBytes { return .tooLarge }
            }
        }

        /// The largest request body read (a bookmark's JSON is far smaller).
        static let maxBodyBytes = 1024 * 1024

        /// The `length` bytes of the body, `rest` being its first ones; `nil` when the client
        /// stops sending before the end.
        private func readBody(_ client: Int32, _ length: Int, after rest: [UInt8]) -> Data? {
            var body = Data(rest.prefix(length))
            var chunk = [UInt8](repeating: 0, count: 4096)
            while body.count < length {
                let count = recv(client, &chunk, min(chunk.count, length - body.count), 0)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return nil }
                body.append(contentsOf: chunk[0..<count])
            }
            return body
        }

        /// Sends all of `data`, giving up quietly when the client has gone.
        private func write(_ data: Data, to client: Int32) {
            #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var sent = 0
                while sent < raw.count {
                    let count = send(client, base + sent, raw.count - sent, flags)
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { return }
                    sent += count
                }
            }
        }
    }
}
