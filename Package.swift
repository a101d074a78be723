// swift-tools-version:6.0
// promise-run: a workflow runner built on PromiseEngine.
// No package dependencies: the Swift toolchain (Foundation, Dispatch,
// Synchronization, Swift Testing) is all the product builds on.
import PackageDescription

let package = Package(
    name: "promise-run",
    products: [
        .library(name: "PromiseEngine", targets: ["PromiseEngine"]),
        .library(name: "Steps", targets: ["Steps"]),
        .executable(name: "promise-run", targets: ["PromiseRun"]),
    ],
    targets: [
        // Promises, combinators, cancellation; the workflow language, graph
        // and executor. No Foundation: it stays cheap to load.
        .target(name: "PromiseEngine", dependencies: ["CSyncAnnotations"]),
        // ThreadSanitizer annotations for Mutex (header only, no cost when
        // TSan is off).
        .target(name: "CSyncAnnotations"),
        // libc functions Swift cannot import (a vfork-style spawn with a pidfd,
        // wait-status macros). Used by Steps only.
        .target(name: "CSystemShims"),
        // The step kinds: processes, HTTP, files.
        .target(name: "Steps", dependencies: ["PromiseEngine", "CSystemShims"]),
        // The executable's first moments: its stopping signals blocked
        // before any thread starts, read later from a signalfd.
        .target(name: "CRunnerStart"),
        // The executable: arguments, wiring, console and reports.
        .executableTarget(name: "PromiseRun", dependencies: ["PromiseEngine", "Steps", "CRunnerStart"]),

        .testTarget(name: "PromiseEngineTests", dependencies: ["PromiseEngine"]),
        .testTarget(name: "StepsTests", dependencies: ["Steps", "PromiseEngine"]),
        .testTarget(name: "PromiseRunTests", dependencies: ["PromiseRun", "PromiseEngine"]),
        // Runs the built `promise-run` binary on real workflow files.
        .testTarget(name: "EndToEndTests", dependencies: ["PromiseRun"]),
    ]
)
