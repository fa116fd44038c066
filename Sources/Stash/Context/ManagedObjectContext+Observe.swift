import Foundation

extension ManagedObjectContext {
    /// The results of `descriptor` now, then again after each save that touches its entity:
    /// this context's own, and other contexts' once merged. Results are delivered on the
    /// context's executor; a context confined to none (made in a nonisolated task) merges,
    /// and so delivers, at its next call only.
    ///
    /// ```swift
    /// for try await latest in container.mainContext.observe(recent) {
    ///     show(latest)
    /// }
    /// ```
    ///
    /// The sequence ends when the consumer stops iterating; a fetch that fails ends it with
    /// the error.
    public func observe<T: ManagedObject>(_ descriptor: FetchDescriptor<T>) -> AsyncThrowingStream<[T], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [T].self)
        entering {
            let entity: Int
            do {
                entity = identity.position(of: try identity.state(forType: T.self))
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let deliver: () -> Void = { [unowned self] in
                do {
                    continuation.yield(try self.fetch(descriptor))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            let key = observers.add(entity: entity, deliver)
            continuation.onTermination = { [weak self] _ in self?.observers.remove(key) }
            deliver()
        }
        return stream
    }

    /// Re-runs the fetches observed on entities that `notes` touched.
    func notifyObservers(of notes: [SaveNote]) {
        guard !observers.isEmpty else { return }
        var touched = Set<Int>()
        for note in notes {
            for (position, entity) in note.entities.enumerated() where !entity.isEmpty {
                touched.insert(position)
            }
            touched.formUnion(note.unlisted)
        }
        for deliver in observers.deliveries(for: touched) {
            deliver()
        }
    }
}
