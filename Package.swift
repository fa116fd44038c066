// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Stash",
    products: [
        .library(name: "Stash", targets: ["Stash"]),
        .library(name: "StashREST", targets: ["StashREST"]),
        .library(name: "StashPostgres", targets: ["StashPostgres"]),
        .library(name: "Feeds", targets: ["Feeds"]),
        .executable(name: "feeds", targets: ["feeds"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // A Swift runtime function Stash declares for itself, and the thread-local slot of the
        // object being built (see runtime.h); no library.
        .target(
            name: "CStashRuntime",
            path: "Sources/CStashRuntime"
        ),
        .target(
            name: "Stash",
            dependencies: ["CSQLite", "CStashRuntime"],
            path: "Sources/Stash"
        ),
        // libpq, for the PostgreSQL store (Debian: libpq-dev); only StashPostgres links it.
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // The same models and contexts on PostgreSQL: a `Store` over libpq.
        .target(
            name: "StashPostgres",
            dependencies: ["Stash", "CLibPQ"],
            path: "Sources/StashPostgres"
        ),
        .target(
            name: "StashREST",
            dependencies: ["Stash"],
            path: "Sources/StashREST"
        ),
        // The bookmarks and feed manager: models, formats, refresh, search, OPML (a library, testable).
        .target(
            name: "Feeds",
            dependencies: ["Stash", "StashREST"],
            path: "Sources/Feeds"
        ),
        // Its command line: argument parsing and output only.
        .executableTarget(
            name: "feeds",
            dependencies: ["Feeds"],
            path: "Sources/feeds"
        ),
        .executableTarget(
            name: "stash-example",
            dependencies: ["Stash"],
            path: "Examples/stash-example"
        ),
        .executableTarget(
            name: "stash-bench",
            dependencies: ["Stash", "StashREST", "StashPostgres", "CSQLite", "CLibPQ", "TestProcesses"],
            path: "Benchmarks/stash-bench"
        ),
        // The feeds app at scale (1,000 feeds, 500,000 entries) beside hand-written sqlite3 queries.
        .executableTarget(
            name: "feeds-bench",
            dependencies: ["Feeds", "Stash", "StashREST", "CSQLite"],
            path: "Benchmarks/feeds-bench"
        ),
        // The processes of the many-writer tests and soak, and the push killed at random
        // moments (see its main.swift).
        .executableTarget(
            name: "stash-worker",
            dependencies: ["Stash", "StashPostgres", "StashREST", "TestProcesses", "PushModels"],
            path: "Tests/StashWorker"
        ),
        // The push tests' models, shared by the tests and the worker process they kill.
        .target(
            name: "PushModels",
            dependencies: ["Stash"],
            path: "Tests/PushModels"
        ),
        // Child processes for the tests and the worker, started with posix_spawn rather than
        // Foundation's Process (see ChildProcess.swift).
        .target(
            name: "TestProcesses",
            path: "Tests/TestProcesses"
        ),
        .testTarget(
            name: "StashTests",
            dependencies: ["Stash", "StashPostgres", "TestProcesses"],
            path: "Tests/StashTests"
        ),
        .testTarget(
            name: "StashPostgresTests",
            dependencies: ["StashPostgres", "Stash", "StashREST", "Feeds", "TestProcesses"],
            path: "Tests/StashPostgresTests"
        ),
        .testTarget(
            name: "StashRESTTests",
            dependencies: ["StashREST", "Stash", "TestProcesses", "PushModels"],
            path: "Tests/StashRESTTests",
            exclude: ["Server"]
        ),
        .testTarget(
            name: "FeedsTests",
            dependencies: ["Feeds", "Stash", "StashREST", "TestProcesses"],
            path: "Tests/FeedsTests"
        ),
    ]
)
