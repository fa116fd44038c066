import Foundation
import Stash
import Testing

/// A fetch reads each column through its value's kind (`SQLiteStatement.cell`), and a
/// column whose kind is not the attribute's goes to the codec: a row a person edited in the
/// `sqlite3` shell is read as Swift would read the value, or refused with an error that
/// names the entity and the attribute, never read as something else.
@Suite struct StoredKindTests {
    final class Reading: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var note: String?
        @Attribute var score: Double
        @Attribute var done: Bool
        @Attribute var count: Int
    }

    /// A store holding one row (id 1) with `set` applied by hand, read by a new container.
    private func read(after set: String) throws -> Result<Reading, StashError> {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        do {
            let context = ManagedObjectContext(try testContainer(for: Reading.self, storeURL: file))
            let row = Reading(context: context)
            row.id = 1
            row.title = "first"
            row.note = "kept"
            row.score = 2.5
            row.done = true
            row.count = 7
            try context.save()
        }
        _ = try sqliteShellWriting(file, "UPDATE Reading SET \(set)")
        let context = ManagedObjectContext(try testContainer(for: Reading.self, storeURL: file))
        do {
            let found = try context.fetch(FetchDescriptor<Reading>())
            #expect(found.count == 1)
            return .success(try #require(found.first))
        } catch let error as StashError {
            return .failure(error)
        }
    }

    @Test(.sqliteOnly("writes values of another kind into a column, which PostgreSQL's types refuse"))
    func valuesOfTheirOwnKindAreReadAsTheyAre() throws {
        let row = try read(after: "title = 'edited', note = NULL, score = 0.125, done = 0, count = -3").get()
        #expect(row.title == "edited" && row.note == nil && row.score == 0.125 && !row.done && row.count == -3)
    }

    @Test(.sqliteOnly("writes values of another kind into a column, which PostgreSQL's types refuse"))
    func aValueOfAnotherKindIsAnErrorNamingTheEntityAndTheAttribute() throws {
        let cases: [(set: String, attribute: String)] = [
            ("title = x'00ff'", "title"),
            ("note = x'01'", "note"),
            ("count = 'seven'", "count"),
            ("count = 2.5", "count"),  // INTEGER affinity keeps a real that is not whole
            ("score = 'high'", "score"),  // REAL affinity keeps text that is no number
            ("done = 'yes'", "done"),
            ("done = 2", "done"),
        ]
        // (NULL in a non-optional column is refused by the table itself: NOT NULL.)
        for (set, attribute) in cases {
            switch try read(after: set) {
            case .success(let row):
                Issue.record("\(set) was read: title \(row.title), note \(row.note ?? "nil"), count \(row.count)")
            case .failure(let error):
                #expect(error.entity == "Reading", "\(set)")
                #expect(error.attribute == attribute, "\(set): \(error)")
            }
        }
    }
}
