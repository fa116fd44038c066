import Foundation
import Testing

@testable import Stash

/// A remote shelf whose books go with it.
final class KeptShelf: ManagedObject, Codable, RemoteModel {
    static let remotePath = "shelves"
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \KeptBook.shelf) var books: [KeptBook]
}

/// A book of the device alone (no outbox entry of its own).
final class KeptBook: ManagedObject, Codable {
    @Attribute(.unique) var isbn: String
    @Relationship var shelf: KeptShelf?
}

/// A remote drawer whose papers stay when it goes (`.nullify`, the default).
final class KeptDrawer: ManagedObject, Codable, RemoteModel {
    static let remotePath = "drawers"
    @Attribute(.unique) var name: String
    @Relationship(inverse: \KeptPaper.drawer) var papers: [KeptPaper]
}

final class KeptPaper: ManagedObject, Codable {
    @Attribute(.unique) var code: String
    @Relationship var drawer: KeptDrawer?
}

/// A remote tag on many cards.
final class KeptTag: ManagedObject, Codable, RemoteModel {
    static let remotePath = "tags"
    @Attribute(.unique) var name: String
    @Relationship(inverse: \KeptCard.tags) var cards: [KeptCard]
}

final class KeptCard: ManagedObject, Codable {
    @Attribute(.unique) var code: String
    @Relationship var tags: [KeptTag]
}

/// A remote label whose stickers go with it: a many-to-many list with `.cascade`.
final class KeptLabel: ManagedObject, Codable, RemoteModel {
    static let remotePath = "labels"
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \KeptSticker.labels) var stickers: [KeptSticker]
}

final class KeptSticker: ManagedObject, Codable {
    @Attribute(.unique) var code: String
    @Relationship var labels: [KeptLabel]
}

/// A remote box whose lid goes with it: a to-one with `.cascade`, its column the box's own.
final class KeptBox: ManagedObject, Codable, RemoteModel {
    static let remotePath = "boxes"
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade) var lid: KeptLid?
}

final class KeptLid: ManagedObject, Codable {
    @Attribute(.unique) var code: String
}

