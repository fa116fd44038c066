import Foundation
import PushModels
import Stash
import StashREST
import TestProcesses
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 19's crash test: a pushing process (`stash-worker push`) killed with SIGKILL at a
/// random moment, 20 times, with edits made between the kills (every other time within 10 ms
/// of the round's first write, so that kills land mid-push on a machine of any speed); then
/// one push to the end.
/// The API answers each write 20 ms after applying it, so that kills land between a write
/// applied and its acknowledgement too. Afterwards the server holds every edit, and applied
/// each operation exactly once.
@Suite struct RESTPushCrashTests {
    @Test func aPushKilledAtRandomMomentsSendsEveryEditExactlyOnce() async throws {
        let server = try await TestServer.start()
        let store = try TemporaryStore()
        let container = try pushContainer(store)
        let worker = try ChildProcess.sibling(named: "stash-worker")
        try await server.get("api/_fault?kind=slow&delay=0.02&times=100000")
        var killedWhileRunning = 0
        for round in 0..<20 {
            let context = ManagedObjectContext(container)
            let made = Bookmark(context: context)
            made.url = "https://example.com/\(round)"
            made.title = "made in round \(round)"
            let older = try context.fetch(FetchDescriptor<Bookmark>()).filter { $0 !== made }
            if let edited = older.randomElement() {
                edited.title = "edited in round \(round)"
            }
            if round % 5 == 4, let deleted = older.randomElement() {
                context.delete(deleted)
            }
            try context.save()

            let writesBefore = try await server.writes().count
            let process = try ChildProcess(
                worker.path, ["push", store.file.path, server.base.absoluteString], standardOutput: .nullDevice,
                standardError: .nullDevice)
            if round % 2 == 0 {
                // Any moment: while the worker starts, writes, or has finished.
                try await Task.sleep(for: .milliseconds(Int.random(in: 20..<400)))
            } else {
                // Within 10 ms of the round's first write, however slowly a loaded machine starts
                // the worker: with the random window alone, one run on a loaded machine found
                // every worker gone at its kill (`killedWhileRunning` 0). Here 5 to 10 of the 20
                // kills land mid-push in four runs (3 to 6 with the random window alone).
                let deadline = ContinuousClock.now + .seconds(60)
                while process.isRunning, ContinuousClock.now < deadline, try await server.writes().count == writesBefore
                {
                    try await Task.sleep(for: .milliseconds(5))
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<10)))
            }
            if process.isRunning { killedWhileRunning += 1 }
            process.kill()
            process.waitUntilExit()
        }
        #expect(killedWhileRunning > 0)

        let report = try await testClient(server).push(container)
        #expect(report.failed.isEmpty, "\(report.failed)")
        #expect(try container.pendingChangeCount() == 0)

        // The server holds what the store holds.
        let writes = try await server.writes()
        let held = try await server.bookmarks()
        let stored = try ManagedObjectContext(container).fetch(FetchDescriptor<Bookmark>())
        #expect(held.count == stored.count)
        for bookmark in stored {
            let item = held[bookmark.id.uuidString]
            #expect(item?["title"] as? String == bookmark.title, "\(bookmark.url)")
            #expect(item?["url"] as? String == bookmark.url)
            #expect(item?["number"] as? Int == bookmark.number)
        }
        // Each operation applied once: one applied write per idempotency key, one POST per
        // bookmark, and no resend refused as another request under the same key.
        let applied = writes.filter(\.applied)
        #expect(Set(applied.compactMap(\.key)).count == applied.count)
        let posted = applied.filter { $0.method == "POST" }.map(\.body)
        #expect(Set(posted).count == posted.count)
        #expect(writes.filter { $0.status == "422" }.isEmpty)
        #expect(writes.allSatisfy { $0.method == "DELETE" || $0.body.hasPrefix("{") })
    }
}
