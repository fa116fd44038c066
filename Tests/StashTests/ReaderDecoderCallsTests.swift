import Foundation
import Testing

@testable import Stash

/// Every call a `Decoder` offers, made by a value's own `init(from:)` (as a `Codable`
/// attribute's is) on the byte-level reader and on JSONDecoder, over JSON values of every
/// kind: the same values, or the same errors (kind, coding path, message).
///
/// The model-level differential tests (`ByteReaderDifferentialTests`) reach the containers
/// only as Stash's own decoding calls them; a hand-written `init(from:)` may call anything.
@Suite struct ReaderDecoderCallsTests {
    /// The JSON values each call is made on.
    static let values = [
        "1", "1.0", "1.5", "-0", "1e2", "300", "-1", "18446744073709551615", "1e400", "0.1",
        #""text""#, #""2026-11-05T14:30:00Z""#, #""https://example.com/a b""#, #""https://example.com/""#,
        #""""#, #""aGk=""#, #""1""#, "true", "false", "null", "[1]", "[]", #"{"a": 1}"#, #"{"a_b": 1, "a": 2}"#,
        #"{"a": "x"}"#, "{}",
        // Numbers at the edges of the types, and forms JSONDecoder reads its own way.
        "-1.0", "1E+2", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "1.7976931348623157e308", "5e-324", "4.9e-325", "123456789012345678", "0.30000000000000004", "-0.0",
        "01", "1.", ".5", "-", "+1", "1e", "0x10",
        // Escapes, and strings that name other values.
        #""caf\u00e9""#, #""a\"b\\c\/d""#, #""\ud83d\ude00""#, #""\ud83d""#, #""\x""#, #""true""#, #""null""#,
        #""1.5""#, #""3fa85f64-5717-4562-b3fc-2c963f66afa6""#, #""red""#, #""2026-11-05T14:30:00.123+02:00""#,
        #"[1, null, 2]"#, #"{"x": 1, "y": null}"#, #"{"x": "1"}"#,
        // Keys a dictionary reads its own way: a number, twice the same, one that is no text.
        #"{"7": "x"}"#, #"{"a": 1, "a": "x"}"#, #"{"a": 1, "a": 2}"#, #"{"a": "x", "\ud800": 1}"#,
        #"{"super": 5}"#,
    ]

    /// The reader's configurations, and a custom date strategy: its closure gets the reader
    /// as its decoder and asks it what such closures ask (a string, else a number), failing
    /// with an error made from the container (`dataCorruptedError(in:)`, its coding path).
    static func configurations() -> [(String, JSONDecoder)] {
        let custom = JSONDecoder()
        custom.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "not a date: \(text) at \(decoder.codingPath.count) keys")
                }
                return date
            }
            return Date(timeIntervalSince1970: try container.decode(Double.self))
        }
        return ReaderConfigurations.all() + [("custom dates", custom)]
    }

    @Test(arguments: DecoderCall.all)
    func aValuesOwnDecodingReadsAlike(call: DecoderCall) throws {
        // The object's keys all ASCII (compared byte for byte), and not (compared as strings).
        let objects = [
            #"{"v": VALUE, "list": [VALUE, 1], "snake_key": VALUE}"#,
            #"{"v": VALUE, "list": [VALUE, 1], "snake_key": VALUE, "cafe\u0301": VALUE}"#,
        ]
        for (configuration, decoder) in Self.configurations() {
            for value in Self.values
            where !(call.readsMembersInHashOrder && value.hasPrefix("{") && value.contains(",")) {
                for object in objects {
                    let data = Data(object.replacingOccurrences(of: "VALUE", with: value).utf8)
                    let userInfo: [CodingUserInfoKey: any Sendable] = [DecoderCall.key: call]
                    let reader = Result {
                        try TapeDecoder.decode(
                            DecoderCallProbe.self, from: data, options: ReaderOptions(decoder)!, userInfo: userInfo
                        ).outcome
                    }
                    decoder.userInfo = userInfo
                    let foundation = Result { try decoder.decode(DecoderCallProbe.self, from: data).outcome }
                    let place = "\(call.name) of \(value) (\(configuration))"
                    switch (reader, foundation) {
                    case (.success(let a), .success(let b)): #expect(a == b, "\(place)")
                    case (.failure(let a), .failure(let b)):
                        #expect(readerErrorText(a) == readerErrorText(b), "\(place)")
                    default: Issue.record("\(place): reader \(reader), JSONDecoder \(foundation)")
                    }
                }
            }
        }
    }
}

