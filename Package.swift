// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Stash",
    products: [
        .library(name: "Stash", targets: ["Stash"]),
        .library(name: "StashREST", targets: ["StashREST"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "Stash",
            dependencies: ["CSQLite"],
            path: "Sources/Stash"
        ),
        .target(
            name: "StashREST",
            dependencies: ["Stash"],
            path: "Sources/StashREST"
        ),
        .executableTarget(
            name: "stash-example",
            dependencies: ["Stash"],
            path: "Examples/stash-example"
        ),
        .executableTarget(
            name: "stash-bench",
            dependencies: ["Stash", "StashREST", "CSQLite"],
            path: "Benchmarks/stash-bench"
        ),
        // The processes of the many-writer tests and soak (see its main.swift).
        .executableTarget(
            name: "stash-worker",
            dependencies: ["Stash"],
            path: "Tests/StashWorker"
        ),
        .testTarget(
            name: "StashTests",
            dependencies: ["Stash"],
            path: "Tests/StashTests"
        ),
        .testTarget(
            name: "StashRESTTests",
            dependencies: ["StashREST", "Stash"],
            path: "Tests/StashRESTTests",
            exclude: ["Server"]
        ),
    ]
)
