import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers every request with one JSON body, for
/// the REST import: both sides download the same bytes the same way.
final class LoopbackServer: @unchecked Sendable {
    // Unchecked: the socket is set once in `init`; the serving thread only reads it.
    let port: UInt16
    private let socket: Int32
    private let response: Data

    init(body: Data) throws {
        let header =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        response = Data(header.utf8) + body
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
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/articles")! }

    private func serve() {
        while true {
            let connection = accept(socket, nil, nil)
            if connection < 0 { return }
            // The request's head, up to the blank line; the body is ignored.
            var request = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.ends(with: [13, 10, 13, 10]) {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                request += buffer[0..<count]
            }
            response.withUnsafeBytes { bytes in
                var sent = 0
                while sent < bytes.count {
                    let count = write(connection, bytes.baseAddress! + sent, bytes.count - sent)
                    if count <= 0 { break }
                    sent += count
                }
            }
            close(connection)
        }
    }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
