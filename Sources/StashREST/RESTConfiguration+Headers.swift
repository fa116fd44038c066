import Foundation

extension RESTConfiguration {
    /// Refuses a header that would put something else on the wire: a name that is not an
    /// RFC 9110 token (a CR LF in it starts a second header, or a second request), a value
    /// with a CR, LF, NUL or other control character (FoundationNetworking silently dropped
    /// such a header). Checked before the call sends anything, for the client's headers, its
    /// authorization and the call's.
    func checkHeaders(_ options: FetchOptions, url: URL) throws {
        var headers = headers.map { ($0.key, $0.value, "RESTConfiguration.headers") }
        if let authorization { headers.append(("Authorization", authorization.headerValue, "authorization")) }
        headers += options.headers.map { ($0.key, $0.value, "FetchOptions.headers") }
        for (name, value, source) in headers {
            guard Self.isToken(name) else {
                throw RESTError(
                    .invalidHeader,
                    "the header name \(name.debugDescription) (\(source)) is not an RFC 9110 token: letters, digits "
                        + "and !#$%&'*+-.^_`|~ only; nothing was sent", url: url)
            }
            guard Self.isFieldValue(value) else {
                throw RESTError(
                    .invalidHeader,
                    "the value of the header \(name) (\(source)) holds a control character (CR, LF, NUL…), which "
                        + "RFC 9110 does not allow in a field value: \(value.debugDescription); nothing was sent",
                    url: url)
            }
        }
    }

    /// RFC 9110 §5.6.2: `token = 1*tchar`.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// RFC 9110 §5.5: a field value is visible characters, obs-text (bytes from 0x80), spaces
    /// and tabs; never CR, LF, NUL or another control character.
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
    }
}
