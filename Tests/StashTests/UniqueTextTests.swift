import Foundation
import Testing

@testable import Stash

/// A label with a unique name: text whose Unicode forms differ.
final class Label: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Attribute var color: String = ""
}

/// Unique text means the same thing in a context and in the store: the stored bytes.
/// "café" written with a precomposed é (NFC) and with e + combining acute (NFD) are two
/// values, as they are two byte sequences; Stash does not normalize.
@Suite(.bothStores) struct UniqueTextTests {
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"

    /// Rows a context inserted and let go of are found again by their exact bytes: the other
    /// form of the text is another row, and the same form is the row, compared.
    @Test func aRowTheContextLetGoOfIsFoundByItsExactText() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try testContainer(for: Label.self, storeURL: directory.file()))
        let decoder = recipeDecoder(context)
        let first = try decoder.decode(Label.self, from: json(#"{"name": "\#(composed)", "color": "red"}"#))
        try context.save()
        _ = context.detach([first]) { _, _ in true }  // the context lets go of its object
        _ = try decoder.decode(Label.self, from: json(#"{"name": "\#(composed)", "color": "red"}"#))
        #expect(try context.saveChanges().isEmpty)
        _ = try decoder.decode(Label.self, from: json(#"{"name": "\#(decomposed)", "color": "blue"}"#))
        #expect(try context.saveChanges().inserted.count == 1)
        #expect(
            try sqliteShell(directory.file(), "SELECT hex(name), color FROM Label ORDER BY _pk")
                == "636166C3A9|red\n63616665CC81|blue\n")
    }

    @Test func oneContextKeepsTheTwoFormsApart() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try testContainer(for: Label.self, storeURL: directory.file()))
        let decoder = recipeDecoder(context)
        let first = try decoder.decode(Label.self, from: json(#"{"name": "\#(composed)", "color": "red"}"#))
        let second = try decoder.decode(Label.self, from: json(#"{"name": "\#(decomposed)", "color": "blue"}"#))
        #expect(first !== second)
        let again = try decoder.decode(Label.self, from: json(#"{"name": "\#(composed)", "color": "green"}"#))
        #expect(again === first)
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT hex(name), color FROM Label ORDER BY _pk")
                == "636166C3A9|green\n63616665CC81|blue\n")
    }

    @Test func twoContextsAgreeWithOne() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Label.self, storeURL: directory.file())
        for (name, color) in [(composed, "red"), (decomposed, "blue"), (composed, "green")] {
            let context = ManagedObjectContext(container)
            _ = try recipeDecoder(context).decode(
                Label.self, from: json(#"{"name": "\#(name)", "color": "\#(color)"}"#))
            try context.save()
        }
        #expect(
            try sqliteShell(directory.file(), "SELECT hex(name), color FROM Label ORDER BY _pk")
                == "636166C3A9|green\n63616665CC81|blue\n")
    }

    @Test func changingTextToAnotherFormIsAChange() throws {
        let directory = try TemporaryDirectory()
        let context = ManagedObjectContext(try testContainer(for: Label.self, storeURL: directory.file()))
        let label = try recipeDecoder(context).decode(
            Label.self, from: json(#"{"name": "x", "color": "\#(composed)"}"#))
        try context.save()
        _ = try recipeDecoder(context).decode(Label.self, from: json(#"{"name": "x", "color": "\#(decomposed)"}"#))
        #expect(context.hasChanges)
        #expect(label.color == decomposed)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT hex(color) FROM Label") == "63616665CC81\n")
    }
}
