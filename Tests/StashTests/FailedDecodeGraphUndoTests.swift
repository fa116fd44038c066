import Foundation
import Testing

@testable import Stash

/// A bin's parts are unique by bin and serial: a bin decoded under `.replace` deletes the
/// parts it drops (`deletesDroppedMembers`).
final class UndoBin: ManagedObject, Decodable {
    @Attribute(.unique) var code: String
    @Relationship(deleteRule: .cascade, inverse: \UndoPart.bin) var parts: [UndoPart]
}

final class UndoPart: ManagedObject, Decodable, CompositeUniqueModel {
    @Relationship var bin: UndoBin?
    @Attribute var serial: String
    @Relationship(inverse: \UndoKit.parts) var kits: [UndoKit]
    @Relationship var tray: UndoTray?

    static var uniqueConstraints: [[PartialKeyPath<UndoPart>]] { [[\.bin, \.serial]] }
}

/// The owning side of the many-to-many (`UndoKit_parts`: "UndoKit" sorts before "UndoPart").
final class UndoKit: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship var parts: [UndoPart]
}

/// An ordered one-to-many list parts are in besides their bin's.
final class UndoTray: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \UndoPart.tray) var parts: [UndoPart]
}

@Suite(.bothStores) struct FailedDecodeGraphUndoTests {
    func undoContainer() throws -> PersistentContainer {
        try testContainer(for: UndoPart.self, UndoBin.self, UndoKit.self, UndoTray.self, inMemory: true)
    }

    /// The same with an ordered one-to-many list: the user reordered a tray, a failed decode
    /// deleted a part of it, and the delete rule took the part out of the tray's changed list
    /// unrecorded. The undo brings the part back (its row still names the tray) but the tray's
    /// list lacks it, and the save writes places for the others only: the user's order is lost.
    @Test func aFailedDecodeThatDeletedAMemberLeavesAReorderedListWhole() throws {
        let container = try undoContainer()
        let seed = ManagedObjectContext(container)
        let bins = try seed.decode(
            [UndoBin].self,
            from: json(#"[{"code": "b", "parts": [{"serial": "1"}, {"serial": "2"}, {"serial": "3"}]}]"#),
            using: recipeDecoder(seed))
        let tray = UndoTray(context: seed)
        tray.name = "t"
        tray.parts = bins[0].parts
        try seed.save()

        let context = ManagedObjectContext(container)
        let bin = try #require(try context.fetch(FetchDescriptor<UndoBin>()).first)
        #expect(bin.parts.map(\.serial) == ["1", "2", "3"])
        let editedTray = try #require(try context.fetch(FetchDescriptor<UndoTray>()).first)
        editedTray.parts = Array(editedTray.parts.reversed())
        #expect(editedTray.parts.map(\.serial) == ["3", "2", "1"])

        #expect(throws: (any Error).self) {
            _ = try context.decode(
                [UndoBin].self,
                from: json(#"[{"code": "b", "parts": [{"serial": "1"}, {"serial": "3"}]}, {"code": 5}]"#),
                using: recipeDecoder(context))
        }
        #expect(bin.parts.map(\.serial) == ["1", "2", "3"])
        #expect(editedTray.parts.map(\.serial) == ["3", "2", "1"])

        try context.save()
        let fresh = ManagedObjectContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<UndoTray>()).first)
        #expect(stored.parts.map(\.serial) == ["3", "2", "1"])
    }

    /// A failed decode deleted a part (its bin's list dropped it), and the delete rule took it
    /// out of a kit's changed many-to-many list without the journal knowing. The undo brings
    /// the part back, but the kit's list (the truth until saved) no longer holds it: the next
    /// save deletes the stored join row (kit, part 2) the user never touched.
    @Test func aFailedDecodeThatDeletedAManyToManyMemberLeavesTheChangedListWhole() throws {
        let container = try undoContainer()
        let seed = ManagedObjectContext(container)
        let bins = try seed.decode(
            [UndoBin].self, from: json(#"[{"code": "b", "parts": [{"serial": "1"}, {"serial": "2"}]}]"#),
            using: recipeDecoder(seed))
        let kit = UndoKit(context: seed)
        kit.name = "k"
        kit.parts = bins[0].parts
        try seed.save()

        let context = ManagedObjectContext(container)
        let bin = try #require(try context.fetch(FetchDescriptor<UndoBin>()).first)
        #expect(bin.parts.map(\.serial) == ["1", "2"])  // the user looked at the bin
        let editedKit = try #require(try context.fetch(FetchDescriptor<UndoKit>()).first)
        editedKit.parts = Array(editedKit.parts.reversed())  // the user's edit: part 2 first
        #expect(editedKit.parts.map(\.serial) == ["2", "1"])

        // The first bin drops part 2 (deleted), the second bin fails: the decode is undone.
        #expect(throws: (any Error).self) {
            _ = try context.decode(
                [UndoBin].self, from: json(#"[{"code": "b", "parts": [{"serial": "1"}]}, {"code": 5}]"#),
                using: recipeDecoder(context))
        }
        let part2 = try #require(bin.parts.first { $0.serial == "2" })
        #expect(!part2.isDeleted)
        #expect(editedKit.parts.map(\.serial) == ["2", "1"])

        try context.save()
        let fresh = ManagedObjectContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<UndoKit>()).first)
        #expect(stored.parts.map(\.serial) == ["2", "1"])
    }
}

@Suite(.bothStores) struct FailedDecodeJoinListUndoTests {
    /// A failed decode of a topic (the non-owning side) that named a stored ticket: to add the
    /// topic, the ticket's owning list was read (registering its topics, in the journal) and
    /// marked changed before the journal kept it, so the undo puts it back as a changed list
    /// that holds the objects the undo then unregistered. The context has changes it never
    /// made, and its next save writes the ticket's list without those topics: their join rows
    /// are deleted.
    @Test func aFailedDecodeOfTheInverseSideLeavesTheOwnersJoinRows() throws {
        let container = try ticketContainer()
        let seed = ManagedObjectContext(container)
        _ = try seed.decode(
            [Ticket].self, from: json(#"[{"number": 1, "title": "crash", "topics": ["bug", "ui"]}]"#),
            using: recipeDecoder(seed))
        try seed.save()

        let context = ManagedObjectContext(container)
        let ticket = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
        #expect(throws: (any Error).self) {
            _ = try context.decode(
                [Topic].self, from: json(#"[{"name": "feature", "tickets": [1]}, {"name": 5}]"#),
                using: recipeDecoder(context))
        }
        #expect(!context.hasChanges)
        #expect(ticket.topics.map(\.name) == ["bug", "ui"])
        #expect(ticket.topics.allSatisfy { $0.managedObjectContext === context })

        ticket.title = "crash on launch"
        try context.save()
        let fresh = ManagedObjectContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Ticket>()).first)
        #expect(stored.title == "crash on launch")
        #expect(stored.topics.map(\.name) == ["bug", "ui"])
    }
}
