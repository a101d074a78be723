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
    static func run(_ arguments: [String], stdin: String = "", in directory: URL? = nil,
                    environment: [String: String] = [:]) throws -> Outcome {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        return try runCommand(binary.path, arguments, stdin: stdin, in: directory, environment: environment)
    }

    /// Runs the binary as `run` does, killed (SIGKILL) if it has not ended
    /// within `seconds`: a test of a hang fails instead of hanging the
    /// suite. `ended` is false when it had to be killed.
    static func run(_ arguments: [String], within seconds: Int, in directory: URL? = nil,
                    environment: [String: String] = [:]) throws -> (outcome: Outcome, ended: Bool, elapsed: Duration) {
        let binary = try #require(url, "promise-run was not found beside the tests; run 'swift build --build-tests' first")
        let started = ContinuousClock.now
        let outcome = try runCommand("/usr/bin/timeout", ["-s", "KILL", "\(seconds)", binary.path] + arguments,
                                     in: directory, environment: environment)
        return (outcome, !(outcome.status == 137 || outcome.status == 124), started.duration(to: .now))
    }

    /// Runs any program the same way (output to files, not pipes, so that a
    /// stray grandchild cannot keep the test waiting).
    static func runCommand(_ program: String, _ arguments: [String], stdin: String = "", in directory: URL? = nil,
                           environment: [String: String] = [:]) throws -> Outcome {
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
