import Foundation
import StashREST
import Testing

@testable import Stash

/// The container's own commits (the import's saves, another context's save, another
/// container's on the same file that is idle) must not pass for another process's: a plain
/// paged import then a refresh gets 304s.
@Suite struct RESTOwnCommitsKeepValidatorsTests {
    private let path = "paged/own?pages=3&per_page=2"

    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func aPagedImportThenARefreshIsNotModified(saving: FetchOptions.Saving) async throws {
        let (_, store) = try await importThenRefresh(saving: saving) { _ in }
        #expect(try store.count("Item") == 6)
    }

    /// Two containers on the file in one process: the one that imports and one that is open.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func withASecondContainerOpenOnTheFile(saving: FetchOptions.Saving) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let other = ManagedObjectContext(try store.container())
        #expect(try other.fetchCount(FetchDescriptor<Item>()) == 0)
        var options = FetchOptions()
        options.saving = saving
        let api = testClient(server)
        let first = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(first.report.inserted == 6)
        let again = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(again.report.notModified)
        // The other container refreshes too: the validators are in the file.
        let fromOther = try await api.fetchReporting([Item].self, from: path, into: other, options: options)
        #expect(fromOther.report.notModified)
        #expect(try other.fetchCount(FetchDescriptor<Item>()) == 6)
        // And back: the other container's refresh wrote nothing the first takes for a change.
        let thirdTime = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(thirdTime.report.notModified)
    }

    /// Another context of the same container saves an unrelated object while page 2 decodes:
    /// the container's own commit, not another process's.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func anotherContextsSaveDuringTheImport(saving: FetchOptions.Saving) async throws {
        let (context, store) = try await importThenRefresh(saving: saving) { container in
            let side = ManagedObjectContext(container)
            let note = Note(context: side)
            note.id = 77
            note.title = "side"
            note.writtenAt = Date(timeIntervalSince1970: 0)
            try! side.save()
        }
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 1)
        #expect(try store.count("Note") == 1)
    }

    /// Imports the pages with `duringPage2` run as page 2 decodes, then refreshes: every page
    /// answers 304. Answers the importing context and its store (which removes its file once
    /// let go).
    private func importThenRefresh(
        saving: FetchOptions.Saving, duringPage2: @escaping @Sendable (PersistentContainer) -> Void
    ) async throws -> (ManagedObjectContext, TemporaryStore) {
        let (server, store, context) = try await serverAndEmptyStore()
        let container = context.container
        let calls = CallCounter()
        let api = testClient(server) { configuration in
            configuration.makeDecoder = {
                if calls.next() == 2 { duringPage2(container) }
                return RESTConfiguration.defaultDecoder()
            }
        }
        var options = FetchOptions()
        options.saving = saving
        let first = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(first.report.inserted == 6)
        let again = try await testClient(server).fetchReporting(
            [Item].self, from: path, into: context, options: options)
        #expect(again.report.notModified)
        #expect(again.report.pages == 3)
        #expect(again.value.map(\.id) == [1, 2, 3, 4, 5, 6])
        return (context, store)
    }
}

extension RESTOwnCommitsKeepValidatorsTests {
    /// A push of the same container writes the outbox (an attempt, an acknowledgement, the
    /// ETags it keeps) while page 2 decodes: the container's own commit, as a save is.
    @Test(arguments: [FetchOptions.Saving.atEnd, .perPage])
    func anOutboxWriteDuringTheImport(saving: FetchOptions.Saving) async throws {
        _ = try await importThenRefresh(saving: saving) { container in
            try! container.updateOutbox(etags: [OutboxETag(entityName: "Note", rowID: 9, value: "\"n9\"")])
        }
    }
}
