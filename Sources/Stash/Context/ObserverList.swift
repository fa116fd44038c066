import Foundation

/// A context's observed fetches. `onTermination` removes one from any thread, hence the lock.
final class ObserverList: @unchecked Sendable {
    // `@unchecked`: the closures run only on the context's executor (from `notifyObservers`);
    // the lock guards the list itself.
    private let lock = NSLock()
    private var next = 0
    private var entries: [Int: (entity: Int, deliver: () -> Void)] = [:]

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return entries.isEmpty
    }

    func add(entity: Int, _ deliver: @escaping () -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        next += 1
        entries[next] = (entity, deliver)
        return next
    }

    func remove(_ key: Int) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeValue(forKey: key)
    }

    func deliveries(for entities: Set<Int>) -> [() -> Void] {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.filter { entities.contains($0.entity) }.map(\.deliver)
    }
}
