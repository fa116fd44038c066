import Foundation

// Processes for the many-writer tests and soak: StashTests' `ManyProcessTests`,
// StashPostgresTests' `PostgresSoakTests` and CI run
//
//     stash-worker soak <store.sqlite | postgresql://…> <writers> <readers> <rows> <seconds>
//
// which starts this executable again as each writer (`write`) and reader (`read`) and
// prints as JSON what they did and what the store holds at the end: it exits 1 if a row
// mixes two saves, appears twice or holds values no save wrote, if a writer's count of
// saves differs from what it made, or (PostgreSQL) if a process's `container.changes`
// delivered none of another writer's saves (see Soak.swift).
// StashRESTTests' `RESTPushCrashTests` runs
//
//     stash-worker push <store.sqlite> <base URL>
//
// and kills it at a random moment (see PushWorker.swift).

let arguments = Array(CommandLine.arguments.dropFirst())
func argument(_ index: Int) -> String {
    guard index < arguments.count else {
        FileHandle.standardError.write(
            Data("usage: stash-worker soak <store> <writers> <readers> <rows> <seconds>\n".utf8))
        exit(2)
    }
    return arguments[index]
}

do {
    switch arguments.first {
    case "write":
        let writer = SoakWriter(
            store: SoakStore(location: argument(1)), writer: Int(argument(2)) ?? 1, rows: Int(argument(3)) ?? 300,
            deadline: Date(timeIntervalSince1970: Double(argument(4)) ?? 0))
        print(try writer.run().json)
    case "read":
        let reader = SoakReader(
            store: SoakStore(location: argument(1)), deadline: Date(timeIntervalSince1970: Double(argument(2)) ?? 0))
        print(try reader.run().json)
    case "push":
        print(try await PushWorker(store: URL(fileURLWithPath: argument(1)), baseURL: argument(2)).run())
    case "soak":
        let soak = Soak(
            store: SoakStore(location: argument(1)), writers: Int(argument(2)) ?? 4, readers: Int(argument(3)) ?? 2,
            rows: Int(argument(4)) ?? 300, seconds: Double(argument(5)) ?? 10)
        let outcome = try soak.run()
        print(outcome.json)
        if !outcome.failures.isEmpty || outcome.finalRows != soak.rows {
            FileHandle.standardError.write(Data("soak failed: \(outcome.failures.joined(separator: ", "))\n".utf8))
            exit(1)
        }
    default:
        _ = argument(99)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
