import Synchronization

/// Counts calls, from any thread: a decoder hook's, a server's.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    /// Counts one call; answers how many there were, this one included.
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
