import Foundation

/// A value behind an `NSLock`, as Stash's own `Locked` is. Not `Synchronization.Mutex`: its
/// futex is invisible to ThreadSanitizer, which then reports the transport's transfers as a
/// race (seen in CI), where `NSLock`'s pthread mutex is understood.
// Unchecked: every access to `value` holds `lock`.
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
