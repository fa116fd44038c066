import Foundation

extension ManagedObjectContext {
    /// Decodes a JSON array of `T` and saves it in one transaction, without ever holding
    /// every object: for payloads too large to keep as objects at once.
    ///
    /// ```swift
    /// let imported = try context.decodeAndSave([Article].self, from: data, using: decoder)
    /// print(imported.decoded, "read,", imported.changes.inserted.count, "new")
    /// ```
    ///
    /// The objects are decoded into a context of the call's own, a batch of `batchSize` at a
    /// time; each batch is written (upserted by unique values, its relationships and hooks as
    /// in any save) and let go, and the transaction commits after the last one. If anything
    /// fails (malformed JSON at `[81234].url`, a validation, the disk), it rolls back: the
    /// store is as it was and the error says what and where, as `decode` and `save` would.
    /// Once it commits, this context and the container's others take the import in as they
    /// take another context's save (this one before the call returns), and
    /// `container.changes` delivers it as one change set. This context's unsaved changes are
    /// neither saved nor lost; none of its objects are handed back (fetch what you need).
    ///
    /// Meanwhile the transaction holds the store's write lock. Stash's saves on other threads
    /// wait for it (another process's SQLite save waits its busy timeout and then fails; on
    /// PostgreSQL a save waits its lock timeout); reads on other threads see the last commit
    /// (those of an in-memory store wait too). Hooks and decoding code run under the lock: one
    /// that waits for a save on another thread waits for the import. On this thread every
    /// read sees the batches written so far, through any context: another context read from
    /// a hook may take in rows that a failure then rolls back (the container's save
    /// generation moves then, so key indexes start over; loaded objects keep what they read
    /// until refreshed), and its save fails.
    @discardableResult
    public func decodeAndSave<T: ManagedObject & Decodable>(
        _ type: [T].Type, from data: Data, using decoder: JSONDecoder = JSONDecoder(), batchSize: Int = 1_000
    ) throws -> SavedImport {
        precondition(batchSize > 0, "decodeAndSave needs a batchSize of at least 1")
        let importing = try entering { () -> ManagedObjectContext in
            try throwPendingLoadError()
            let context = ManagedObjectContext(container, confinement: confinement, name: "\(name) import")
            context.recordsEdits = recordsEdits
            context.mergePolicy = policyInEffect
            return context
        }
        // What failed leaves new objects in `importing`, which hold it: let go of both.
        defer { importing.reset() }
        let store = container.store
        var started: BatchedSave?
        let batches: BatchedSave
        let tokens: CommitTokens
        do {
            (batches, tokens) = try store.inOneTransaction { writes -> BatchedSave in
                // Read inside the transaction (an in-memory store's too: the key indexes compare it).
                let batches = BatchedSave(batchSize: batchSize, token: try store.changeToken(), writes: writes)
                started = batches
                importing.entering { importing.decoding.batches = batches }
                defer { importing.entering { importing.decoding.batches = nil } }
                let copy = decoder.copy(for: importing)
                if let options = ReaderEligibility.options(for: type, decoder: decoder, container: container),
                    TapeDecoder.reads(data)
                {
                    _ = try TapeDecoder.decode(
                        BatchedArray<T>.self, from: data, options: options, userInfo: copy.userInfo)
                } else {
                    _ = try copy.decode(BatchedArray<T>.self, from: data)
                }
                try batches.writeBatch(of: importing)
                return batches
            }
        } catch {
            // Rolled back. A context used on this thread meanwhile (from a hook) may have read
            // what the batches wrote: the generation moves, so that the key indexes and records
            // made from it start over.
            if started != nil { _ = container.noteSave() }
            throw error
        }
        // Each batch moved the container's save generation before its rows were committed: a
        // cache made from what another context read meanwhile must not pass for current.
        _ = container.noteSave()
        let note = SaveNote(folding: batches.notes)
        if !note.isEmpty {
            _ = importing.noteOwnCommit(tokens)
            container.broadcast(note, from: importing)
        }
        // This context merges what the others will: as after a save of its own, the import is
        // in its objects and fetches when the call returns.
        entering {}
        return SavedImport(
            decoded: batches.decoded, batches: batches.notes.count, changes: note.changeSet(container.entities),
            storeLookUpsSpared: batches.sparedLookUps)
    }
}
