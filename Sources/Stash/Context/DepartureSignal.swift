import Synchronization

/// Raised when most of the objects a context registered for an entity have been freed (the
/// app let go of an import's results): the context's bookkeeping for them (unique index
/// entries, the row table's capacity) is then dead weight, given back at the context's next
/// entry point (`EntityState.releaseDeparted`). Raised from `ManagedObject.deinit`, on
/// whatever thread the last release ran, so it is only a flag.
final class DepartureSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    /// Whether it was raised since the last take, lowering it.
    @inline(__always)
    func take() -> Bool {
        guard raised.load(ordering: .relaxed) else { return false }
        return raised.exchange(false, ordering: .acquiring)
    }
}
