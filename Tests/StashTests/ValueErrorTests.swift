import Foundation
import Stash
import Testing

/// A dated model for the date strategies' errors.
final class Stamped: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var date: Date
}

/// Numbers at the edges of what Swift and SQLite keep.
final class Gauge: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var v: Double = 0
    @Attribute var count: Int = 0
    @Attribute var small: Float?
}

/// A value JSONDecoder refuses is a `StashError` that names the entity, the attribute and a
/// path ending in the attribute's key, and quotes what the JSON held.
@Suite(.bothStores) struct ValueErrorTests {
    private func failure<T: Decodable>(
        _ type: T.Type, _ payload: String, _ configure: (JSONDecoder) -> Void = { _ in }
    ) throws -> (StashError?, Int) {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Stamped.self, Gauge.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let decoder = JSONDecoder()
        configure(decoder)
        let error = #expect(throws: StashError.self) {
            _ = try context.decode(type, from: json(payload), using: decoder)
        }
        try context.save()
        let rows =
            try ManagedObjectContext(container).fetchCount(FetchDescriptor<Stamped>())
            + ManagedObjectContext(container).fetchCount(FetchDescriptor<Gauge>())
        withExtendedLifetime(directory) {}
        return (error, rows)
    }

    @Test func aBadISO8601DateEndsThePathInTheKeyAndQuotesTheText() throws {
        let (error, rows) = try failure(
            [Stamped].self, #"[{"id": 1, "date": "2026-11-05"}]"#, { $0.dateDecodingStrategy = .iso8601 })
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "Stamped")
        #expect(error?.attribute == "date")
        #expect(error?.codingPath == "[0].date")
        #expect(
            error.map { "\($0)" }
                == #"Stash decoding failed: Stamped.date at [0].date: invalid value "2026-11-05": "#
                + "Expected date string to be ISO8601-formatted.")
        #expect(rows == 0)
    }

    @Test func aCustomDateStrategysErrorEndsThePathInTheKeyAndIsNotQuotedTwice() throws {
        let (error, _) = try failure([Stamped].self, #"[{"id": 1, "date": "2026-11-05"}, {"id": 2, "date": "soon"}]"#) {
            $0.dateDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                let text = try container.decode(String.self)
                guard let date = try? Date(text, strategy: .iso8601.year().month().day()) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date: \"\(text)\"")
                }
                return date
            }
        }
        #expect(error?.codingPath == "[1].date")
        #expect(error?.message == #"invalid value: not a date: "soon""#)
    }

    @Test func aWrongTypeQuotesWhatWasFound() throws {
        let (text, _) = try failure([Gauge].self, #"[{"id": 1, "count": "many"}]"#)
        #expect(text?.attribute == "count")
        #expect(text?.codingPath == "[0].count")
        #expect(
            text?.message == #"expected Int, found "many": Expected to decode Int but found a string instead."#)
        let (number, _) = try failure([Stamped].self, #"[{"id": 1, "date": 1793889000.5}]"#) {
            $0.dateDecodingStrategy = .iso8601
        }
        #expect(number?.codingPath == "[0].date")
        #expect(number?.message.contains("found 1793889000.5") == true)
        let (flag, _) = try failure([Gauge].self, #"[{"id": 1, "v": true}]"#)
        #expect(flag?.codingPath == "[0].v")
        #expect(flag?.message.contains("found true") == true)
    }

    @Test(arguments: [
        (#"{"id": 1, "count": 9223372036854775808}"#, "count", "9223372036854775808"),
        (#"{"id": 1, "count": 1.5}"#, "count", "1.5"),
        (#"{"id": 1, "v": 1e400}"#, "v", "1e400"),
        (#"{"id": 1, "small": 1e39}"#, "small", "1e39"),
    ])
    func aNumberOutOfRangeNamesEntityAttributeAndPath(payload: String, attribute: String, number: String) throws {
        let (error, rows) = try failure([Gauge].self, "[\(payload)]")
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "Gauge")
        #expect(error?.attribute == attribute)
        #expect(error?.codingPath == "[0].\(attribute)")
        #expect(error?.message.contains(number) == true)
        #expect(error?.message.contains("not valid JSON") == false)
        #expect(rows == 0)
    }

    @Test func aUniqueNumberOutOfRangeIsNamedToo() throws {
        let (error, _) = try failure([Gauge].self, #"[{"id": 1}, {"id": 18446744073709551616}]"#)
        #expect(error?.attribute == "id")
        #expect(error?.codingPath == "[1].id")
        #expect(
            error?.message == "the number 18446744073709551616 does not fit Int (out of range, or not a whole number)")
    }

    @Test func nanIsRefusedAtDecodeNamingTheAttribute() throws {
        let (error, rows) = try failure([Gauge].self, #"[{"id": 1, "v": 2.5}, {"id": 2, "v": "nan"}]"#) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "Gauge")
        #expect(error?.attribute == "v")
        #expect(error?.codingPath == "[1].v")
        #expect(error?.message.contains("NaN") == true)
        #expect(rows == 0)
        let (optional, _) = try failure([Gauge].self, #"[{"id": 3, "small": "nan"}]"#) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        }
        #expect(optional?.attribute == "small")
        #expect(optional?.codingPath == "[0].small")
    }

    @Test(.sqliteOnly("reads the sqlite3 shell's spelling of infinity (Inf)")) func infinitiesAreStoredAndReadBack()
        throws
    {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Gauge.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        _ = try context.decode(
            [Gauge].self, from: json(#"[{"id": 1, "v": "inf", "small": "-inf"}]"#), using: decoder)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT v, small FROM Gauge") == "Inf|-Inf\n")
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Gauge>())
        #expect(stored.map(\.v) == [.infinity])
        #expect(stored.map(\.small) == [-.infinity])
    }
}
