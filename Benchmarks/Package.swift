// swift-tools-version:6.0
// PromiseEngine measured against swift-nio's futures. A package of its own so
// that promise-run keeps no dependencies, and one that uses the PromiseEngine
// product as any adopter would. (StepsBench and LanguageBench drive the
// runner's `package` APIs, so they are targets of the root package.)
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
                "CMallocCounter",
            ]
        ),
        // malloc and its relatives, counted (for allocations per operation).
        .target(name: "CMallocCounter"),
    ]
)
