import Foundation

/// The request line and headers of one HTTP/1.x request; the demo server needs no body.
struct HTTPRequestHead: Sendable, Equatable {
    var method: String
    /// The path, without the query.
    var path: String
    /// Query items in order; a name without `=` has the value `""`.
    var query: [(String, String)]
    /// Header names lowercased; a repeated header's values joined with `, `.
    var headers: [String: String]

    static func == (lhs: HTTPRequestHead, rhs: HTTPRequestHead) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.headers == rhs.headers
            && lhs.query.map(\.0) == rhs.query.map(\.0) && lhs.query.map(\.1) == rhs.query.map(\.1)
    }

    /// Parses the bytes before the blank line; `nil` when they are not a request.
    init?(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isUppercase }), parts[1].hasPrefix("/")
        else { return nil }
        method = String(parts[0])
        let target = parts[1]
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = target[target.index(after: mark)...].split(separator: "&").map { item in
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
                let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
                return (name, value)
            }
        } else {
            path = String(target)
            query = []
        }
        headers = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
    }

    func queryValue(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
}
