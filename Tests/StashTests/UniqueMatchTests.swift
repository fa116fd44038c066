import Foundation
import Stash
import Testing

/// A feed an app makes in code before its document is fetched: a placeholder title, and a
/// note only the user writes.
final class Outlet: ManagedObject, Decodable {
    @Attribute(.unique) var url: String
    @Attribute var title: String = ""
    @Attribute var note: String = ""
}

/// Inserting an object whose unique value is taken: `.upsert` (the default) writes what it
/// was given over the stored row; `.adopt` takes the stored row as it is.
@Suite(.bothStores) struct UniqueMatchTests {
    /// A store holding the outlet `u`, titled "Real", with the user's note "mine", closed
    /// again: the tests reopen it.
    func storedOutlet(_ directory: TemporaryDirectory) throws {
        let context = ManagedObjectContext(try testContainer(for: Outlet.self, storeURL: directory.file()))
        let outlet = Outlet(context: context)
        outlet.url = "u"
        outlet.title = "Real"
        outlet.note = "mine"
        try context.save()
    }

    func placeholder(_ url: String = "u") -> Outlet {
        let outlet = Outlet()
        outlet.url = url
        outlet.title = "(loading…)"
        return outlet
    }

    func rows(_ directory: TemporaryDirectory) throws -> String {
        try sqliteShell(directory.file(), "SELECT url, title, note FROM Outlet ORDER BY url")
    }

    /// The issue's case: the placeholder beat the stored title. That is still the default
    /// (an upsert), and what `.upsert` asks for under any merge policy.
    @Test func upsertWritesTheGivenValuesOverTheStoredRow() throws {
        let directory = try TemporaryDirectory()
        try storedOutlet(directory)
        let context = ManagedObjectContext(try testContainer(for: Outlet.self, storeURL: directory.file()))
        let outlet = placeholder()
        context.insert(outlet)
        #expect(!outlet.isInserted)
        #expect(outlet.title == "(loading…)" && outlet.note == "mine")
        try context.save()
        #expect(try rows(directory) == "u|(loading…)|mine\n")

        context.mergePolicy = .storedWins
        let again = Outlet()
        again.url = "u"
        again.title = "upserted"
        context.insert(again, onMatch: .upsert)
        try context.save()
        #expect(try rows(directory) == "u|upserted|mine\n")
    }

    /// `.adopt` in a reopened store: the object is the stored row's, with its values; what
    /// is set after the insert is an edit of it; a URL the store lacks makes a new row with
    /// the placeholder.
    @Test func adoptTakesTheStoredRowAndKeepsLaterEdits() throws {
        let directory = try TemporaryDirectory()
        try storedOutlet(directory)
        let container = try testContainer(for: Outlet.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let outlet = placeholder()
        context.insert(outlet, onMatch: .adopt)
        #expect(!outlet.isInserted && !context.hasChanges)
        #expect(outlet.title == "Real" && outlet.note == "mine")
        let stored = try context.fetch(FetchDescriptor<Outlet>())
        #expect(stored.count == 1 && stored[0].objectID == outlet.objectID)
        outlet.note = "set after the insert"
        let fresh = placeholder("new")
        context.insert(fresh, onMatch: .adopt)
        #expect(fresh.isInserted && fresh.title == "(loading…)")
        try context.save()
        #expect(try rows(directory) == "new|(loading…)|\nu|Real|set after the insert\n")
    }

    /// `init(context:onMatch:)` inserts a blank object, matched when its unique value is
    /// set: what was set before is the new row's, what is set after is an edit.
    @Test func adoptWithInitContextMatchesWhenTheUniqueValueIsSet() throws {
        let directory = try TemporaryDirectory()
        try storedOutlet(directory)
        let context = ManagedObjectContext(try testContainer(for: Outlet.self, storeURL: directory.file()))
        let outlet = Outlet(context: context, onMatch: .adopt)
        outlet.title = "(loading…)"
        outlet.url = "u"
        #expect(outlet.title == "Real")
        outlet.note = "edited"
        try context.save()
        #expect(try rows(directory) == "u|Real|edited\n")
    }

    /// The context's own object, with its unsaved change, is what `.adopt` takes.
    @Test func adoptTakesTheContextsObjectWithItsChanges() throws {
        let directory = try TemporaryDirectory()
        try storedOutlet(directory)
        let context = ManagedObjectContext(try testContainer(for: Outlet.self, storeURL: directory.file()))
        let held = try context.fetch(FetchDescriptor<Outlet>())[0]
        held.title = "renamed here"
        let outlet = placeholder()
        context.insert(outlet, onMatch: .adopt)
        #expect(outlet.title == "renamed here" && outlet.objectID == held.objectID)
        try context.save()
        #expect(try rows(directory) == "u|renamed here|mine\n")
    }

    /// A second context: the row it adopts was saved by another context of the container,
    /// before the insert or after it (then the save finds it, and still adopts).
    @Test func adoptFindsRowsAnotherContextSaved() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: Outlet.self, storeURL: directory.file())
        let writer = ManagedObjectContext(container)
        let early = Outlet(context: writer)
        early.url = "early"
        early.title = "Server"
        try writer.save()

        let context = ManagedObjectContext(container)
        let adopted = placeholder("early")
        context.insert(adopted, onMatch: .adopt)
        #expect(adopted.title == "Server")
        let late = placeholder("late")
        context.insert(late, onMatch: .adopt)
        let upserted = placeholder("upserted late")
        context.insert(upserted)
        #expect(late.isInserted && upserted.isInserted)

        for url in ["late", "upserted late"] {
            let outlet = Outlet(context: writer)
            outlet.url = url
            outlet.title = "Server"
            outlet.note = "theirs"
        }
        try writer.save()
        let changes = try context.saveChanges()
        #expect(changes.inserted.isEmpty)
        #expect(late.objectID.rowID != nil && !late.isInserted && late.title == "Server")
        #expect(
            try rows(directory)
                == "early|Server|\nlate|Server|theirs\nupserted late|(loading…)|theirs\n")
    }

    /// A composite key is matched at the save: `.adopt` keeps the stored child's values.
    @Test func adoptKeepsAStoredChildOfACompositeKey() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: WindowFeed.self, WindowEntry.self, storeURL: directory.file())
        let writer = ManagedObjectContext(container)
        _ = try writer.decode(WindowFeed.self, from: json(#"{"url": "f", "items": [{"guid": "1", "title": "one"}]}"#))
        try writer.save()

        let context = ManagedObjectContext(container)
        let feed = try context.fetch(FetchDescriptor<WindowFeed>())[0]
        let entry = WindowEntry(context: context, onMatch: .adopt)
        entry.feed = feed
        entry.guid = "1"
        entry.title = "(loading…)"
        let other = WindowEntry(context: context)
        other.feed = feed
        other.guid = "2"
        other.title = "new"
        try context.save()
        #expect(entry.objectID == feed.items.first { $0.guid == "1" }?.objectID)
        #expect(
            try sqliteShell(directory.file(), "SELECT guid, title FROM WindowEntry ORDER BY guid")
                == "1|one\n2|new\n")
    }
}
