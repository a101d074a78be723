import Foundation
import Testing

/// Runs the built `promise-run` binary, which `swift build --build-tests`
/// (and so `swift test`) puts beside the test bundle.
enum Binary {
    /// Where the binary is: in the test executable's folder (argv[0]), else
    /// in the bundle's folder, else in .build/debug of the package.
    static let url: URL? = {
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

    /// Runs the binary with `arguments` in `directory`, feeding `stdin`.
    static func run(
        _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Outcome {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        return try runCommand(binary.path, arguments, stdin: stdin, in: directory, environment: environment)
    }

    /// Runs any program the same way (output to files, not pipes, so that a
    /// stray grandchild cannot keep the test waiting).
    static func runCommand(
        _ program: String, _ arguments: [String], stdin: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Outcome {
        let binary = URL(fileURLWithPath: program)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("promise-run-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("stdin")
        let output = scratch.appendingPathComponent("stdout")
        let errors = scratch.appendingPathComponent("stderr")
        try Data(stdin.utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        var processEnvironment = ProcessInfo.processInfo.environment
        processEnvironment["NO_COLOR"] = nil
        for (key, value) in environment { processEnvironment[key] = value }
        process.environment = processEnvironment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            exitedNormally: process.terminationReason == .exit,
            stdout: try String(contentsOf: output, encoding: .utf8),
            stderr: try String(contentsOf: errors, encoding: .utf8))
    }

    /// A folder for a test's files, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("promise-run-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension Binary {
    /// `runCommand` on a thread of its own: a long run does not hold one of
    /// the few threads of Swift concurrency's pool (2 on this machine) that
    /// every other test's `await` needs.
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

    static func runCommandOffPool(_ program: String, _ arguments: [String]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runCommand(program, arguments) })
            }.start()
        }
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
}
