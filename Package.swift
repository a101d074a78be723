// swift-tools-version:6.0
// promise-run: a workflow runner built on PromiseEngine.
// No package dependencies: the Swift toolchain (Foundation, Dispatch,
// Synchronization, Swift Testing) is all the product builds on.
// Linux only: the runner is built on epoll, pidfds, signalfd, inotify and
// /proc (PromiseEngine alone is plain Swift and builds anywhere).
import PackageDescription

let package = Package(
    name: "promise-run",
    products: [
        // Promises only: what other Swift programs adopt. Everything else
        // in this package is `package` access, not part of any product.
        .library(name: "PromiseEngine", targets: ["PromiseEngine"]),
        .executable(name: "promise-run", targets: ["PromiseRun"]),
    ],
    targets: [
        // Promises, combinators, cancellation, time: the library product.
        // No Foundation: it stays cheap to load and unambiguous beside it.
        .target(name: "PromiseEngine", dependencies: ["CSyncAnnotations"]),
        // The operating system as the runner uses it: paths, files (read,
        // written atomically, appended), the environment, the clock, the
        // descriptor limit, change watching and the event loop. At the
        // bottom, beside the promises: nothing here knows of workflows.
        .target(name: "RunnerSystem", dependencies: ["PromiseEngine", "CSystemShims"]),
        // JSON on its own: values, the parser, paths, the one writer of
        // strings. No dependencies: the language server's protocol and the
        // model both stand on it.
        .target(name: "JSON"),
        // What a workflow is: the graph, templates and expectations, source
        // ranges, durations, and the step contract (StepRunner,
        // StepContext, StepResult, StepFailure). It imports only JSON and
        // the promises (not the system: it reads no file), so the compiler
        // keeps it at the bottom.
        .target(name: "WorkflowModel", dependencies: ["JSON", "PromiseEngine"]),
        // The workflow language: lexer, parser, checker, lowering to the
        // model's graph, formatter. Nothing below it, and not the executor,
        // may import it.
        .target(name: "WorkflowLanguage", dependencies: ["JSON", "WorkflowModel", "RunnerSystem", "PromiseEngine"]),
        // Running a workflow: orchestration, resolving templates into the
        // steps that run, records, scheduling, incremental steps, and the
        // renderers (tree, DOT, Mermaid, JSON, dry run). Built on the model;
        // it never sees the language.
        .target(name: "WorkflowRun", dependencies: ["JSON", "WorkflowModel", "PromiseEngine", "RunnerSystem"]),
        // ThreadSanitizer annotations for Mutex (header only, no cost when
        // TSan is off).
        .target(name: "CSyncAnnotations"),
        // libc functions Swift cannot import (a vfork-style spawn with a pidfd,
        // wait-status macros, epoll, inotify). Used by RunnerSystem and Steps.
        .target(name: "CSystemShims"),
        // The step kinds: processes, HTTP, files.
        // Steps take the model's steps and contract, never the language or the executor.
        .target(name: "Steps", dependencies: ["JSON", "WorkflowModel", "RunnerSystem", "PromiseEngine", "CSystemShims"]),
        // The executable's first moments: its stopping signals blocked
        // before any thread starts, read later from a signalfd.
        .target(name: "CRunnerStart"),
        // JSON-RPC 2.0 with the LSP base protocol's framing: messages, ids,
        // errors, and a connection over two descriptors. Knows nothing of
        // workflows (JSON is its only import).
        .target(name: "JSONRPC", dependencies: ["JSON"]),
        // `promise-run lsp`: the protocol's values, open
        // documents, and the features, over the language's analysis and its
        // one table of words.
        .target(name: "LanguageServer", dependencies: ["JSON", "JSONRPC", "WorkflowLanguage", "WorkflowModel", "RunnerSystem"]),
        // The run's reports (JSON, JUnit, HTML, Markdown, the GitHub step
        // summary), the request for one (`--report FORMAT=PATH`) and how
        // times and sizes read. Built on the run's records; it never sees
        // the language or the command line.
        .target(name: "Reports", dependencies: ["JSON", "WorkflowRun", "WorkflowModel", "RunnerSystem", "PromiseEngine"]),
        // The command line described: every option once (the option
        // table), the commands and what each is given (`RunOptions`, ...),
        // and what is derived from the table: `--help`'s text and the bash,
        // zsh and fish completion scripts. Parsing is the executable's.
        .target(name: "CommandLineOptions", dependencies: ["Reports", "WorkflowModel", "RunnerSystem"]),
        // The executable: parsing the arguments, wiring, the console.
        .executableTarget(
            name: "PromiseRun",
            dependencies: [
                "JSON", "WorkflowRun", "WorkflowLanguage", "WorkflowModel", "RunnerSystem", "PromiseEngine", "Steps",
                "CRunnerStart", "LanguageServer", "Reports", "CommandLineOptions",
            ]),

        // Helpers the promise and workflow tests share (errors, recorders).
        .target(name: "PromiseTestSupport", dependencies: ["PromiseEngine"], path: "Tests/PromiseTestSupport"),
        .testTarget(name: "PromiseEngineTests", dependencies: ["PromiseEngine", "PromiseTestSupport"]),
        // Workflow text compiled as the command compiles it, for the tests below.
        .target(name: "WorkflowTestSupport", dependencies: ["WorkflowLanguage", "WorkflowModel"], path: "Tests/WorkflowTestSupport"),
        // The system layer on its own: the event loop, timers, the pacer,
        // the watcher, globbing, SHA-256.
        .testTarget(name: "RunnerSystemTests", dependencies: ["RunnerSystem", "PromiseEngine"]),
        // JSON on its own: the parser against RFC 8259's cases, paths, values.
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "WorkflowModelTests", dependencies: ["WorkflowModel", "JSON", "RunnerSystem", "PromiseEngine"]),
        // (Its parser and robustness tests also render what they parse.)
        .testTarget(
            name: "WorkflowLanguageTests",
            dependencies: [
                "WorkflowLanguage", "WorkflowModel", "JSON", "WorkflowRun", "RunnerSystem",
                "PromiseEngine", "WorkflowTestSupport", "PromiseTestSupport",
            ]),
        .testTarget(
            name: "WorkflowRunTests",
            dependencies: [
                "WorkflowRun", "WorkflowLanguage", "WorkflowModel", "RunnerSystem",
                "PromiseEngine", "WorkflowTestSupport", "PromiseTestSupport",
            ]),
        .testTarget(name: "StepsTests", dependencies: ["Steps", "WorkflowModel", "JSON", "RunnerSystem", "PromiseEngine"]),
        .testTarget(
            name: "PromiseRunTests",
            dependencies: [
                "PromiseRun", "CommandLineOptions", "Reports", "WorkflowRun", "WorkflowLanguage",
                "WorkflowModel", "RunnerSystem", "PromiseEngine",
            ]),
        // The reports on their own (the HTML report's critical path).
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "WorkflowRun", "WorkflowModel", "PromiseEngine"]),
        // The option table, `--help` and the completion scripts on their own.
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions", "WorkflowLanguage", "WorkflowModel"]),
        // What the language server tests' two clients share (in process and
        // over the built binary): the messages kept, the wait loop, request ids.
        .target(name: "LSPTestSupport", path: "Tests/LSPTestSupport"),
        // The language server's pieces on their own: framing, messages, positions, contexts.
        .testTarget(name: "LanguageServerTests", dependencies: ["LanguageServer", "JSONRPC", "JSON", "WorkflowModel", "LSPTestSupport"]),
        // Runs the built `promise-run` binary on real workflow files.
        .testTarget(name: "EndToEndTests", dependencies: ["PromiseRun", "CommandLineOptions", "LSPTestSupport"]),

        // Benchmarks of the runner's own parts (Benchmarks/README.md). They
        // drive `package` APIs, so they live in this package; the engine
        // measured against NIO is Benchmarks/Package.swift, which depends on
        // the PromiseEngine product only.
        .executableTarget(
            name: "StepsBench",
            dependencies: ["JSON", "Steps", "WorkflowRun", "WorkflowLanguage", "WorkflowModel", "RunnerSystem", "PromiseEngine"],
            path: "Benchmarks/Sources/StepsBench"
        ),
        .executableTarget(
            name: "LanguageBench",
            dependencies: ["WorkflowLanguage", "WorkflowModel", "RunnerSystem", "PromiseEngine"],
            path: "Benchmarks/Sources/LanguageBench"
        ),
    ]
)

// A file sees the members of only the modules it imports itself, and an
// import is internal unless it says `package import` or `public import`
// (what sourcekit-lsp and swift-subprocess turn on): imports say what is
// true, and the marked ones say where a module's API exposes another's.
for target in package.targets where !target.name.hasPrefix("C") || target.name.hasSuffix("Tests") || target.name == "CommandLineOptions" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
