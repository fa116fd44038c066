extension ManagedObjectContext {
    /// Takes another context's save: kept by the merger until this context merges it, at its
    /// next entry or, for the main context and background contexts, on their executor right
    /// away.
    ///
    /// The queued merge holds the context strongly until it runs: a weak reference gives the
    /// context a side table, and every retain and release of it afterwards (one for each
    /// object it holds) takes the runtime's slow path, which the main context, hearing of
    /// every background import, would pay for good (an observed context has one anyway:
    /// `observe`'s stream lets go of its fetch through a weak reference). One merge is queued
    /// at a time (`mergeQueued`): it merges every save kept by then, and a context dropped
    /// while its executor is busy is held by that one job only.
    func receive(_ note: SaveNote) {
        merger.keep(note)
        switch confinement {
        case .main:
            queueMerge { Task { @MainActor in self.mergeNow() } }
        case .background(let actor):
            // Straight onto the context's queue, where its actor's jobs run one at a time: no
            // task waits for a cooperative thread first, which a loaded pool may not give
            // for seconds.
            queueMerge { actor.executor.async { self.mergeNow() } }
        case .actor(let actor):
            // Only when someone observes: otherwise the next call merges.
            guard !observers.isEmpty else { return }
            queueMerge { Task { await run(on: actor) { self.mergeNow() } } }
        case .unconfined:
            break
        }
    }

    /// Runs `enqueue` unless a merge is queued already (`Merger.mergeQueued`).
    private func queueMerge(_ enqueue: () -> Void) {
        guard
            merger.mergeQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
                .exchanged
        else { return }
        enqueue()
    }

    /// Merges what other contexts saved, on this context's executor.
    private func mergeNow() {
        // Cleared first: a save kept during this merge queues the next one.
        merger.mergeQueued.store(false, ordering: .releasing)
        entering {}
    }
}
