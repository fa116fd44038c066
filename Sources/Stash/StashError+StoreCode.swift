extension StashError {
    /// The store's own code for a store error, in the store's own words: SQLite's extended
    /// result code or PostgreSQL's SQLSTATE. The questions an app asks of it (was a unique
    /// value taken? did another writer hold the store too long?) have store-neutral answers.
    public enum StoreCode: Sendable, Hashable, CustomStringConvertible {
        /// SQLite's extended result code (`2067` is SQLITE_CONSTRAINT_UNIQUE).
        case sqlite(Int32)
        /// PostgreSQL's five-character SQLSTATE (`23505` is unique_violation).
        case sqlstate(String)

        /// A unique index refused the value: SQLite's SQLITE_CONSTRAINT_UNIQUE (2067) or
        /// SQLITE_CONSTRAINT_PRIMARYKEY (1555), SQLSTATE 23505.
        public var isUniqueViolation: Bool {
            switch self {
            case .sqlite(let code): code == 2067 || code == 1555
            case .sqlstate(let state): state == "23505"
            }
        }

        /// Another connection (another process) held the store's write lock for longer than
        /// the container waits: SQLITE_BUSY or SQLITE_LOCKED and their extended codes,
        /// SQLSTATE 55P03 (lock_not_available, what `lock_timeout` raises).
        public var isBusy: Bool {
            switch self {
            case .sqlite(let code): code & 0xff == 5 || code & 0xff == 6
            case .sqlstate(let state): state == "55P03"
            }
        }

        public var description: String {
            switch self {
            case .sqlite(let code): "SQLite code \(code)"
            case .sqlstate(let state): "SQLSTATE \(state)"
            }
        }
    }

    /// SQLite's extended result code, for errors of an SQLite store: `storeCode` as SQLite
    /// names it (kept for code written before the PostgreSQL store).
    public var sqliteCode: Int32? {
        get {
            if case .sqlite(let code) = storeCode { return code }
            return nil
        }
        set { storeCode = newValue.map(StoreCode.sqlite) }
    }
}
