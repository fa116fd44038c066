/// Where a `fetch`'s time went, each phase summed over its pages: what to look at when a
/// call is slow (the network, the JSON, the store) before changing anything.
///
/// The phases run one after another on the import's way, so they add up to at most the
/// call's `duration`; what is left is the work between them (reading the validators kept
/// for a page, asking for the next page ahead, checking content types, whether a 304 still
/// stands for its rows, fingerprints of the bodies). A page asked for ahead downloads while the
/// one before it decodes: only the time the import then still waits for it is `waiting`.
public struct ImportPhases: Sendable, Equatable {
    /// Waiting for answers: from a request (or the moment a page asked for ahead was needed)
    /// to its whole body, retries and their delays included.
    public var waiting: Duration = .zero
    /// Decoding the bodies into the import's context, unique matching included.
    public var decoding: Duration = .zero
    /// The saves: the store's transactions (one, or one a page with `.perPage`), and a
    /// sync's deletions.
    public var saving: Duration = .zero
    /// Recording what conditional GET needs for the next call (validators, digests of the
    /// rows the pages set) and the ETag an edit is pushed against.
    public var recording: Duration = .zero
    /// Handing the saved objects over: taking them out of the import's context and into the
    /// caller's.
    public var handingOver: Duration = .zero

    public init() {}

    /// The phases' sum.
    public var total: Duration { waiting + decoding + saving + recording + handingOver }
}

extension ImportPhases {
    /// Counts the time since `start` in `phase`.
    mutating func add(_ phase: WritableKeyPath<ImportPhases, Duration>, since start: ContinuousClock.Instant) {
        self[keyPath: phase] += ContinuousClock.now - start
    }
}
