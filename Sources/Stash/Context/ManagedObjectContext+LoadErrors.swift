/// Reads that cannot throw: a property of an object loads its row or its related rows when
/// first read, and a getter has no way to report that the disk failed or another process
/// dropped a table. The world changing under an app is no programming error, so it never
/// traps: the read answers what the context knows (nil, an empty list, the type's empty
/// value) and the error is kept, to be thrown by the context's next throwing call (`save`,
/// `fetch`, `fetchCount`, `decode`, `existingObject`), so it is not lost.
extension ManagedObjectContext {
    /// Keeps the first failed load since the last throwing call, naming what was read.
    func noteLoadFailure(_ error: any Error, reading what: String, entity: String, attribute: String? = nil) {
        guard pendingLoadError == nil else { return }
        let cause = (error as? StashError)?.message ?? "\(error)"
        pendingLoadError = StashError(
            .loadFailed, "reading \(what) failed, so it read as empty: \(cause)", entity: entity,
            attribute: attribute)
    }

    /// Throws, once, the load that failed since the last throwing call.
    func throwPendingLoadError() throws {
        guard let error = pendingLoadError else { return }
        pendingLoadError = nil
        throw error
    }
}
