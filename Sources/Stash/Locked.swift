import Foundation

/// A value behind a lock, for state that several threads share (StashREST's transport too:
/// `package`, not public API).
///
/// What the toolchain's `Mutex` is, but on a pthread mutex (`NSLock`), which
/// ThreadSanitizer understands: on Linux, `Mutex` gives it false reports of races on the
/// value it guards (a ten-line program with four threads incrementing under `withLock` is
/// reported, and loses no update), and `swift test --sanitize=thread` runs in CI.
// `@unchecked`: `value` is touched only inside `withLock`, under `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    /// Unchecked: only `withLock` reaches it, under `lock`, which is the exclusivity the
    /// runtime's check would test (about 85 instructions a use: a relationship's inverse is
    /// read through one on every to-one set).
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
