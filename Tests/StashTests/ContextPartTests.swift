import Foundation
import Testing

@testable import Stash

/// A part's reference back to its context is unretained: once the context is freed, a part
/// someone kept must know it has none, not point at freed memory.
@Suite struct ContextPartTests {
    @Test func partsKeptPastTheirContextHaveNone() throws {
        let container = try testContainer(for: Post.self, inMemory: true)
        var parts: [ContextPart] = []
        weak var freed: ManagedObjectContext?
        do {
            let context = ManagedObjectContext(container)
            parts = [
                context.merger, context.faults, context.planner, context.resolver, context.tracker, context.graph,
                context.decoding,
            ]
            #expect(parts.allSatisfy { $0.context === context })
            freed = context
        }
        #expect(freed == nil)
        #expect(parts.count == 7 && parts.allSatisfy { $0.context == nil })
    }
}
