import Foundation
import Testing

@testable import Stash

/// A hand-written `init(from:)` that calls back into its context: `save()`, `rollback()` or
/// `reset()`, named by the decoder's `userInfo`, once it has read an `id` of 2.
final class CallingNote: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var text: String

    enum CodingKeys: String, CodingKey {
        case id, text
    }

    static let call = CodingUserInfoKey(rawValue: "call")!

    required convenience init(from decoder: any Decoder) throws {
        let context = try contextOf(decoder)
        self.init(context: context)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        text = try container.decode(String.self, forKey: .text)
        guard id == 2 else { return }
        switch decoder.userInfo[Self.call] as? String {
        case "save": try context.save()
        case "rollback": context.rollback()
        case "reset": context.reset()
        default: break
        }
    }
}

/// `context.decode` is all or nothing: a save, rollback or reset part way through it (from the
/// model's own code) would leave its undo wrong, writing half a payload or dropping what the
/// user had before it. Such a call is refused, the decode fails with a message naming it and
/// is undone, and what the user had before the decode is as it was.
@Suite(.bothStores) struct CallsDuringDecodeTests {
    private let payload = #"[{"id": 1, "text": "one"}, {"id": 2, "text": "two"}, {"id": 3, "text": "three"}]"#

    @Test(arguments: ["save", "rollback", "reset"])
    func aCallPartWayThroughADecodeFailsItAndLosesNothing(call: String) throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: CallingNote.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let saved = CallingNote(context: context)
        saved.id = 10
        saved.text = "saved"
        try context.save()
        saved.text = "edited, not saved"
        let draft = CallingNote(context: context)
        draft.id = 20
        draft.text = "draft"

        let decoder = JSONDecoder()
        decoder.userInfo[CallingNote.call] = call
        let error = try #require(throws: StashError.self) {
            _ = try context.decode([CallingNote].self, from: Data(payload.utf8), using: decoder)
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("\(call)()"), "\(error)")

        // The user's edit and draft are as they were; nothing of the payload is left.
        #expect(saved.managedObjectContext === context && saved.text == "edited, not saved")
        #expect(draft.managedObjectContext === context && draft.isInserted && draft.text == "draft")
        let inContext = try context.fetch(FetchDescriptor<CallingNote>(sortBy: [SortDescriptor(\.id)]))
        #expect(inContext.map(\.id) == [10, 20])
        // Nothing was written: the store holds the one saved row, as saved.
        let fresh = ManagedObjectContext(container)
        let stored = try fresh.fetch(FetchDescriptor<CallingNote>())
        #expect(stored.map(\.id) == [10] && stored.map(\.text) == ["saved"])

        // The same payload decodes once nothing calls back, and the save writes it all.
        let plain = try context.decode([CallingNote].self, from: Data(payload.utf8))
        #expect(plain.map(\.id) == [1, 2, 3])
        try context.save()
        let after = try ManagedObjectContext(container).fetch(
            FetchDescriptor<CallingNote>(sortBy: [SortDescriptor(\.id)]))
        #expect(after.map(\.id) == [1, 2, 3, 10, 20])
        #expect(after.map(\.text) == ["one", "two", "three", "edited, not saved", "draft"])
    }
}
