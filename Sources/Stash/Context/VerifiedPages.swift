/// The pages whose rows were last found holding what StashREST's record of them says (their
/// identity and values digests, `PersistentContainer.pageDigests`), and where the store stood
/// then. While it stands there, checking the same record again needs no read of the rows: a
/// refresh that gets the same answer again skips reading every row of it (0.1 s for 100,000
/// rows, stash-bench).
struct VerifiedPages {
    /// What every entry was verified at; an entry of an earlier stamp never holds again
    /// (saves only count up, and a change token never goes back), so a new stamp starts over.
    private var stamp: StoreStamp?
    private var digests: [String: Digests] = [:]

    struct Digests: Equatable {
        let identity: UInt64
        let values: UInt64
    }

    mutating func note(_ page: String, _ digests: Digests, at stamp: StoreStamp) {
        if stamp != self.stamp {
            self.stamp = stamp
            self.digests = [:]
        }
        self.digests[page] = digests
    }

    func holds(_ page: String, _ digests: Digests, at stamp: StoreStamp) -> Bool {
        self.stamp == stamp && self.digests[page] == digests
    }
}
