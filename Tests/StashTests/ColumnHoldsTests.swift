import Foundation
import Testing

@testable import Stash

/// `SQLiteStatement.column(_:holds:)` answers as `column(_:) == value` does, for every kind of
/// stored value against every kind of value, text that is the same String in other bytes
/// (canonically equivalent spellings, which `StoredValue` tells apart; invalid UTF-8, read as
/// a repaired String) included: a re-import's comparison relies on it to
/// leave unwritten exactly what it left unwritten when it made every stored value.
@Suite struct ColumnHoldsTests {
    @Test func answersAsMakingTheValueWould() throws {
        let connection = try SQLiteConnection(path: nil, busyTimeout: .seconds(1))
        let stored: [String] = [
            "NULL", "0", "42", "-7", "9223372036854775807", "2.5", "-0.0", "0.0", "''", "'é'", "'e' || char(769)",
            "'Item 3'", "'nul' || char(0) || 'inside'", "x''", "x'00ff'", "CAST(x'c3' AS TEXT)", "'42'", "'2.5'",
        ]
        let values: [StoredValue] = [
            .null, .integer(0), .integer(42), .integer(-7), .integer(.max), .real(2.5), .real(-0.0), .real(0),
            .real(.nan), .text(""), .text("é"), .text("e\u{301}"), .text("Item 3"), .text("nul\u{0}inside"),
            .text("\u{FFFD}"), .text("42"), .text("2.5"), .blob([]), .blob([0, 255]),
        ]
        var compared = 0
        var held = 0
        for sql in stored {
            try connection.forEachRow("SELECT \(sql)") { statement in
                for value in values {
                    let expected = statement.column(0) == value
                    #expect(statement.column(0, holds: value) == expected, "\(sql) against \(value)")
                    compared += 1
                    if expected { held += 1 }
                }
            }
        }
        #expect(compared == stored.count * values.count)
        // Each stored value is held by at least one of the values, so the matrix tests both
        // answers.
        #expect(held >= stored.count)
    }

    /// Through a re-import: the same title in other bytes (e + U+0301 over a precomposed é, a
    /// look-alike Swift calls equal) is written, as the stored bytes differ; the same bytes
    /// again are not.
    @Test func aReimportWritesALookAlikeAndNotTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file()
        func reimport(_ title: String) throws -> ChangeSet {
            let context = ManagedObjectContext(try testContainer(for: Post.self, storeURL: file))
            let json = #"[{"id": 1, "userId": 1, "title": "\#(title)", "body": "b"}]"#
            _ = try recipeDecoder(context).decode([Post].self, from: Data(json.utf8))
            return try context.saveChanges()
        }
        #expect(try reimport("\u{E9}").inserted.count == 1)
        #expect(try sqliteShell(file, "SELECT hex(title) FROM Post") == "C3A9\n")
        #expect(try reimport("e\u{301}").updated.count == 1)
        #expect(try sqliteShell(file, "SELECT hex(title) FROM Post") == "65CC81\n")
        #expect(try reimport("e\u{301}").updated.isEmpty)
    }
}
