/// Where a store stood at one moment: the container's count of its own saves and the store's
/// change token. While both stay as they were, nothing has committed to the store since, in
/// this process or any other, so what was read from it then still holds.
///
/// Only a store whose token sees every commit gives one (`Store.changeTokenSeesEveryCommit`:
/// an SQLite file, whose `PRAGMA data_version` moves for a commit by any connection, the
/// `sqlite3` shell's included).
package struct StoreStamp: Equatable, Sendable {
    let generation: UInt64
    let token: Int64
}
