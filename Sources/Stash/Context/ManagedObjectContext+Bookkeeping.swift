extension ManagedObjectContext {
    /// Sets (or, for `nil`, removes) Stash's own records in `table`, in a transaction of its
    /// own, right after this context's last save (StashREST's validators, which need the
    /// save's row ids). The write is the container's own commit, told apart from others' as a
    /// save's is (`ExternalCommits.ownCommit`). When nothing else was committed between that
    /// save and this write, the save's objects stay as true as the save left them, so what
    /// they are checked against before leaving (`DetachedObject`) moves past this write;
    /// otherwise they are read back, as after any other save. Does nothing if the store keeps
    /// no records.
    ///
    /// Answers where the store stands after the write (`StoreStamp`) when nothing else was
    /// committed since that save: what was read from it in between still holds there.
    @discardableResult
    package func writeBookkeeping(_ values: [String: String?], in table: BookkeepingTable) throws -> StoreStamp? {
        try entering {
            guard let store = container.store as? any BookkeepingStore, !values.isEmpty else { return nil }
            let tokens = try store.setBookkeepingValues(in: table, values)
            let before = tokens.beforeCommit
            guard let after = tokens.afterCommit else { return nil }
            // The write is this container's own commit, as a save is: the next fetch does not
            // take it for another process's and read every object it meets back from its row.
            container.externalCommits.withLock { $0.ownCommit(before: before, after: after) }
            guard let saved = lastSave, before == saved.token, saved.after == container.saveGeneration else {
                return nil
            }
            lastSave = (saved.before, saved.after, after)
            return container.store.changeTokenSeesEveryCommit ? StoreStamp(generation: saved.after, token: after) : nil
        }
    }
}
