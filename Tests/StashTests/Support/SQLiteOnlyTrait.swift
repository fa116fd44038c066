import Testing

extension Trait where Self == SQLiteOnlyTrait {
    /// The test (or suite) is about SQLite itself, and `reason` says how: under
    /// `.bothStores` it runs on SQLite alone.
    static func sqliteOnly(_ reason: Comment) -> Self { SQLiteOnlyTrait(reason: reason) }
}

/// Marks a test that is about SQLite itself (its file, its shell, its pragmas, what
/// PostgreSQL refuses by name): the reader sees why it has no PostgreSQL run.
struct SQLiteOnlyTrait: TestTrait, SuiteTrait {
    let reason: Comment

    var isRecursive: Bool { true }
    var comments: [Comment] { [reason] }
}
