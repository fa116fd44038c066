import Dispatch
import Foundation
import Stash

/// A fixed number of connections, made as they are first needed, lent to one caller at a
/// time: a caller waits while all are lent. A connection found broken (the server went away)
/// is dropped and a new one made for the next caller. A thread that already holds one (a
/// read asked for while a save writes) gets another without waiting, so a pool of one
/// cannot wait for itself.
///
/// libpq blocks the calling thread. Stash's background contexts run on executors of their
/// own (a dispatch queue each, `performBackgroundTask`), so a fetch or save there never
/// blocks a thread of Swift's cooperative pool; a context confined to no executor blocks
/// whatever thread calls it, as with SQLite.
final class PostgresPool: Sendable {
    let size: Int
    private let conninfo: String
    private let lockTimeout: Duration?
    private let idle = Locked<[PostgresConnection]>([])
    private let available: DispatchSemaphore
    /// How many connections each thread holds now.
    private let holders = Locked<[UInt: Int]>([:])

    init(conninfo: String, size: Int, lockTimeout: Duration? = nil) throws {
        guard size > 0 else {
            throw StashError(.storeFailed, "a PostgreSQL store needs at least one connection, not \(size)")
        }
        self.conninfo = conninfo
        self.lockTimeout = lockTimeout
        self.size = size
        available = DispatchSemaphore(value: size)
        // The first connection now: a wrong URL fails the container's init.
        let first = try PostgresConnection(conninfo, lockTimeout: lockTimeout)
        idle.withLock { $0.append(first) }
    }

    /// The connection each thread inside `pinning` holds: every use of the pool on that
    /// thread gets it (the open transaction's reads see its writes).
    private let pinned = Locked<[UInt: PostgresConnection]>([:])

    /// Whether the calling thread is inside `pinning`.
    var isPinnedToThisThread: Bool {
        let thread = UInt(pthread_self())
        return pinned.withLock { $0[thread] != nil }
    }

    /// Runs `body` with a connection that every use of the pool on this thread gets until
    /// `body` returns: `PostgresStore.inOneTransaction`'s.
    func pinning<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        try withConnection { connection in
            let thread = UInt(pthread_self())
            pinned.withLock { $0[thread] = connection }
            defer { _ = pinned.withLock { $0.removeValue(forKey: thread) } }
            return try body(connection)
        }
    }

    /// Runs `body` with a connection of its own for the duration: the thread's pinned one
    /// inside `pinning`, unless `unpinned` (what others see: the last commit).
    func withConnection<Result>(unpinned: Bool = false, _ body: (PostgresConnection) throws -> Result) throws
        -> Result
    {
        let thread = UInt(pthread_self())
        if !unpinned, let connection = pinned.withLock({ $0[thread] }) { return try body(connection) }
        let nested = holders.withLock { holders in
            defer { holders[thread, default: 0] += 1 }
            return holders[thread, default: 0] > 0
        }
        if !nested { available.wait() }
        defer {
            holders.withLock { holders in
                holders[thread]! -= 1
                if holders[thread] == 0 { holders[thread] = nil }
            }
            if !nested { available.signal() }
        }
        let connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(conninfo, lockTimeout: lockTimeout)
        defer {
            if !connection.isBroken { idle.withLock { $0.append(connection) } }
        }
        return try body(connection)
    }
}
