/// What one `fetch` did.
public struct ImportReport: Sendable, Equatable {
    /// Objects new to the store.
    public var inserted = 0
    /// Stored objects whose values changed.
    public var updated = 0
    /// Stored objects the payload left as they were.
    public var unchanged = 0
    /// Objects a sync deleted (`fetch(…, deletingMissing:)`).
    public var deleted = 0
    public var pages = 0
    /// Body bytes received, all pages.
    public var bytes = 0
    /// From the first request to the end of the hand-over of the objects to the caller's
    /// context (the checks before the first request and the return to the caller's executor
    /// aside).
    public var duration: Duration = .zero
    /// Where `duration` went: the network, decoding, the store (see `ImportPhases`).
    public var phases = ImportPhases()
    /// Every page was answered with a 304, or with the same body as its last full answer
    /// (`BodyFingerprint`), and stood for the rows kept: nothing was decoded or changed, but
    /// for what a sync (`deletingMissing:`) deletes because the pages no longer hold it.
    /// (Such a page among others counts its objects as unchanged.)
    public var notModified = false

    public init() {}
}

/// The objects a `fetch` returns and what it did.
public struct FetchResult<Value> {
    public let value: Value
    public let report: ImportReport
}
