import Foundation

/// Read-only connections to a WAL file, lent to one caller at a time.
///
/// In WAL mode a reader sees the last committed state and never waits for the writer, so a
/// fetch runs while another context's save commits. Connections are opened as needed, up to
/// `limit`; a caller that finds them all lent waits for one to come back.
// `@unchecked`: the idle list and the count are only touched under `condition`'s lock, and
// a lent connection is used by its borrower alone.
final class ReaderPool: @unchecked Sendable {
    private let path: String
    private let busyTimeout: Duration
    private let limit: Int
    private let readOnly: ReadOnlyAccess?
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened: [SQLiteConnection] = []

    init(path: String, busyTimeout: Duration, limit: Int = 4, readOnly: ReadOnlyAccess? = nil) {
        self.path = path
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.limit = limit
    }

    /// Runs `body` with a connection of its own.
    func withReader<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    /// Statements run on every reader so far (see `SQLiteConnection.statementsRun`).
    var statementsRun: Int {
        condition.lock()
        defer { condition.unlock() }
        return opened.reduce(0) { $0 + $1.statementsRun }
    }

    private func borrow() throws -> SQLiteConnection {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let connection = idle.popLast() { return connection }
            if opened.count < limit {
                let connection = try SQLiteConnection(
                    path: path, busyTimeout: busyTimeout, role: .reader, readOnly: readOnly)
                opened.append(connection)
                return connection
            }
            condition.wait()
        }
    }

    private func giveBack(_ connection: SQLiteConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
