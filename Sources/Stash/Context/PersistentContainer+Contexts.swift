extension PersistentContainer {
    /// The context of the main actor, made on first use: what a UI reads. It merges the saves
    /// of the container's other contexts itself.
    @MainActor
    public var mainContext: ManagedObjectContext {
        mainContextStorage.withLock { context in
            if let context { return context }
            let made = ManagedObjectContext(self, confinement: .main, name: "mainContext")
            made.reportsToObservation = true
            context = made
            return made
        }
    }

    /// A new context with a private serial executor of its own, for work off the main actor:
    /// enter it with `perform`. Its store work runs on its own thread, not on Swift's
    /// cooperative pool.
    ///
    /// ```swift
    /// let background = container.newBackgroundContext()
    /// try await background.perform {
    ///     _ = try background.decode([Article].self, from: data)
    ///     try background.save()
    /// }
    /// ```
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(
            self, confinement: .background(BackgroundActor(label: "Stash background context")), name: nil)
    }

    /// Runs `body` with a new background context, on that context's executor.
    ///
    /// ```swift
    /// try await container.performBackgroundTask { context in
    ///     let decoder = JSONDecoder()
    ///     decoder.userInfo[.managedObjectContext] = context
    ///     _ = try decoder.decode([Article].self, from: data)
    ///     try context.save()
    /// }
    /// ```
    public func performBackgroundTask<Result: Sendable>(_ body: @Sendable (ManagedObjectContext) throws -> Result)
        async rethrows -> Result
    {
        let context = newBackgroundContext()
        return try await context.perform { try body(context) }
    }
}

extension ManagedObjectContext {
    /// Runs `body` on the context's executor and returns its result. Objects are not
    /// `Sendable`, so return their `objectID`s (or values) rather than the objects.
    ///
    /// For a context confined to no executor (made in a nonisolated task), `body` runs where
    /// the caller is.
    public func perform<Result: Sendable>(_ body: @Sendable () throws -> Result) async rethrows -> Result {
        guard let actor = confinement.actor else { return try body() }
        return try await run(on: actor, body)
    }
}
