import Foundation
import Stash
import Testing

/// Attributes read from inside nested JSON objects: `"author_info": {"display_name": …}`.
final class Byline: ManagedObject, Codable {
    @Attribute(.unique) var id: Int
    @Attribute(key: "author_info.display_name") var authorName: String?
    @Attribute(key: "author_info.url") var authorURL: URL?
    @Attribute(key: "user.login") var login: String
    @Attribute(key: "user.site_admin") var admin: Bool = false
    @Attribute(key: #"meta\.version"#) var version: Int = 0
}

/// A unique value inside a nested object: one row per login.
final class Handle: ManagedObject, Decodable {
    @Attribute(.unique, key: "user.login") var login: String
    @Attribute var bio: String?
}

final class HalfNested: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute(key: "author") var author: String?
    @Attribute(key: "author.name") var authorName: String?
}

final class EmptyStep: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute(key: "author..name") var authorName: String?
}

@Suite(.bothStores) struct NestedKeyTests {
    let full = json(
        #"[{"id": 1, "author_info": {"display_name": "Ada", "url": "https://ada.example"},"#
            + #" "user": {"login": "ada", "site_admin": true}, "meta.version": 2}]"#)

    private func store() throws -> (TemporaryDirectory, PersistentContainer) {
        let directory = try TemporaryDirectory()
        return (directory, try testContainer(for: Byline.self, Handle.self, storeURL: directory.file()))
    }

    @Test func aDottedKeyReadsFromTheNestedObjectAndABackslashedDotIsOneKey() throws {
        let (directory, container) = try store()
        let context = ManagedObjectContext(container)
        _ = try context.decode([Byline].self, from: full)
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT authorName, authorURL, login, admin, version FROM Byline")
                == "Ada|https://ada.example|ada|1|2\n")
    }

    @Test func theKeysInsideTakeTheDecodersSnakeCaseStrategy() throws {
        let (directory, container) = try store()
        let context = ManagedObjectContext(container)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        _ = try context.decode([Byline].self, from: full, using: decoder)
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT authorName, authorURL, login, admin, version FROM Byline")
                == "Ada|https://ada.example|ada|1|2\n")
    }

    @Test func anAbsentObjectLeavesTheValuesAndANullOneIsNullForEach() throws {
        let (directory, container) = try store()
        let context = ManagedObjectContext(container)
        _ = try context.decode([Byline].self, from: full)
        try context.save()
        // No "author_info": the stored author stays; "user" as given, without "site_admin".
        let fresh = ManagedObjectContext(container)
        _ = try fresh.decode([Byline].self, from: json(#"[{"id": 1, "user": {"login": "ada2"}}]"#))
        try fresh.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT authorName, authorURL, login, admin FROM Byline")
                == "Ada|https://ada.example|ada2|1\n")
        // "author_info": null is no author: its optional values become NULL, as null values would.
        let cleared = ManagedObjectContext(container)
        _ = try cleared.decode(
            [Byline].self, from: json(#"[{"id": 1, "author_info": null, "user": {"login": "ada2"}}]"#))
        try cleared.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT quote(authorName), quote(authorURL), login FROM Byline")
                == "NULL|NULL|ada2\n")
    }

    @Test func aMissingRequiredNestedValueNamesTheFirstMissingKey() throws {
        let container = try testContainer(for: Byline.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let missing = #expect(throws: StashError.self) {
            _ = try context.decode([Byline].self, from: json(#"[{"id": 2, "author_info": {"display_name": "B"}}]"#))
        }
        #expect(missing?.entity == "Byline")
        #expect(missing?.attribute == "login")
        #expect(missing?.codingPath == "[0].user")
        #expect(missing?.message == #"the required key "user" is missing"#)
        let inner = #expect(throws: StashError.self) {
            _ = try context.decode([Byline].self, from: json(#"[{"id": 2, "user": {"name": "B"}}]"#))
        }
        #expect(inner?.attribute == "login")
        #expect(inner?.codingPath == "[0].user.login")
        let null = #expect(throws: StashError.self) {
            _ = try context.decode([Byline].self, from: json(#"[{"id": 2, "user": null}]"#))
        }
        #expect(null?.attribute == "login")
        #expect(null?.codingPath == "[0].user")
        #expect(try context.fetchCount(FetchDescriptor<Byline>()) == 0)
    }

    @Test func anObjectOnTheWayThatIsNotAnObjectIsAnError() throws {
        let container = try testContainer(for: Byline.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let error = #expect(throws: StashError.self) {
            _ = try context.decode(
                [Byline].self, from: json(#"[{"id": 3, "author_info": "Ada", "user": {"login": "a"}}]"#))
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.entity == "Byline")
        #expect(error?.attribute == "authorName")
        #expect(error?.codingPath == "[0].author_info")
        #expect(error?.message.contains(#"found "Ada""#) == true)
        let deeper = #expect(throws: StashError.self) {
            _ = try context.decode(
                [Byline].self, from: json(#"[{"id": 3, "author_info": {"url": 7}, "user": {"login": "a"}}]"#))
        }
        #expect(deeper?.attribute == "authorURL")
        #expect(deeper?.codingPath == "[0].author_info.url")
    }

    @Test func aNestedUniqueValueUpserts() throws {
        let (directory, container) = try store()
        for bio in ["first", "second"] {
            let context = ManagedObjectContext(container)
            _ = try context.decode(
                [Handle].self, from: json(#"[{"user": {"login": "ada"}, "bio": "\#(bio)"}]"#))
            try context.save()
        }
        #expect(try sqliteShell(directory.file(), "SELECT login, bio FROM Handle") == "ada|second\n")
    }

    @Test func encodingWritesTheNestedObjectsBackAndDecodesToTheSameValues() throws {
        let container = try testContainer(for: Byline.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let bylines = try context.decode([Byline].self, from: full)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(bylines)
        #expect(
            String(decoding: encoded, as: UTF8.self)
                == #"[{"author_info":{"display_name":"Ada","url":"https:\/\/ada.example"},"id":1,"meta.version":2,"#
                + #""user":{"login":"ada","site_admin":true}}]"#)
        let noAuthor = try context.decode(Byline.self, from: json(#"{"id": 4, "user": {"login": "b"}}"#))
        #expect(
            String(decoding: try encoder.encode(noAuthor), as: UTF8.self)
                == #"{"id":4,"meta.version":0,"user":{"login":"b","site_admin":false}}"#)
        let other = ManagedObjectContext(try testContainer(for: Byline.self, inMemory: true))
        let again = try other.decode([Byline].self, from: encoded)
        #expect(again.map(\.authorName) == ["Ada"])
        #expect(again.map(\.authorURL) == [URL(string: "https://ada.example")])
        #expect(again.map(\.login) == ["ada"])
        #expect(again.map(\.admin) == [true])
        #expect(again.map(\.version) == [2])
    }

    @Test func aKeyThatIsBothAValueAndAnObjectOrHasAnEmptyStepIsRefused() throws {
        let both = #expect(throws: StashError.self) {
            _ = try testContainer(for: HalfNested.self, inMemory: true)
        }
        #expect(both?.code == .invalidModel)
        #expect(both?.entity == "HalfNested")
        #expect(both?.attribute == "authorName")
        #expect(both?.message.contains(#""author""#) == true)
        let empty = #expect(throws: StashError.self) {
            _ = try testContainer(for: EmptyStep.self, inMemory: true)
        }
        #expect(empty?.code == .invalidModel)
        #expect(empty?.entity == "EmptyStep")
        #expect(empty?.attribute == "authorName")
    }
}
