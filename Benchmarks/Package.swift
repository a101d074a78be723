// swift-tools-version:6.0
// Benchmarks for promise-run. A package of its own so that the product keeps
// no dependencies: only this package uses swift-nio, to measure against it.
import PackageDescription

let package = Package(
    name: "promise-run-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "promise-run", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.2"),
    ],
    targets: [
        // PromiseEngine against NIO futures, GCD and Swift concurrency.
        .executableTarget(
            name: "EngineBench",
            dependencies: [
                .product(name: "PromiseEngine", package: "promise-run"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // SystemStepRunner driven directly: spawns, HTTP GETs, output and
        // save memory (Benchmarks/steps/*.sh compare it with other tools).
        .executableTarget(
            name: "StepsBench",
            dependencies: [
                .product(name: "Steps", package: "promise-run"),
                .product(name: "PromiseEngine", package: "promise-run"),
            ]
        ),
        // Parse + check + lower of generated workflows.
        .executableTarget(
            name: "LanguageBench",
            dependencies: [.product(name: "PromiseEngine", package: "promise-run")]
        ),
    ]
)
