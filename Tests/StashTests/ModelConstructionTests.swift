import Foundation
import Stash
import Testing

/// A model whose initializer builds another model before `super.init()`.
final class Shelf: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Attribute var capacity: Int = 10
    @Attribute var note: String?

    init(name: String, firstTag: String) {
        let tag = Tag(name: firstTag, uses: 1)
        super.init()
        self.name = name
        self.note = "tagged \(tag.name)"
    }

    required init() {
        // The blank instance, made at container creation, builds a model too.
        _ = Tag(name: "scratch", uses: 0)
        super.init()
    }
}

/// A model with a stored property of another model type, initialized between attributes.
final class Drawer: ManagedObject, Decodable {
    @Attribute(.unique) var label: String
    let spare = Tag(name: "spare", uses: 7)
    @Attribute var depth: Int = 3
}

/// A model whose initializer awaits before `super.init()`.
final class Delayed: ManagedObject, Decodable {
    @Attribute(.unique) var number: Int
    @Attribute var word: String = "none"

    init(number: Int) async {
        await Task.yield()
        super.init()
        self.number = number
    }

    required init() { super.init() }
}

/// Ordinary Swift in a model's initializer works: every object ends up with its own values.
@Suite(.bothStores) struct ModelConstructionTests {
    @Test func aModelThatBuildsAModelInItsInitializer() throws {
        let container = try testContainer(for: Shelf.self, Tag.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let shelf = Shelf(name: "top", firstTag: "new")
        #expect(shelf.name == "top" && shelf.capacity == 10 && shelf.note == "tagged new")
        shelf.capacity = 12
        #expect(shelf.capacity == 12)
        context.insert(shelf)
        let decoded = try recipeDecoder(context).decode(Shelf.self, from: json(#"{"name": "low", "capacity": 4}"#))
        #expect(decoded.name == "low" && decoded.capacity == 4 && decoded.note == nil)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Shelf>())
        #expect(stored.map(\.name) == ["top", "low"])
        #expect(stored.map(\.capacity) == [12, 4])
    }

    @Test func aModelPropertyInitializedBetweenAttributes() throws {
        let container = try testContainer(for: Drawer.self, Tag.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let drawer = Drawer(context: context)
        drawer.label = "a"
        #expect(drawer.depth == 3)
        #expect(drawer.spare.name == "spare" && drawer.spare.uses == 7)
        drawer.spare.uses = 8
        #expect(drawer.depth == 3 && drawer.spare.uses == 8)
        let decoded = try recipeDecoder(context).decode([Drawer].self, from: json(#"[{"label": "b", "depth": 5}]"#))
        #expect(decoded[0].label == "b" && decoded[0].depth == 5)
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Drawer>())
        #expect(stored.map(\.label) == ["a", "b"] && stored.map(\.depth) == [3, 5])
    }

    @Test func asyncInitializersUnderLoadKeepTheirOwnValues() async throws {
        let numbers = try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
            for number in 0..<2000 {
                group.addTask {
                    let object = await Delayed(number: number)
                    object.word = "w\(number)"
                    return (number, object.number, object.word)
                }
            }
            var results: [(Int, Int, String)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(numbers.count == 2000)
        #expect(numbers.allSatisfy { $0.0 == $0.1 && $0.2 == "w\($0.0)" })
    }
}

/// A model class with attributes of its own, subclassed by the stored entity.
class Entry: ManagedObject {
    @Attribute(.unique) var guid: String
    @Attribute var seen: Bool = false
}

final class LinkEntry: Entry, Decodable {
    @Attribute var url: URL
    @Attribute var note: String?
}

@Suite(.bothStores) struct ModelInheritanceTests {
    @Test func attributesOfASuperclassAreStoredAndDecoded() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: LinkEntry.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let decoded = try recipeDecoder(context).decode(
            [LinkEntry].self,
            from: json(
                #"[{"guid": "a", "url": "https://a.test/"}, {"guid": "b", "url": "https://b.test/", "seen": true}]"#))
        #expect(decoded.map(\.guid) == ["a", "b"] && decoded.map(\.seen) == [false, true])
        try context.save()
        let again = try recipeDecoder(context).decode(LinkEntry.self, from: json(#"{"guid": "a", "note": "n"}"#))
        #expect(again === decoded[0] && again.note == "n")
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<LinkEntry>())
        #expect(stored.map(\.guid) == ["a", "b"])
        #expect(stored.map(\.url.absoluteString) == ["https://a.test/", "https://b.test/"])
        #expect(stored.map(\.note) == ["n", nil])
        #expect(try sqliteShell(directory.file(), "SELECT guid, seen FROM LinkEntry ORDER BY _pk") == "a|0\nb|1\n")
    }
}
