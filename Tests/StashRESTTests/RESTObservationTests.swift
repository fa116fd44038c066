import Foundation
import Observation
import Stash
import StashREST
import Synchronization
import TestProcesses
import Testing

/// Objects handed over into `mainContext` are observable as fetched ones are: their
/// Observation registrar is made by their first read, and a later refresh that changes
/// their rows reaches whoever tracks them.
@Suite struct RESTObservationTests {
    @Test @MainActor func aRefreshReachesWhoTracksAnObjectHandedOver() async throws {
        let (server, store, _) = try await serverAndEmptyStore()
        let container = try store.container()
        let api = testClient(server)
        func body(_ title: String) -> String {
            bodyPath(
                #"[{"id": 1, "title": "\#(title)", "writtenAt": "2026-01-02T03:04:05Z"},"#
                    + #" {"id": 2, "title": "two", "writtenAt": "2026-01-02T03:04:05Z"}]"#)
        }
        let notes = try await api.fetch([Note].self, from: body("one"), into: container.mainContext)
        let changed = TrackedChange()
        withObservationTracking {
            _ = notes[0].title
        } onChange: {
            changed.happened()
        }
        // The tracked note's row changes: whoever tracks it is told.
        let again = try await api.fetch([Note].self, from: body("one, edited"), into: container.mainContext)
        _ = await eventually { changed.isSet }
        #expect(changed.isSet)
        #expect(again[0] === notes[0] && notes[0].title == "one, edited")
        #expect(again.map(\.id) == [1, 2])
    }
}

/// A flag an Observation callback sets, from whichever thread it runs on.
final class TrackedChange: Sendable {
    private let value = Atomic<Bool>(false)

    func happened() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
