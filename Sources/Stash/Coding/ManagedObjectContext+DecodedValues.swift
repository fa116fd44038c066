extension ManagedObjectContext {
    /// Runs `body`, a decode into this context, with every object Stash's decoding decodes
    /// meanwhile noted in `record` with the attributes the JSON gave it (see
    /// `DecodedValueRecord`). For StashREST, whose conditional GET needs to know what a full
    /// answer sets.
    package func recordingDecodedValues<Result>(into record: DecodedValueRecord, _ body: () throws -> Result)
        rethrows -> Result
    {
        let outer = entering { decoding.record }
        entering { decoding.record = record }
        defer { entering { decoding.record = outer } }
        return try body()
    }
}
