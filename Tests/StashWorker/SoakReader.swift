import Foundation
import Stash

/// One reader process: until its deadline, fetches every row, alternately in one
/// long-lived context (whose objects the writers' commits must reach) and in a fresh one,
/// and counts the rows whose columns no single save wrote; meanwhile it counts the writers'
/// saves its container's `changes` delivers.
struct SoakReader {
    let store: SoakStore
    let deadline: Date

    func run() throws -> Soak.Report {
        let container = try store.open()
        let hearing = try SoakHearing(container, own: nil)
        let longLived = ManagedObjectContext(container)
        var report = Soak.Report()
        while Date() < deadline {
            let context = report.fetches.isMultiple(of: 2) ? longLived : ManagedObjectContext(container)
            let rows = try context.fetch(FetchDescriptor<SoakRow>())
            report.fetches += 1
            report.rowsRead += rows.count
            report.mixedRowsRead += rows.count { !$0.isConsistent }
        }
        Thread.sleep(forTimeInterval: 0.3)
        report.heard = hearing.stop()
        return report
    }
}
