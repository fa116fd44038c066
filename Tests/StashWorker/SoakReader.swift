import Foundation
import Stash

/// One reader process: until its deadline, fetches every row, alternately in one
/// long-lived context (whose objects the writers' commits must reach) and in a fresh one,
/// and counts the rows whose columns no single save wrote.
struct SoakReader {
    let store: URL
    let deadline: Date

    func run() throws -> Soak.Outcome {
        let container = try PersistentContainer(for: SoakRow.self, storeURL: store, busyTimeout: .seconds(30))
        let longLived = ManagedObjectContext(container)
        var tally = Soak.Outcome()
        while Date() < deadline {
            let context = tally.fetches.isMultiple(of: 2) ? longLived : ManagedObjectContext(container)
            let rows = try context.fetch(FetchDescriptor<SoakRow>())
            tally.fetches += 1
            tally.rowsRead += rows.count
            tally.mixedRowsRead += rows.count { !$0.isConsistent }
        }
        return tally
    }
}
