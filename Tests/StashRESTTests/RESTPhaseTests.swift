import Foundation
import Stash
import Testing

@testable import StashREST

/// Where a call's time went (`ImportReport.phases`): the phases follow one another, so they
/// add up to at most the call's duration, and each holds what it names.
@Suite struct RESTPhaseTests {
    /// A body that comes 0.4 s after its headers is time waited for; decoding, saving and
    /// handing over are counted too.
    @Test func aSlowAnswerIsWaitedForAndTheRestIsCounted() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let result = try await testClient(server).fetchReporting([Item].self, from: "slow?delay=0.4", into: context)
        #expect(result.value.map(\.id) == [1, 2, 3])
        let phases = result.report.phases
        #expect(phases.waiting >= .milliseconds(400))
        #expect(phases.decoding > .zero && phases.saving > .zero && phases.handingOver > .zero)
        #expect(phases.total <= result.report.duration)
        #expect(try store.count("Item") == 3)
    }

    /// A 304 decodes and saves nothing: its time is the wait, the check that the rows still
    /// stand, and the hand-over of the objects the last answer held.
    @Test func aNotModifiedCallDecodesAndSavesNothing() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        let api = testClient(server)
        let first = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(first.report.phases.decoding > .zero && first.report.phases.recording > .zero)
        let again = try await api.fetchReporting([Item].self, from: "items?count=3&etag=1", into: context)
        #expect(again.report.notModified)
        let phases = again.report.phases
        #expect(phases.decoding == .zero && phases.saving == .zero && phases.recording == .zero)
        #expect(phases.waiting > .zero && phases.handingOver > .zero)
        #expect(phases.total <= again.report.duration)
        #expect(try store.count("Item") == 3)
    }

    /// Saved a page at a time: each page's wait, decode and save is counted, within the
    /// call's duration.
    @Test func pagesSavedOneByOneAreCounted() async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.saving = .perPage
        let result = try await testClient(server).fetchReporting(
            [Item].self, from: "items?count=10&per_page=3", into: context, options: options)
        #expect(result.report.pages == 4)
        let phases = result.report.phases
        #expect(phases.waiting > .zero && phases.decoding > .zero && phases.saving > .zero)
        #expect(phases.total <= result.report.duration)
        #expect(try store.count("Item") == 10)
    }
}
