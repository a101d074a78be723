import Foundation
import Testing

/// The binary running in the background, for tests that signal it.
final class RunningBinary {
    let process = ChildProcess()
    let stdoutURL: URL
    let stderrURL: URL

    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        let binary = try #require(Binary.url, "promise-run was not found beside the tests")
        stdoutURL = directory.appendingPathComponent("runner.stdout")
        stderrURL = directory.appendingPathComponent("runner.stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var processEnvironment = ProcessInfo.processInfo.environment
        for (key, value) in environment { processEnvironment[key] = value }
        process.environment = processEnvironment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the runner's pid only (as CI systems do).
    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits until `stdout` contains `text` (the run reached a point).
    func waitForOutput(_ text: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !stdout.contains(text) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                Issue.record("never printed '\(text)'; printed:\n\(stdout)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits for the exit (or kills it after `timeout` and fails the test).
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                Issue.record("promise-run did not exit in time")
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Processes whose command line contains `marker` (from /proc), for
/// checking that nothing outlived the runner.
func processes(containing marker: String) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var found: [String] = []
    for pid in entries where Int(pid) != nil {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { continue }
        let command = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
        // The runner itself (its workflow's path holds the marker) is not
        // a leftover; told by its program, argv[0], not by the command
        // line: every test folder's path holds "promise-run" too.
        let program = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
        if command.contains(marker) && !program.hasSuffix("/promise-run") && program != "promise-run" {
            found.append("\(pid): \(command)")
        }
    }
    return found
}

/// A copy of `sleep` under a unique name, so a test can find its processes.
func markedSleep(in folder: URL) throws -> String {
    let name = "sleep-marker-\(UUID().uuidString.prefix(8))"
    let path = folder.appendingPathComponent(name).path
    try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: path)
    return path
}
