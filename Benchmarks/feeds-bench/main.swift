import Foundation

// feeds-bench: the feeds app at the scale issue 16 asks for (1,000 feeds, 500,000 entries,
// served from loopback HTTP), through FeedLibrary's public API, with the queries beside
// hand-written sqlite3 ones on the same store file, in one run.
//
//     swift build -c release --product feeds-bench && .build/release/feeds-bench

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-bench-\(getpid())")
let storeURL = options.store.map { URL(fileURLWithPath: $0) } ?? temporary.appendingPathComponent("feeds.sqlite")
if FileManager.default.fileExists(atPath: storeURL.path) {
    FileHandle.standardError.write(Data("feeds-bench: \(storeURL.path) exists; give a new path\n".utf8))
    exit(2)
}
print(
    "feeds-bench: \(options.feeds) feeds x \(options.entries) entries (\(options.feeds * options.entries)), "
        + "\(options.changed) changed, \(options.hosts) hosts; store \(storeURL.path)")
do {
    let run = try BenchRun(options: options, storeURL: storeURL)
    try await run.run()
    print()
    print(run.report.text)
} catch {
    FileHandle.standardError.write(Data("feeds-bench: FAILED: \(error)\n".utf8))
    try? FileManager.default.removeItem(at: temporary)
    exit(1)
}
try? FileManager.default.removeItem(at: temporary)
