import Foundation
import Testing

/// Runs the built `promise-run` binary, which `swift build --build-tests`
/// (and so `swift test`) puts beside the test bundle.
enum Binary {
    /// Where the binary is: the path `PROMISE_RUN_BINARY` gives (relative
    /// to the package: CI runs the release binary, the one users install,
    /// end to end), else in the test executable's folder (argv[0]), else
    /// in the bundle's folder, else in .build/debug of the package.
    static let url: URL? = {
        if let chosen = ProcessInfo.processInfo.environment["PROMISE_RUN_BINARY"], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen, relativeTo: packageRoot).standardizedFileURL
        }
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(packageRoot.appendingPathComponent(".build/debug"))
        return folders.map { $0.appendingPathComponent("promise-run") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The package's folder (this file is Tests/EndToEndTests/Support/BinaryRunner.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What one run printed and how it ended.
    struct Outcome {
        var status: Int32
        /// False when the process died of a signal (a crash).
        var exitedNormally: Bool
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with `arguments` in `directory`, feeding `stdin`,
    /// blocking the calling thread (for code already on a thread of its
    /// own, such as `offPool`'s; async tests use the async `run`).
    static func run(
        _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Outcome {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        return try runCommand(binary.path, arguments, stdin: stdin, in: directory, environment: environment)
    }

    /// Runs the binary with `arguments` in `directory`, feeding `stdin`;
    /// the test's task is suspended until the process exits, holding no
    /// thread of Swift concurrency's pool (2 on a 2-core machine).
    static func run(
        _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Outcome {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        return try await runCommandTimed(
            binary.path, arguments, stdin: stdin, in: directory, environment: environment,
            inSlot: true
        ).outcome
    }

    /// Runs any program the same way (output to files, not pipes, so that a
    /// stray grandchild cannot keep the test waiting), blocking the thread.
    static func runCommand(
        _ program: String, _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Outcome {
        let launch = try Launch(program, arguments, stdin: stdin, in: directory, environment: environment)
        defer { launch.removeScratch() }
        try launch.process.run()
        launch.process.waitUntilExit()
        return try launch.outcome()
    }

    /// The same, suspending the task until the process exits (a thread of
    /// its own waits, none of the pool's). Not bounded by
    /// `ProcessSlots` (a test's helper programs, curl sampling a running
    /// run, nvim, run when the test needs them); `run` and `runBounded` are.
    static func runCommand(
        _ program: String, _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await runCommandTimed(
            program, arguments, stdin: stdin, in: directory, environment: environment,
            inSlot: false
        ).outcome
    }

    /// The async `runCommand`, in one of `ProcessSlots.shared` when
    /// `inSlot`, and the seconds from the launch to the exit (not counting
    /// the wait for a slot).
    private static func runCommandTimed(
        _ program: String, _ arguments: [String], stdin: String, in directory: URL?,
        environment: [String: String], inSlot: Bool
    ) async throws -> (outcome: Outcome, seconds: Double) {
        let launch = try Launch(program, arguments, stdin: stdin, in: directory, environment: environment)
        defer { launch.removeScratch() }
        let slots: ProcessSlots? = inSlot ? .shared : nil
        await slots?.acquire()
        let started = Date()
        do {
            try await launch.spawnAndAwaitExit()
        } catch {
            await slots?.release()
            throw error
        }
        let seconds = Date().timeIntervalSince(started)
        await slots?.release()
        return (try launch.outcome(), seconds)
    }

    /// A process set up to run with its input and outputs in files of a
    /// scratch folder.
    private struct Launch {
        let process = ChildProcess()
        let scratch: URL
        let input: URL
        let output: URL
        let errors: URL

        init(
            _ program: String, _ arguments: [String], stdin: String, in directory: URL?,
            environment: [String: String]
        ) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("promise-run-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            input = scratch.appendingPathComponent("stdin")
            output = scratch.appendingPathComponent("stdout")
            errors = scratch.appendingPathComponent("stderr")
            do {
                try Data(stdin.utf8).write(to: input)
                _ = FileManager.default.createFile(atPath: output.path, contents: nil)
                _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
                process.currentDirectoryURL = directory ?? packageRoot
                var processEnvironment = ProcessInfo.processInfo.environment
                processEnvironment["NO_COLOR"] = nil
                for (key, value) in environment { processEnvironment[key] = value }
                process.environment = processEnvironment
                process.standardInput = try FileHandle(forReadingFrom: input)
                process.standardOutput = try FileHandle(forWritingTo: output)
                process.standardError = try FileHandle(forWritingTo: errors)
            } catch {
                try? FileManager.default.removeItem(at: scratch)
                throw error
            }
        }

        /// Starts the program as `process` is set up and waits for its exit
        /// on a thread of its own (none of the pool's).
        func spawnAndAwaitExit() async throws {
            try process.run()
            let child = process
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    child.waitUntilExit()
                    continuation.resume()
                }.start()
            }
        }

        func removeScratch() {
            try? FileManager.default.removeItem(at: scratch)
        }

        func outcome() throws -> Outcome {
            Outcome(
                status: process.terminationStatus,
                exitedNormally: process.terminationReason == .exit,
                stdout: try String(contentsOf: output, encoding: .utf8),
                stderr: try String(contentsOf: errors, encoding: .utf8))
        }
    }

    /// A folder for a test's files, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("promise-run-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension Binary {
    /// Runs `body` on a thread of its own, so that a test launching many
    /// processes one after another does not hold a thread of the shared
    /// pool (other tests' tasks wait for those).
    static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try body() })
            }.start()
        }
    }

    /// The async `runCommand` (which holds no thread while it waits).
    static func runCommandOffPool(_ program: String, _ arguments: [String]) async throws -> Outcome {
        try await runCommand(program, arguments)
    }
}

