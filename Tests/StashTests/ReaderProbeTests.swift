import Foundation
import Stash
import Testing

/// The hand-written recipe as it is often written: no context is a programming error.
final class ContextOrTrap: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String

    enum CodingKeys: String, CodingKey { case id, title }

    required convenience init(from decoder: any Decoder) throws {
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
            fatalError("ContextOrTrap is decoded only into a context")
        }
        self.init(context: context)
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(Int.self, forKey: .id)
        title = try values.decode(String.self, forKey: .title)
    }
}

/// The same, for a probe of its own: the probe runs once per type in a process.
final class ContextOrTrapAgain: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int

    enum CodingKeys: String, CodingKey { case id }

    required convenience init(from decoder: any Decoder) throws {
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext else {
            fatalError("ContextOrTrapAgain is decoded only into a context")
        }
        self.init(context: context)
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
    }
}

/// Whether a model has Stash's default decoding is found by running its `init(from:)` once
/// with a probe decoder. The probe must not trap code that rightly traps without a context,
/// nor leave anything behind in the caller's context or store.
@Suite(.bothStores) struct ReaderProbeTests {
    @Test func aHandWrittenInitThatTrapsWithoutAContextIsProbedSafely() throws {
        let container = try testContainer(for: ContextOrTrap.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let payload = Data(#"[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]"#.utf8)
        let decoded = try context.decode([ContextOrTrap].self, from: payload)
        #expect(decoded.map(\.title) == ["a", "b"])
        try context.save()
        let stored = try ManagedObjectContext(container).fetch(
            FetchDescriptor<ContextOrTrap>(sortBy: [SortDescriptor(\.id)]))
        // The probe's blank object stayed in the probe's own context, never saved.
        #expect(stored.map(\.id) == [1, 2])
        #expect(stored.map(\.title) == ["a", "b"])
        // A second decode (the answer is kept) upserts, as the first did.
        _ = try context.decode([ContextOrTrap].self, from: Data(#"[{"id": 2, "title": "B"}]"#.utf8))
        try context.save()
        let again = try ManagedObjectContext(container).fetch(
            FetchDescriptor<ContextOrTrap>(sortBy: [SortDescriptor(\.id)]))
        #expect(again.map(\.title) == ["a", "B"])
    }

    /// The object the hand-written `init(from:)` inserts into the probe's context must not
    /// keep that context (and through it the container, its store and every later save's
    /// note) alive once the probe is done.
    @Test func theProbesContextLeavesNothingAlive() throws {
        weak var released: PersistentContainer?
        try {
            let container = try testContainer(for: ContextOrTrapAgain.self, inMemory: true)
            released = container
            let context = ManagedObjectContext(container)
            _ = try context.decode([ContextOrTrapAgain].self, from: Data(#"[{"id": 1}]"#.utf8))
            try context.save()
        }()
        #expect(released == nil, "the probe's context kept the container alive")
    }
}
