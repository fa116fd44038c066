import Foundation
import Testing

@testable import Stash

/// Every column type a digest reads.
final class DigestSample: ManagedObject {
    @Attribute(.unique) var id: Int
    @Attribute var ratio: Double = 0
    @Attribute var note: String?
    @Attribute var bytes = Data()
    @Attribute var name = ""
}

/// Reading back rows by id, as conditional GET checks what an answer left: range scans over
/// dense row ids, the digest read in place, row ids kept as runs.
@Suite struct RowReadBackTests {
    /// The rows a fetch by row ids returns, whatever the list's shape: dense (a range scan),
    /// with gaps and duplicates, sparse (`IN` batches), unsorted, past the last row, and longer
    /// than one range.
    @Test(.sqliteOnly("the range scan is SQLite's fetch"))
    func aFetchByRowIDsReturnsExactlyTheRowsListed() throws {
        let (container, _) = try savedPosts(10_000)
        let schema = container.entities.first { $0.name == "Post" }!.schema
        func fetched(_ rowIDs: [Int64]) throws -> [Int64] {
            var found: [Int64] = []
            try container.store.fetch(StoreQuery(schema, columns: [0], filter: .rowIDs(rowIDs))) { row in
                #expect(row.integer(0) == row.rowID, "post \(row.rowID)'s id")
                found.append(row.rowID)
            }
            return found
        }
        let every = Array(Int64(1)...10_000)
        #expect(try fetched(every) == every)
        let gaps: [Int64] = [3, 4, 4, 6, 9, 10, 10, 12]
        #expect(try fetched(gaps) == [3, 4, 6, 9, 10, 12])
        let sparse: [Int64] = [2, 900, 5_000, 9_999]
        #expect(try fetched(sparse) == sparse)
        #expect(try fetched([7, 3, 5, 4]) == [3, 4, 5, 7])
        #expect(try fetched([9_998, 9_999, 10_000, 10_001, 10_002]) == [9_998, 9_999, 10_000])
        let mixed = Array(Int64(1)...9_000) + stride(from: Int64(9_001), through: 10_000, by: 97).map { $0 }
        #expect(try fetched(mixed) == mixed)
        #expect(try fetched([]) == [])
        #expect(try fetched([42]) == [42])
    }

    /// A digest read from the row in place is the digest of the row's value.
    @Test func aDigestReadInPlaceIsTheValuesDigest() throws {
        let container = try testContainer(for: DigestSample.self, inMemory: true)
        let context = ManagedObjectContext(container)
        for id in 1...3 {
            let sample = DigestSample(context: context)
            sample.id = id
            sample.ratio = Double(id) / 3
            sample.note = id == 2 ? nil : "note é \(id) " + String(repeating: "x", count: id * 5)
            sample.bytes = Data((0..<UInt8(id * 6)).map { $0 })
            sample.name = id == 3 ? "" : "name \(id)"
        }
        try context.save()
        let entity = container.entities.first { $0.name == "DigestSample" }!
        var rows = 0
        try container.store.fetch(StoreQuery(entity.schema)) { row in
            for column in entity.attributes.indices {
                var inPlace = RowDigest()
                row.digest(column, into: &inPlace)
                var byValue = RowDigest()
                byValue.add(row.value(column))
                #expect(inPlace.value == byValue.value, "row \(row.rowID), column \(column): \(row.value(column))")
            }
            rows += 1
        }
        #expect(rows == 3)
        var one = RowDigest()
        one.add(.text("abcdefgh"))
        var other = RowDigest()
        other.add(.text("abcdefgi"))
        #expect(one.value != other.value)
        var longer = RowDigest()
        longer.add(.text("abcdefgh\0"))
        #expect(one.value != longer.value)
    }

    /// Runs in, runs out; damaged text is refused, not read as something else.
    @Test func rowIDsAreKeptAsRuns() throws {
        let cases: [([Int64], String)] = [
            ([], ""), ([5], "5"), ([1, 2, 3], "1-3"), ([3, 5, 6, 7, 9], "3,5-7,9"), ([7, 3, 4], "7,3-4"),
            ([-3, -2, 0], "-3--2,0"), ([4, 4], "4,4"),
        ]
        for (rowIDs, text) in cases {
            let runs = RowIDRuns(rowIDs)
            #expect(runs.text == text)
            let encoded = try JSONEncoder().encode(runs)
            #expect(try JSONDecoder().decode(RowIDRuns.self, from: encoded) == runs)
        }
        let huge = #""-9223372036854775808-9223372036854775807""#
        for bad in [#""1-""#, #""x""#, #""5-2""#, #""1,,2""#, "[4,2,9]", huge] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(RowIDRuns.self, from: Data(bad.utf8)) }
        }
        let coverage = ValueCoverage(entity: "Post", columns: ["title"], rows: Array(1...1_000))
        let text = String(decoding: try JSONEncoder().encode(coverage), as: UTF8.self)
        #expect(text.contains(#""rows":"1-1000""#))
        #expect(try JSONDecoder().decode(ValueCoverage.self, from: Data(text.utf8)) == coverage)
    }
}
