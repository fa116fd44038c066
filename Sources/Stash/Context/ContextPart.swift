/// What every part of a context (`IdentityMap` aside, which needs none) has: the context it
/// belongs to. The context makes each part as it is made and holds it with a `let`; callers
/// reach a part through the context (`context.graph`) and use it while they hold the context.
/// A part kept past its context has `nil` here (the context's `deinit` clears it) and traps.
class ContextPart {
    // Unsafe: the context owns its parts and outlives their use (above). Reached on every property
    // write and relationship read; as a checked `unowned var` each access paid
    // `swift_beginAccess` and a retain, 600 instructions a property write (stash-bench's
    // edit span 483.6M -> 499.6M under callgrind, 20,000 records). A retain of a context
    // that has a side table (an observed one: see `receive`) takes the runtime's slow path.
    @exclusivity(unchecked) private var owner: Unmanaged<ManagedObjectContext>?

    /// The context this part belongs to, set as the context is made. Each read retains it:
    /// what runs per object uses `withContext`.
    final var context: ManagedObjectContext! {
        get { owner?.takeUnretainedValue() }
        set { owner = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// Runs `body` with the context borrowed, not retained: for what runs per object. Reading
    /// `context` instead cost a relationship read 360 instructions (a retain and a release
    /// each time): stash-bench's graph fetch 243.3M -> 252.9M under callgrind, 20,000 essays.
    @inline(__always)
    final func withContext<Result>(_ body: (ManagedObjectContext) throws -> Result) rethrows -> Result {
        try owner!._withUnsafeGuaranteedRef(body)
    }
}
