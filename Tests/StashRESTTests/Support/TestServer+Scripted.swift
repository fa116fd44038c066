import Foundation

extension TestServer {
    /// Makes `/scripted/<name>` answer `status`, `body` and `headers` from now on (a 304 when
    /// the request sends the scripted ETag as If-None-Match): an answer whose headers move while
    /// its body stays. With `bare304`, the 304 repeats the ETag alone, as RFC 9110 allows: no
    /// `Link`.
    func script(
        _ name: String, status: Int = 200, body: String, headers: [String: String], bare304: Bool = false
    ) async throws {
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: headers), as: UTF8.self)
        try await get(
            "scripted/\(name)/set?status=\(status)&body=\(queryValue(body))&headers=\(queryValue(encoded))"
                + (bare304 ? "&bare304=1" : ""))
    }
}
