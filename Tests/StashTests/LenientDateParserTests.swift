import Foundation
import Stash
import Testing

/// Dates as feeds and APIs send them, each checked against the instant it names.
@Suite struct LenientDateParserTests {
    /// 2026-11-05 14:30:00 UTC.
    static let instant = 1_793_889_000.0

    /// Midnight of that day.
    static let midnight = 1_793_836_800.0

    static let readable: [(String, Double)] = [
        ("2026-11-05T14:30:00Z", instant),
        ("2026-11-05T14:30:00.250Z", instant + 0.25),
        ("2026-11-05T14:30:00,5z", instant + 0.5),
        ("2026-11-05T14:30:00.123456789Z", instant + 0.123456789),
        ("2026-11-05t14:30:00+01:00", instant - 3_600.0),
        ("2026-11-05T14:30:00-0530", instant + 19_800),
        ("2026-11-05T14:30:00+02", instant - 7_200),
        ("2026-11-05T14:30Z", instant),
        ("2026-11-05T14:30:00", instant),
        ("2026-11-05 14:30:00Z", instant),
        ("2026-11-05 14:30:00 UTC", instant),
        ("2026-11-05 14:30:00 +0000", instant),
        ("2026-11-05", midnight),
        ("  2026-11-05T14:30:00Z ", instant),
        ("Tue, 05 Nov 2026 14:30:00 GMT", instant),
        ("Thu, 5 Nov 2026 14:30:00 +0000", instant),
        ("05 Nov 2026 14:30:00 Z", instant),
        ("Thursday, 05-Nov-26 14:30:00 UT", instant),
        ("Thu, 05 November 2026 14:30 GMT", instant),
        ("Thu, 05 Nov 2026 09:30:00 EST", instant),
        ("Thu, 05 Nov 2026 10:30:00 EDT", instant),
        ("Thu, 05 Nov 2026 06:30:00 PST", instant),
        ("Thu, 05 Nov 2026 15:30:00 CET", instant),
        ("Thu, 05 Nov 2026 16:30:00 CEST", instant),
        ("thu, 05 nov 2026 14:30:00 gmt", instant),
        ("Thu, 05 Nov 2026 20:00:00 +0530", instant),
        ("Thu, 05 Nov 2026 14:30:00", instant),
        ("05 Nov 2026", midnight),
        ("Fri, 01 Jan 99 00:00:00 GMT", 915_148_800),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("1969-12-31T23:59:59Z", -1),
        // What feeds send: an offset after GMT, a one-digit hour, no comma, a wrong day name,
        // two-digit years on both sides of 2000, a CDT and a BST.
        ("Thu, 05 Nov 2026 13:29:00 GMT-01:01", instant),
        ("Thu, 05 Nov 2026 16:30:00 UTC+0200", instant),
        ("Thu, 5 Nov 2026 9:30:00 EST", instant),
        ("Thu 05 Nov 2026 14:30:00 GMT", instant),
        ("Mon, 05 Nov 2026 14:30:00 GMT", instant),
        ("Sun, 06 Jul 14 12:56:00 GMT", 1_404_651_360),
        ("Fri, 01 Oct 2010 09:00:00 CDT", 1_285_941_600),
        ("Sat, 01 Jul 2023 13:00 BST", 1_688_212_800),
        ("2014-07-06T12:56:00.000+00:00", 1_404_651_360),
        ("Thu, 05 Nov 2026 15:30:00 +0100 (CET)", instant),
        ("Sat, 05 Sept 2026 14:30:00 GMT", instant - 61 * 86_400),
    ]

    @Test(arguments: readable)
    func readsWhatFeedsSend(text: String, seconds: Double) throws {
        let date = try #require(LenientDateParser().date(from: text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(text): \(date.timeIntervalSince1970)")
    }

    /// Never a guess: no 1970, no now, for what is not a date.
    @Test(arguments: [
        "", "not a date", "2026-11-31", "2026-02-29T00:00:00Z", "2026-13-01", "2026-11-05T24:00:00Z",
        "2026-11-05T14:61:00Z", "2026-11-05T14:30:00+25:00", "2026-11-05T14:30:00Q", "2026-11-05T14",
        "2026-11-05T14:30:00.Z", "2026-11-05x", "Thu, 05 Nov 2026 14:30:00 IST", "Thu, 05 Nov 2026 14:30:00 A",
        "Thu, 05 Foo 2026 14:30:00 GMT", "Thu, 05 Nov 202 14:30:00 GMT", "Thx, 05 Nov 2026", "1793975400",
        "2026-11-05T14:30:00Z trailing", "Thu, 05 Nov 2026 14:30:00 GMT+1",
        "Thu, 05 Nov 2026 14:30:00 GMT-01:61", "Thu, 05 Nov 2026 14:30:00 EST-0100", "Thu, 05 Nov 2026 123:30:00 GMT",
        "Thu, 05 Nov 2026 15:30:00 +0100 (CET", "Thu, 05 Septe 2026",
    ])
    func refusesWhatIsNoDate(text: String) {
        #expect(LenientDateParser().date(from: text) == nil, "\(text)")
    }

    /// Through a decoder: the strategy reads the variants and quotes what it cannot read,
    /// at the key's path.
    @Test func theDecodingStrategy() throws {
        struct Dated: Decodable { let at: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .lenient
        let dates = try decoder.decode(
            [Dated].self, from: Data(#"[{"at": "2026-11-05"}, {"at": "Tue, 05 Nov 2026 14:30:00 GMT"}]"#.utf8))
        #expect(dates.map(\.at.timeIntervalSince1970) == [Self.midnight, Self.instant])
        #expect {
            _ = try decoder.decode([Dated].self, from: Data(#"[{"at": "2026-11-05"}, {"at": "soon"}]"#.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription
                == #"expected a date (RFC 3339, ISO 8601, RFC 822 or RFC 1123), found "soon""#
                && context.codingPath.map(\.stringValue) == ["Index 1", "at"]
        }
    }
}
