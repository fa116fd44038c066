/// A `decodeAndSave` under way: how many objects are decoded since the last batch was
/// written, and what each batch wrote, for the one note told once the transaction commits.
final class BatchedSave {
    let batchSize: Int
    /// The store's change token when the transaction began: no commit can come between its
    /// batches (the transaction holds the store's write lock), so it stays true until the end.
    let token: Int64
    /// How a batch is written into the open transaction (`Store.inOneTransaction`).
    private let writes: TransactionWrites
    private(set) var decoded = 0
    private(set) var pending = 0
    /// The objects the elements since the last batch decoded to, in order (one object for
    /// elements that name the same one): an error of the write that names its object is
    /// given that element's place. Held, so that no other object takes an address of theirs
    /// before the batch is written (an unchanged object is otherwise let go at once).
    private var elements: [ManagedObject] = []
    private(set) var notes: [SaveNote] = []
    /// Entities' inserts, over all batches, that the store did not match against stored
    /// rows (see `NewRowKeys`).
    private(set) var sparedLookUps = 0

    init(batchSize: Int, token: Int64, writes: TransactionWrites) {
        self.batchSize = batchSize
        self.token = token
        self.writes = writes
    }

    /// Counts one decoded element, `object`; answers whether a batch is full.
    func countDecoded(_ object: ManagedObject) -> Bool {
        if elements.isEmpty { elements.reserveCapacity(Swift.min(batchSize, 4_096)) }
        elements.append(object)
        decoded += 1
        pending += 1
        return pending >= batchSize
    }

    /// Writes what `context` decoded since the last batch, inside the open transaction, and
    /// keeps the note. The objects, saved, are held by nobody and go, and so does what the
    /// context kept for them: its unique indexes' entries, which the departure signal
    /// (`RegisteredObjects`) would leave for thousands of objects, and a batch is fewer.
    ///
    /// An error of the write that says no place in the payload is given one: the element
    /// whose object the save refused (a missing value, a validation or a hook of that object),
    /// `[776]`, the last such element if several named it; else (an object nested in an
    /// element, a conflict the store found) the batch's elements, `[700]…[799]`.
    func writeBatch(of context: ManagedObjectContext) throws {
        let elements = (decoded - pending)..<decoded
        var objects = self.elements
        pending = 0
        self.elements = []
        do {
            try context.entering {
                guard let written = try context.writeChanges(inBatch: BatchWrite(writes: writes, token: token))
                else { return }
                notes.append(written.note)
                sparedLookUps += written.sparedLookUps
                written.didSave(token)
            }
        } catch var error as StashError where error.codingPath.isEmpty && !elements.isEmpty {
            // An element's object may stand in for the one refused (the hand-written
            // `init(from:)` made it for a unique value another object holds).
            if let refused = error.refusedObject,
                let offset = objects.lastIndex(where: {
                    ObjectIdentifier($0) == refused || ObjectIdentifier($0.resolved) == refused
                })
            {
                error.codingPath = "[\(elements.lowerBound + offset)]"
            } else {
                error.codingPath =
                    elements.count == 1
                    ? "[\(elements.lowerBound)]" : "[\(elements.lowerBound)]…[\(elements.upperBound - 1)]"
            }
            throw error
        }
        // Let go first, so that the saved objects have gone when the context looks.
        objects = []
        context.entering {
            for state in context.identity.states { state.releaseDeparted() }
        }
    }
}
