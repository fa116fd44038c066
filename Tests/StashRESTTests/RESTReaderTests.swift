import Foundation
import Testing

@testable import Stash
@testable import StashREST

/// StashREST's import reads bodies with the byte-level reader (`TapeDecoder`), through its
/// envelope, with its default decoder; a model with a hand-written `init(from:)` keeps
/// JSONDecoder.
@Suite struct RESTReaderTests {
    @Test func theImportsEnvelopeTakesTheReader() throws {
        let decoder = RESTConfiguration.defaultDecoder()
        let container = try PersistentContainer(for: Item.self, HandNote.self, inMemory: true)
        #expect(ReaderEligibility.options(for: Enveloped<[Item]>.self, decoder: decoder, container: container) != nil)
        #expect(ReaderEligibility.options(for: Enveloped<Item>.self, decoder: decoder, container: container) != nil)
        #expect(
            ReaderEligibility.options(for: Enveloped<[HandNote]>.self, decoder: decoder, container: container) == nil)
    }
}
