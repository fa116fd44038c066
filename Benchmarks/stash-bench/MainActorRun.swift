import Foundation

/// Runs `body` as a main-actor task and turns the main run loop until it is done: the
/// benchmark's top-level code stays synchronous (an `async` one does not start under
/// valgrind, which the instruction counts come from), and measurements that need the main
/// actor (its fetch latency, its stalls) still get it.
@MainActor
func runOnMainActor<Value>(_ body: @escaping @MainActor () async throws -> Value) throws -> Value {
    var outcome: Result<Value, any Error>?
    Task { @MainActor in
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
    }
    while outcome == nil {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
    }
    return try outcome!.get()
}
