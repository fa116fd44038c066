extension ConstructionFrame {
    /// Runs `body`, which decodes a nested object of class `targetClass` for a relationship of
    /// an object in `context`, with the context handed over to that object's default
    /// `init(from:)` (`takeHandedOverContext`). Nested objects nest: the outer one's is put
    /// back after. Called by `ObjectDecoder.handingOver`, which hands over the container the
    /// same way.
    func handingOver<Result>(
        _ context: ManagedObjectContext, for targetClass: ObjectIdentifier, _ body: () throws -> Result
    ) rethrows -> Result {
        let (outerClass, outerContext) = (handedOverClass, handedOverContext)
        (handedOverClass, handedOverContext) = (targetClass, context)
        defer { (handedOverClass, handedOverContext) = (outerClass, outerContext) }
        return try body()
    }

    /// The context handed over for an object of `type`, taken once: the first default
    /// `init(from:)` of that class while it is handed over is the nested object's own, as
    /// the first decode of it takes the container handed over (`ObjectDecoder.handingOver`).
    func takeHandedOverContext(for type: ManagedObject.Type) -> ManagedObjectContext? {
        guard handedOverClass == ObjectIdentifier(type) else { return nil }
        handedOverClass = nil
        return handedOverContext
    }
}
