import Dispatch
import Foundation
import Synchronization

/// Who may use a context, checked at every entry point and attribute write (and, in debug
/// builds, every attribute and relationship read): Core Data's confinement in Swift 6 terms.
enum Confinement: Sendable {
    /// The main actor: `mainContext`, or a context made in `@MainActor` or top-level code.
    case main
    /// A private serial executor of its own: a background context.
    case background(BackgroundActor)
    /// The actor it was made on, in one of the actor's methods.
    case actor(any Actor)
    /// Made where no actor was (a nonisolated task, a plain thread): any one thread at a
    /// time, and two threads inside it at once is a trap.
    case unconfined

    init(_ isolation: (any Actor)?) {
        switch isolation {
        case nil: self = .unconfined
        case let actor? where actor === MainActor.shared: self = .main
        case let actor as BackgroundActor: self = .background(actor)
        case let actor?: self = .actor(actor)
        }
    }

    /// The actor to hop to for `perform`; `nil` when unconfined.
    var actor: (any Actor)? {
        switch self {
        case .main: MainActor.shared
        case .background(let actor): actor
        case .actor(let actor): actor
        case .unconfined: nil
        }
    }
}

/// A serial executor on a dispatch queue of its own: a background context's executor.
/// Work on it runs on the queue's thread, not on Swift's cooperative pool, so a long save
/// there blocks no thread other tasks need.
final class QueueExecutor: SerialExecutor, Sendable {
    let queue: DispatchQueue
    #if DEBUG
        /// The thread running one of the executor's jobs, 0 between jobs (see `isRunningJob`).
        private let jobThread = Atomic<UInt>(0)
    #endif

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueIdentity, value: ObjectIdentifier(self))
    }

    /// `true` on the queue's thread, while it runs the queue's work.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: queueIdentity) == ObjectIdentifier(self)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        #if DEBUG
            queue.async { [self] in
                jobThread.store(currentThreadID, ordering: .relaxed)
                job.runSynchronously(on: executor)
                jobThread.store(0, ordering: .relaxed)
            }
        #else
            queue.async { job.runSynchronously(on: executor) }
        #endif
    }

    /// Runs `body` on the queue, between the actor's jobs, as one of them: for work that
    /// should not first wait for a cooperative thread (a merge other contexts' saves ask for).
    func async(_ body: @escaping @Sendable () -> Void) {
        #if DEBUG
            queue.async { [self] in
                jobThread.store(currentThreadID, ordering: .relaxed)
                body()
                jobThread.store(0, ordering: .relaxed)
            }
        #else
            queue.async(execute: body)
        #endif
    }

    #if DEBUG
        /// `true` on the thread running one of the executor's jobs: one compare, for the debug
        /// check on reads, where `isCurrent` looks the queue up. A thread finds itself here only
        /// while it runs the job.
        var isRunningJob: Bool {
            jobThread.load(ordering: .relaxed) == currentThreadID
        }
    #endif

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the runtime accept code the queue runs outside a task.
    func checkIsolated() {
        precondition(isCurrent, "Stash: expected to run on \(queue.label)")
    }
}

/// Which `QueueExecutor` a queue belongs to; the main queue is marked too.
private let queueIdentity = DispatchSpecificKey<ObjectIdentifier>()

/// Marks the main queue, on which the main actor's jobs run (on Linux not always on the
/// main thread, so `Thread.isMainThread` cannot tell).
private enum MainQueueMark {
    static let identity: ObjectIdentifier = {
        let identity = ObjectIdentifier(MainQueueMark.self)
        DispatchQueue.main.setSpecific(key: queueIdentity, value: identity)
        return identity
    }()
}

/// `true` while the main queue runs: inside main-actor code.
var isOnMainQueue: Bool {
    let identity = MainQueueMark.identity
    return DispatchQueue.getSpecific(key: queueIdentity) == identity
}

#if DEBUG
    /// `true` in main-actor code, for the debug check on reads: on the main thread (a compare,
    /// where an app's main-actor code runs) or else on the main queue (a look-up, where the
    /// main actor's jobs run when the main thread does not drain it, as under `swift test`).
    var isOnMainActor: Bool {
        Thread.isMainThread || isOnMainQueue
    }

    /// The calling thread as a number, for the debug checks of reads: never 0.
    var currentThreadID: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            pthread_self()
        #endif
    }
#endif

/// The actor of a background context: its executor is the context's own queue.
actor BackgroundActor {
    nonisolated let executor: QueueExecutor

    init(label: String) {
        executor = QueueExecutor(label: label)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
}

/// Runs `body` isolated to `actor`: the hop `perform` makes.
func run<Result: Sendable>(on actor: isolated any Actor, _ body: @Sendable () throws -> Result) rethrows -> Result {
    try body()
}