extension Binary.Outcome {
    /// Standard output read as a JSON array of objects (`--format json`);
    /// nil when it is not one.
    var jsonObjects: [[String: Any]]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [[String: Any]]
    }
}

extension Binary {
    /// How a bounded run ended: the outcome, and whether `timeout` had to
    /// stop it.
    struct Bounded {
        var outcome: Outcome
        var timedOut: Bool
        var seconds: Double
        /// Exit 0, 1 or 2, in time: no crash (a signal is exit 128+N through
        /// the shell), no hang.
        var endedWell: Bool { !timedOut && outcome.exitedNormally && (0...2).contains(outcome.status) }
    }

    /// Runs the binary under `timeout` (stopped after `seconds`) with at
    /// most 2 GB of address space: a hang or a runaway read fails the test
    /// instead of the machine.
    static func runBounded(
        _ arguments: [String], seconds: Int, stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Bounded {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        let started = Date()
        let outcome = try runCommand(
            "/bin/bash", ["-c", "ulimit -v 2000000; exec timeout -k 2 \(seconds) \"$0\" \"$@\"", binary.path] + arguments,
            stdin: stdin, in: directory, environment: environment)
        return Bounded(
            outcome: outcome, timedOut: outcome.status == 124 || outcome.status == 137,
            seconds: Date().timeIntervalSince(started))
    }

    /// The same, suspending the task while it runs (no thread waits).
    static func runBounded(
        _ arguments: [String], seconds: Int, stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Bounded {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        let (outcome, took) = try await runCommandTimed(
            "/bin/bash", ["-c", "ulimit -v 2000000; exec timeout -k 2 \(seconds) \"$0\" \"$@\"", binary.path] + arguments,
            stdin: stdin, in: directory, environment: environment, inSlot: true)
        return Bounded(outcome: outcome, timedOut: outcome.status == 124 || outcome.status == 137, seconds: took)
    }
}

/// How many runs of promise-run the async `Binary.run` and `runBounded`
/// make at once. A test
/// awaiting its process holds no thread, so without a bound every test of
/// the suite would launch at once: hundreds of runs sharing 2 cores, each
/// so slow that tests judging time ("just now", a run's leftovers gone
/// within seconds) fail. Twice the cores keeps both busy while runs wait
/// on their steps' sleeps and servers.
actor ProcessSlots {
    /// `PROMISE_RUN_TEST_SLOTS` sets the count, for measuring: 8 made the
    /// suite slower than 4 on 2 cores (113 s against 103 s).
    static let shared = ProcessSlots(
        count: Int(ProcessInfo.processInfo.environment["PROMISE_RUN_TEST_SLOTS"] ?? "")
            ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    /// Waits (suspended) for a free slot and takes it.
    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the longest waiter, else frees it.
    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
