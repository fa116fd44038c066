extension StashError {
    /// A write of its own (`what`: a save, the bookkeeping, the outbox) on the thread inside
    /// `Store.inOneTransaction`: it would join a transaction that may yet roll back, after
    /// telling everyone it committed. Both stores refuse it with this.
    package static func insideBatchedImport(_ what: String, entity: String? = nil) -> StashError {
        StashError(
            .storeFailed,
            "\(what) cannot run inside decodeAndSave's transaction, on its thread (from a hook of its objects?); "
                + "nothing was written", entity: entity)
    }

    /// `Store.inOneTransaction` asked for on a thread already inside one.
    package static var batchedImportInsideAnother: StashError {
        StashError(.storeFailed, "an import saved in batches cannot start inside another one")
    }

    /// A batch written through a `TransactionWrites` kept past its transaction.
    package static var batchAfterItsTransaction: StashError {
        StashError(.storeFailed, "a batch was written after its transaction ended")
    }
}
