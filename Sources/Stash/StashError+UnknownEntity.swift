extension StashError {
    /// A class used as a model of a container that does not store it: the error names the
    /// models it does store, since the usual cause is a model left out of the container.
    static func notAModel(_ type: ManagedObject.Type, of models: [String]) -> StashError {
        StashError(
            .unknownEntity, "\(type) is not one of this container's models (\(models.joined(separator: ", ")))",
            entity: String(describing: type))
    }
}
