/// Waits until `condition` holds, looking at most `looks` times, `interval` apart; answers
/// whether it held. `condition` runs in the caller's isolation (the main actor's, a test's).
///
/// The wait counts looks, not time on the clock. Under the whole suite's load (2 cores,
/// ThreadSanitizer) a task can wait tens of seconds for a cooperative thread, and so can the
/// work it waits for. With a deadline on the clock, the time could run out between two looks
/// while that work still queued behind other tests: CI saw it on 44e9087, where an observed
/// fetch's second delivery, two hops behind the notification, missed a 60-second deadline.
/// A look comes only after the pool has moved on, so this fails only for a condition that does
/// not come at all, and then after at least `looks × interval`.
public func eventually(
    looks: Int = 6_000, every interval: Duration = .milliseconds(10),
    isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
    for _ in 0..<looks {
        if condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return condition()
}
