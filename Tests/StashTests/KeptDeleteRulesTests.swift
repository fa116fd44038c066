import Foundation
import Testing

@testable import Stash

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

/// What a kept delete's rules did to rows that hold no foreign key naming the kept row.
@Suite(.sqliteOnly("the outbox lives in the SQLite file")) struct KeptDeleteRulesTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(
            for: KeptLabel.self, KeptSticker.self, KeptBox.self, KeptLid.self, storeURL: directory.file())
    }

    func sqlite(_ query: String) throws -> String {
        try sqliteShell(directory.file(), query).trimmingCharacters(in: .whitespacesAndNewlines)
    }

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
