import Foundation
import Stash
import StashREST
import Synchronization

/// Runs a body the first time only.
final class Once: Sendable {
    private let done = Mutex(false)

    func run(_ body: () -> Void) {
        guard
            done.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        body()
    }
}

extension TestServer {
    /// Pushes `container` to the end, from a place that cannot await (a decoder, a hook): the
    /// calling thread waits for the push on another.
    func pushBlocking(_ container: PersistentContainer) {
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = try? await testClient(self).push(container)
            done.signal()
        }
        done.wait()
    }

    /// A client whose first decode waits for a whole push of `container`: its answer is older
    /// than what the push wrote and acknowledged.
    func clientPushingBeforeItsDecode(_ container: PersistentContainer) -> RESTClient {
        let once = Once()
        return testClient(self) { configuration in
            configuration.makeDecoder = {
                once.run { self.pushBlocking(container) }
                return RESTConfiguration.defaultDecoder()
            }
        }
    }
}
