import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers every request with one JSON body, for
/// the REST import: both sides download the same bytes the same way. Given pages, it answers
/// `/articles?page=N` with the Nth, and a `Link` header naming the next; or, `nextInBody`,
/// with `{"items": [...], "next": "…?page=N+1"}` (`null` on the last), as many APIs page.
/// With a `latency`, each answer waits that long first, as a request over a network would.
/// Connections are kept open for the next request, as HTTP/1.1 servers keep them (the client
/// reuses one instead of connecting for each page); `keepsConnections: false` closes each
/// after one answer.
final class LoopbackServer: @unchecked Sendable {
    // Unchecked: the socket and the responses are set once in `init`; the serving thread
    // only reads them.
    let port: UInt16
    private let socket: Int32
    /// The answer to each page (1-based in the URL); one for an unpaged body.
    private var responses: [Data] = []
    private let latency: Duration
    private let keepsConnections: Bool

    convenience init(body: Data) throws {
        try self.init(pages: [body])
    }

    init(pages: [Data], nextInBody: Bool = false, latency: Duration = .zero, keepsConnections: Bool = true) throws {
        self.latency = latency
        self.keepsConnections = keepsConnections
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0, listen(socket, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        self.socket = socket
        port = UInt16(bigEndian: address.sin_port)
        responses = pages.enumerated().map { index, page in
            var body = page
            if nextInBody {
                let next = index + 1 < pages.count ? "\"http://127.0.0.1:\(port)/articles?page=\(index + 2)\"" : "null"
                body = Data(#"{"items": "#.utf8) + page + Data(#", "next": \#(next)}"#.utf8)
            }
            var header = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            if !nextInBody, pages.count > 1, index + 1 < pages.count {
                header += "Link: <http://127.0.0.1:\(port)/articles?page=\(index + 2)>; rel=\"next\"\r\n"
            }
            if !keepsConnections { header += "Connection: close\r\n" }
            return Data((header + "\r\n").utf8) + body
        }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/articles")! }

    private func serve() {
        while true {
            let connection = accept(socket, nil, nil)
            if connection < 0 { return }
            var noDelay: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            // A thread a connection: the client asks for pages ahead on connections of its own.
            Thread { [self] in answer(on: connection) }.start()
        }
    }

    /// Answers each request on `connection` until the client closes it (or, not keeping
    /// connections, after the first).
    private func answer(on connection: Int32) {
        defer { close(connection) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // The request's head, up to the blank line; a body is not expected.
            var headEnd = received.endOfHead()
            while headEnd == nil {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { return }
                received += buffer[0..<count]
                headEnd = received.endOfHead()
            }
            let request = Array(received[..<headEnd!])
            received.removeFirst(headEnd!)
            if latency > .zero {
                usleep(UInt32(latency.components.attoseconds / 1_000_000_000_000))
            }
            let sentAll = responses[page(of: request) - 1].withUnsafeBytes { bytes in
                var sent = 0
                while sent < bytes.count {
                    let count = write(connection, bytes.baseAddress! + sent, bytes.count - sent)
                    if count <= 0 { return false }
                    sent += count
                }
                return true
            }
            if !sentAll || !keepsConnections { return }
        }
    }

    /// The page a request's line asks for (`GET /articles?page=12 HTTP/1.1`), 1 without one.
    private func page(of request: [UInt8]) -> Int {
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        guard let range = line.range(of: "page="),
            let number = Int(line[range.upperBound...].prefix { $0.isNumber }), number >= 1, number <= responses.count
        else { return 1 }
        return number
    }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}

extension [UInt8] {
    /// Where the first blank line (`\r\n\r\n`) ends, if the bytes hold one.
    fileprivate func endOfHead() -> Int? {
        guard count >= 4 else { return nil }
        for index in 3..<count
        where self[index] == 10 && self[index - 1] == 13 && self[index - 2] == 10 && self[index - 3] == 13 {
            return index + 1
        }
        return nil
    }
}