extension ReaderDecoderCallsTests {
    /// Each attribute of `OwnValuesRecord` given each value, one record a payload, imported
    /// by the reader and by JSONDecoder: the same rows, the same errors.
    @Test func ownValuesImportAlike() throws {
        var payloads: [Data] = []
        let attributes = try testContainer(for: OwnValuesRecord.self, inMemory: true)
            .entity(for: OwnValuesRecord.self).attributes.map(\.name).filter { $0 != "id" }
        #expect(attributes.count == 10)
        for (index, name) in attributes.enumerated() {
            for (offset, value) in Self.values.enumerated() {
                let id = index * 1_000 + offset
                payloads.append(Data(#"[{"id": \#(id), "\#(name)": \#(value)}]"#.utf8))
            }
        }
        for (configuration, decoder) in Self.configurations() {
            let outcome = try readerDifferential(
                [OwnValuesRecord].self, OwnValuesRecord.self, payloads, decoder: decoder)
            #expect(outcome.reader == outcome.foundation, "\(configuration)")
            let stored = outcome.foundation.split(separator: "\n").filter { !$0.hasPrefix("error") }.count
            // Most values are refused by most attributes (43 of 630 are stored, nulls among
            // them); enough must be stored for the rows to be compared too.
            #expect(stored > 30, "\(configuration): \(stored) rows")
        }
    }
}

extension ReaderDecoderCallsTests {
    /// A document in each encoding JSONDecoder reads (UTF-8 with and without a byte order
    /// mark, UTF-16 and UTF-32 either way round, with and without one), and bytes that are no
    /// JSON text: the reader takes UTF-8 and leaves the rest to JSONDecoder, so every one
    /// imports, or fails, alike.
    @Test func everyEncodingImportsAlike() throws {
        let text = #"[{"id": 1, "title": "café 😀", "kids": [2, 3]}, {"id": 4, "name": "\u00e9"}]"#
        var documents: [(String, Data)] = [
            ("UTF-8", Data(text.utf8)),
            ("UTF-8, BOM", Data([0xEF, 0xBB, 0xBF] + Array(text.utf8))),
            ("UTF-8, BOM only", Data([0xEF, 0xBB, 0xBF])),
            ("UTF-8, two BOMs", Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array(text.utf8))),
            ("empty", Data()),
            ("a NUL", Data([0])),
            ("spaces", Data("  \n ".utf8)),
        ]
        for (name, encoding) in [
            ("UTF-16LE", String.Encoding.utf16LittleEndian), ("UTF-16BE", .utf16BigEndian),
            ("UTF-32LE", .utf32LittleEndian), ("UTF-32BE", .utf32BigEndian),
        ] {
            let bare = try #require(text.data(using: encoding))
            documents.append((name, bare))
            let mark = try #require("\u{FEFF}".data(using: encoding))
            documents.append(("\(name), BOM", mark + bare))
        }
        for (name, data) in documents {
            let outcome = try readerDifferential(
                [CorpusRecord].self, CorpusRecord.self, [data], decoder: JSONDecoder())
            #expect(outcome.reader == outcome.foundation, "\(name)")
        }
        let plain = try readerDifferential(
            [CorpusRecord].self, CorpusRecord.self, [Data(text.utf8)], decoder: JSONDecoder())
        #expect(plain.foundation.split(separator: "\n").count == 2, "the UTF-8 document imports its two records")
    }
}