/// A save that records no edits (a sync) deletes a row whose edit waits to be pushed: the store
/// keeps that row. What the delete's rules did to the rows related to it (cascaded deletes,
/// links set to NULL) must not be written without it, or the kept row loses its children.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct KeptDeleteDependentsTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(
            for: KeptShelf.self, KeptBook.self, KeptDrawer.self, KeptPaper.self, KeptTag.self, KeptCard.self,
            KeptLabel.self, KeptSticker.self, KeptBox.self, KeptLid.self,
            storeURL: directory.file())
    }

    func sqlite(_ query: String) throws -> String {
        try sqliteShell(directory.file(), query).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The user's shelf, its POST waiting, with two books.
    func userShelf() throws {
        let user = ManagedObjectContext(container)
        let shelf = KeptShelf(context: user)
        shelf.name = "mine"
        for isbn in ["1", "2"] {
            let book = KeptBook(context: user)
            book.isbn = isbn
            book.shelf = shelf
        }
        try user.save()
        #expect(try container.pendingChangeCount() == 1)
    }

    @Test func aCascadeFromAKeptRowIsNotWritten() throws {
        try userShelf()
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        let shelf = try #require(try sync.fetch(FetchDescriptor<KeptShelf>()).first)
        #expect(shelf.books.count == 2)
        sync.delete(shelf)
        let error = #expect(throws: StashError.self) { try sync.save() }
        #expect(error?.code == .conflict)
        #expect(error?.entity == "KeptShelf")
        #expect(try sqlite("SELECT count(*) FROM KeptShelf") == "1")
        #expect(try sqlite("SELECT count(*) FROM KeptBook WHERE shelf IS NOT NULL") == "2")
        // The sync starts over: fetched again, its objects are the store's.
        sync.rollback()
        #expect(try sync.fetch(FetchDescriptor<KeptShelf>()).first?.books.count == 2)
    }

    @Test func linksToAKeptRowAreNotSetToNull() throws {
        let user = ManagedObjectContext(container)
        let drawer = KeptDrawer(context: user)
        drawer.name = "mine"
        let paper = KeptPaper(context: user)
        paper.code = "p"
        paper.drawer = drawer
        try user.save()
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        sync.delete(try #require(try sync.fetch(FetchDescriptor<KeptDrawer>()).first))
        #expect(throws: StashError.self) { try sync.save() }
        #expect(try sqlite("SELECT count(*) FROM KeptPaper WHERE drawer IS NOT NULL") == "1")
        #expect(try sqlite("SELECT count(*) FROM KeptDrawer") == "1")
    }

    @Test func aKeptRowStaysInTheListsThatHoldIt() throws {
        let user = ManagedObjectContext(container)
        let tag = KeptTag(context: user)
        tag.name = "mine"
        let card = KeptCard(context: user)
        card.code = "c"
        card.tags = [tag]
        try user.save()
        // The links go with the row in the store (the join table's rows reference it): kept,
        // the row keeps them, and a save that writes no list leaves them.
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        sync.delete(try #require(try sync.fetch(FetchDescriptor<KeptTag>()).first))
        try sync.save()
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<KeptCard>()).first?.tags.map(\.name) == ["mine"])
        // A save that writes the list as the delete left it, without the kept row, is refused.
        let other = ManagedObjectContext(container)
        other.recordsEdits = false
        let held = try #require(try other.fetch(FetchDescriptor<KeptCard>()).first)
        #expect(held.tags.count == 1)
        other.delete(try #require(try other.fetch(FetchDescriptor<KeptTag>()).first))
        let added = KeptTag(context: other)
        added.name = "theirs"
        held.tags.append(added)
        let error = #expect(throws: StashError.self) { try other.save() }
        #expect(error?.code == .conflict)
        #expect(error?.entity == "KeptTag")
        #expect(
            try ManagedObjectContext(container).fetch(FetchDescriptor<KeptCard>()).first?.tags.map(\.name) == ["mine"])
        #expect(try sqlite("SELECT count(*) FROM KeptTag") == "1")
    }

    /// Rows the delete reached on their own account, once nothing waits, go as before.
    @Test func withNothingWaitingTheCascadeIsWritten() throws {
        try userShelf()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        sync.delete(try #require(try sync.fetch(FetchDescriptor<KeptShelf>()).first))
        try sync.save()
        #expect(try sqlite("SELECT count(*) FROM KeptShelf") == "0")
        #expect(try sqlite("SELECT count(*) FROM KeptBook") == "0")
    }

    // What a kept delete's rules did to rows that hold no foreign key naming the kept row.

    /// The stickers a kept label's many-to-many cascade deleted hold no column naming the
    /// label (the join table does): written, the kept label lost them, and they were gone.
    @Test func aManyToManyCascadeFromAKeptRowIsNotWritten() throws {
        let user = ManagedObjectContext(container)
        let label = KeptLabel(context: user)
        label.name = "mine"
        for code in ["a", "b"] {
            let sticker = KeptSticker(context: user)
            sticker.code = code
            sticker.labels = [label]
        }
        try user.save()
        #expect(try container.pendingChangeCount() == 1)
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        let kept = try #require(try sync.fetch(FetchDescriptor<KeptLabel>()).first)
        #expect(kept.stickers.count == 2)
        sync.delete(kept)
        let error = #expect(throws: StashError.self) { try sync.save() }
        #expect(error?.code == .conflict)
        #expect(try sqlite("SELECT count(*) FROM KeptLabel") == "1")
        #expect(try sqlite("SELECT count(*) FROM KeptSticker") == "2")
    }

    /// The lid a kept box's to-one cascade deleted is named by the box's own column: the
    /// save is refused as the other kept-delete conflicts are, not by the foreign key check.
    @Test func aToOneCascadeFromAKeptRowIsAConflict() throws {
        let user = ManagedObjectContext(container)
        let box = KeptBox(context: user)
        box.name = "mine"
        let lid = KeptLid(context: user)
        lid.code = "l"
        box.lid = lid
        try user.save()
        #expect(try container.pendingChangeCount() == 1)
        let sync = ManagedObjectContext(container)
        sync.recordsEdits = false
        sync.delete(try #require(try sync.fetch(FetchDescriptor<KeptBox>()).first))
        let error = #expect(throws: StashError.self) { try sync.save() }
        #expect(error?.code == .conflict, "\(String(describing: error))")
        #expect(try sqlite("SELECT count(*) FROM KeptLid") == "1")
        #expect(try sqlite("SELECT count(*) FROM KeptBox WHERE lid IS NOT NULL") == "1")
    }
}
