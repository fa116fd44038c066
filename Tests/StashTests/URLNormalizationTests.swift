import Foundation
import Stash
import Testing

/// A link kept once per URL, however the scheme and host were typed.
final class SavedLink: ManagedObject, Decodable {
    @Attribute(.unique, normalized: [.trimmed, .urlSchemeAndHost]) var url: String
    @Attribute var title: String = ""
}

@Suite(.bothStores) struct URLNormalizationTests {
    @Test(arguments: [
        ("HTTPS://Example.COM/Path/A?Q=B#Frag", "https://example.com/Path/A?Q=B#Frag"),
        ("http://User:PassWord@EXAMPLE.com:8080/X", "http://User:PassWord@example.com:8080/X"),
        ("Mailto:Ada@Example.com", "Mailto:Ada@Example.com"),  // no "://": left as it is
        ("HTTP://[::1]:80/", "http://[::1]:80/"),
        ("https://example.com", "https://example.com"),
        ("not a url", "not a url"),
        ("1http://A", "1http://A"),  // a scheme starts with a letter
    ])
    func onlyTheSchemeAndHostAreLowered(input: String, expected: String) {
        #expect(AttributeNormalization.urlSchemeAndHost.normalize(input) == expected)
    }

    @Test func twoSpellingsOfOneURLAreOneRow() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: SavedLink.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        _ = try context.decode(
            [SavedLink].self,
            from: json(#"[{"url": "HTTPS://Example.com/A", "title": "one"}, {"url": " https://example.COM/A\n"}]"#))
        try context.save()
        let link = SavedLink(context: context)
        link.url = "https://EXAMPLE.com/A"
        link.title = "two"
        let other = SavedLink(context: context)
        other.url = "https://example.com/a"  // a path differs by case: another URL
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT url, title FROM SavedLink ORDER BY _pk")
                == "https://example.com/A|two\nhttps://example.com/a|\n")
    }
}
