import Foundation
import Testing

@testable import Feeds

/// Each way a feed's bytes name their encoding, with documents the tests write.
@Suite struct ParsingEncodingTests {
    static let url = URL(string: "https://example.com/feed.xml")!

    /// An RSS feed whose channel title is `title`, as text (no declaration unless given).
    static func rss(title: String, declaration: String? = nil) -> String {
        (declaration ?? "") + "<rss version=\"2.0\"><channel><title>\(title)</title></channel></rss>"
    }

    func title(_ data: Data, contentType: String? = nil) throws -> String? {
        try FeedParser.parse(data, url: Self.url, contentType: contentType).title
    }

    @Test func latin1DeclaredInTheDocument() throws {
        let text = Self.rss(title: "Café crème", declaration: #"<?xml version="1.0" encoding="ISO-8859-1"?>"#)
        let data = try #require(text.data(using: .isoLatin1))
        #expect(data.contains(0xE9))
        #expect(try title(data) == "Café crème")
    }

    @Test func theHTTPCharsetBeatsTheDeclaration() throws {
        // Bytes in Latin-1, a declaration that lies (UTF-8), a header that tells the truth.
        let text = Self.rss(title: "Señor Müller", declaration: #"<?xml version="1.0" encoding="UTF-8"?>"#)
        let data = try #require(text.data(using: .isoLatin1))
        #expect(try title(data, contentType: "application/rss+xml; charset=iso-8859-1") == "Señor Müller")
        // And the other way round: UTF-8 bytes, a declaration saying Latin-1, a header saying UTF-8.
        let utf8 = Data(Self.rss(title: "Señor", declaration: #"<?xml version="1.0" encoding="ISO-8859-1"?>"#).utf8)
        #expect(try title(utf8, contentType: #"text/xml; charset="UTF-8""#) == "Señor")
        #expect(try title(utf8) == "SeÃ±or")  // without the header, the declaration is believed
    }

    @Test func invalidUTF8WithNoLabelIsReadAsWindows1252() throws {
        // windows-1252 curly quotes and a euro sign: 0x93 0x94 0x80.
        var data = Data(Self.rss(title: "QUOTE").utf8)
        let range = try #require(data.range(of: Data("QUOTE".utf8)))
        data.replaceSubrange(range, with: [0x93, 0x48, 0x69, 0x94, 0x20, 0x80, 0x35])
        #expect(try title(data) == "“Hi” €5")
        #expect(try title(data, contentType: "text/xml; charset=windows-1252") == "“Hi” €5")
    }

    @Test(arguments: [
        (String.Encoding.utf16LittleEndian, [UInt8]([0xFF, 0xFE])), (.utf16BigEndian, [0xFE, 0xFF]),
        (.utf16LittleEndian, []), (.utf16BigEndian, []), (.utf32LittleEndian, [0xFF, 0xFE, 0x00, 0x00]),
        (.utf32BigEndian, [0x00, 0x00, 0xFE, 0xFF]), (.utf32LittleEndian, []), (.utf32BigEndian, []),
        (.utf8, [0xEF, 0xBB, 0xBF]),
    ])
    func wideEncodingsWithAndWithoutAByteOrderMark(encoding: String.Encoding, bom: [UInt8]) throws {
        let label =
            encoding == .utf8
            ? "UTF-8" : (encoding == .utf16LittleEndian || encoding == .utf16BigEndian ? "UTF-16" : "UTF-32")
        let text = Self.rss(title: "Ünïcødé ✓ 𝄞", declaration: "<?xml version=\"1.0\" encoding=\"\(label)\"?>")
        let body = try #require(text.data(using: encoding))
        #expect(try title(Data(bom) + body) == "Ünïcødé ✓ 𝄞")
        // A header naming an 8-bit charset cannot make wide text narrow.
        #expect(try title(Data(bom) + body, contentType: "application/xml; charset=iso-8859-1") == "Ünïcødé ✓ 𝄞")
    }

    @Test func controlBytesAreDropped() throws {
        var data = Data(Self.rss(title: "AXBXC").utf8)
        let range = try #require(data.range(of: Data("AXBXC".utf8)))
        data.replaceSubrange(range, with: [0x41, 0x00, 0x42, 0x0B, 0x1F, 0x09, 0x43, 0x1B])
        #expect(try title(data) == "AB C")
        #expect(CharsetDecoder.droppingControlCharacters("a\u{0}b\u{7}\tc\r\nd\u{FFFE}") == "ab\tc\r\nd")
    }

    @Test func otherFoundationEncodingsByTheirIANANames() throws {
        let text = Self.rss(title: "Привет", declaration: #"<?xml version="1.0" encoding="windows-1251"?>"#)
        let data = try #require(text.data(using: .windowsCP1251))
        #expect(try title(data) == "Привет")
        #expect(CharsetDecoder.Encoding(label: "ISO-8859-2") == .foundation(.isoLatin2, "iso-8859-2"))
        #expect(CharsetDecoder.Encoding(label: "x-unknown") == nil)
        #expect(CharsetDecoder.charsetParameter("text/xml; foo=bar; CHARSET='Shift_JIS'") == "shift_jis")
    }

    @Test func anUnknownCharsetFallsBackToWhatTheBytesSay() throws {
        let data = Data(Self.rss(title: "naïve").utf8)
        #expect(try title(data, contentType: "text/xml; charset=x-klingon") == "naïve")
    }

    @Test func jsonFeedInUTF16() throws {
        let json = #"{"version":"https://jsonfeed.org/version/1.1","title":"Ça va","items":[]}"#
        let data = Data([0xFF, 0xFE]) + json.data(using: .utf16LittleEndian)!
        let document = try FeedParser.parse(data, url: Self.url)
        #expect(document.kind == .jsonFeed)
        #expect(document.title == "Ça va")
    }
}
