import CLibPQ
import Foundation
import Stash

/// The connection that hears of other containers' saves: `LISTEN` on the store's channel,
/// on a thread of its own (never one of Swift's cooperative threads), blocked in `poll` on
/// the connection's socket and a pipe that `stop()` writes to. Each notification's payload
/// (`PostgresNotification`) becomes a `CommitNotice` for the container; its own saves are
/// dropped.
///
/// A connection that breaks (the server restarted, `pg_terminate_backend`, the network) is
/// made again, after 50 ms and then twice as long each time up to 2 s; once it listens
/// again the container is told that every entity may have changed (`.all`), since saves
/// committed meanwhile were not heard: its contexts read their objects again and its
/// observed fetches run again. A network that drops silently is noticed as libpq's TCP
/// keepalives say (`keepalives_idle` and friends in the connection string).
final class PostgresListener: ChangeNotifications {
    private let conninfo: String
    private let channel: String
    private let origin: String
    private let receive: @Sendable (CommitNotice) -> Void
    private let state = Locked(State())
    /// A pipe whose reading end `poll` watches beside the socket: `stop()` writes a byte.
    private let wake: (read: Int32, write: Int32)

    private struct State {
        var stopped = false
        var listening = false
        /// The listening connection's server process, for tests that end it.
        var backendPID: Int32 = 0
    }

    init(
        conninfo: String, channel: String, origin: String, receive: @escaping @Sendable (CommitNotice) -> Void
    ) {
        self.conninfo = conninfo
        self.channel = channel
        self.origin = origin
        self.receive = receive
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        wake = (ends[0], ends[1])
        // The thread holds the listener until `run` returns, after `stop()`.
        let thread = Thread { [self] in run() }
        thread.name = "Stash PostgreSQL listener"
        thread.start()
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    var isListening: Bool { state.withLock { $0.listening } }

    var backendPID: Int32 { state.withLock { $0.backendPID } }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped, wake.write >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        var connection: PostgresConnection?
        var delay = 0.05
        // Saves may have gone unheard: a connection lost, or not made at first.
        var missed = false
        while !isStopped {
            guard let listening = connection else {
                do {
                    let made = try PostgresConnection(conninfo)
                    try made.execute("SET application_name = 'stash listener'")
                    try made.execute("LISTEN \(quoted(channel))")
                    connection = made
                    state.withLock {
                        $0.listening = true
                        $0.backendPID = PQbackendPID(made.handle)
                    }
                    delay = 0.05
                    if missed {
                        missed = false
                        deliver(CommitNotice(unlisted: .all))
                    }
                } catch {
                    missed = true
                    if waitForStop(seconds: delay) { break }
                    delay = min(delay * 2, 2)
                }
                continue
            }
            let handle = listening.handle
            var watched = [
                pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&watched, 2, -1)
            if ready < 0, errno == EINTR { continue }
            if watched[1].revents != 0 { break }
            guard ready > 0, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                connection = nil
                missed = true
                state.withLock { $0.listening = false }
                continue
            }
            while let notification = PQnotifies(handle) {
                let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notification)
                if let notice = PostgresNotification.notice(payload, ownOrigin: origin) { deliver(notice) }
            }
        }
        state.withLock { $0.listening = false }
    }

    private func deliver(_ notice: CommitNotice) {
        guard !isStopped else { return }
        receive(notice)
    }

    /// Sleeps `seconds` unless `stop()` comes first; answers whether it did.
    private func waitForStop(seconds: Double) -> Bool {
        var watched = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        return poll(&watched, 1, Int32(seconds * 1000)) > 0 || isStopped
    }
}
