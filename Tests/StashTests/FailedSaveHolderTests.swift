import Foundation
import Testing

@testable import Stash

/// Two unique attributes: found by one, matched by the other at a save.
final class TwoKeyMember: ManagedObject {
    @Attribute(.unique) var id: Int
    @Attribute(.unique) var email: String?
    @Attribute var name: String?
    @Attribute var bio: String?
}

/// A failed save puts back the objects it made take other objects' values, all of what they
/// held: a partly loaded one keeps the attributes it had not loaded as not loaded.
@Suite(.bothStores) struct FailedSaveHolderTests {
    /// The save matches a new object by its second unique value to a stored row's object that
    /// has loaded only its first, then fails. Its undo put back the values but not `unloaded`:
    /// the object read the attributes it never loaded as nil, and an `.overwrite` save wrote
    /// NULL over them.
    @Test func aFailedSaveLeavesAPartlyLoadedHolderAsItWas() throws {
        let container = try testContainer(for: TwoKeyMember.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let newcomer = TwoKeyMember()
        newcomer.id = 2
        newcomer.email = "ann@example.com"
        newcomer.name = "From the form"
        context.insert(newcomer, onMatch: .upsert)
        #expect(newcomer.isInserted)

        let writer = ManagedObjectContext(container)
        let ann = TwoKeyMember(context: writer)
        ann.id = 1
        ann.email = "ann@example.com"
        ann.name = "Ann"
        try writer.save()

        // Matched by `id`: the row's object, its email and name not loaded.
        let probe = TwoKeyMember()
        probe.id = 1
        context.insert(probe, onMatch: .adopt)
        #expect(!probe.isInserted)

        // The save matches the newcomer by email to that object, then fails (no id).
        let broken = TwoKeyMember(context: context)
        broken.email = "broken@example.com"
        #expect(throws: (any Error).self) { try context.save() }
        #expect(newcomer.isInserted)
        #expect(probe.name == "Ann")

        context.delete(newcomer)
        context.delete(broken)
        context.mergePolicy = .overwrite
        probe.bio = "edited"
        try context.save()
        let fresh = ManagedObjectContext(container)
        let stored = try fresh.fetch(FetchDescriptor<TwoKeyMember>())
        #expect(stored.map(\.name) == ["Ann"])
        #expect(stored.map(\.email) == ["ann@example.com"])
        #expect(stored.map(\.bio) == ["edited"])
    }
}
