/// Wall-clock spans on the monotonic clock: a refresh or a query is what a user waits for,
/// so the figures are elapsed time, not CPU time.
enum Timing {
    /// Seconds `body` took, and what it answered; `body` runs on the caller's actor.
    static func measure<Value>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Value
    ) async rethrows -> (value: Value, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await body()
        return (value, seconds(clock.now - start))
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// The middle sample: one slow run (a page-cache miss, another job on the shared
    /// machine) does not decide the figure.
    static func median(_ samples: [Double]) -> Double {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
