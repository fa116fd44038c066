/// What every part of a context (`IdentityMap` aside, which needs none) has: the context it
/// belongs to. The context makes each part as it is made, holds it with a `let`, and is the
/// only way to reach it, so a part never outlives its context.
class ContextPart {
    /// The context this part belongs to, set as the context is made.
    // Unsafe: the context owns its parts and outlives them (above), and is reached on every
    // property write and relationship read. As `unowned`, with its check and its retain, a
    // write cost 600 instructions more: stash-bench's edit span 483.6M -> 499.6M (callgrind,
    // 20,000 records), all of it `swift_beginAccess` and `swift_unownedRetainStrong`.
    @exclusivity(unchecked) unowned(unsafe) var context: ManagedObjectContext!
}
