import Foundation
import Testing

/// The one-node Slurm cluster the Slurm tests run against: brought up once
/// per test process by `.ci/slurm-cluster up` in a temporary folder, and
/// taken down when the process exits. Without Slurm installed the tests
/// are skipped (and fail under PROMISE_RUN_REQUIRE_TOOLS=1, as in CI).
final class SlurmCluster: Sendable {
    /// The daemons Debian's slurm-wlm and munge install.
    static let isInstalled = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/srun"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether to run the Slurm tests: Slurm is here, or CI requires them
    /// (then they fail saying what is missing).
    static let shouldRun = isInstalled || ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"

    static let skipReason: Comment =
        "Slurm is not installed, so the Slurm end-to-end tests are skipped; `.ci/install-deps` installs slurm-wlm and munge (as root), then `make test` runs them"

    /// `SLURM_CONF=...` for the binary's environment.
    let configuration: String
    let folder: String

    private init(configuration: String, folder: String) {
        self.configuration = configuration
        self.folder = folder
    }

    /// The cluster, started on first use.
    static func shared() async throws -> SlurmCluster {
        try #require(isInstalled, "Slurm is required here (PROMISE_RUN_REQUIRE_TOOLS=1): run .ci/install-deps")
        // Started on a thread of its own, not one of the shared pool's.
        return try await Binary.offPool { try started.get() }
    }

    private static let started: Result<SlurmCluster, any Error> = Result {
        let folder = try Binary.temporaryFolder().path
        let script = Binary.packageRoot.appendingPathComponent(".ci/slurm-cluster").path
        // system(), not Foundation's Process, which sees its child end when
        // a socket it gave the child closes: the daemons `up` leaves running
        // would hold it (the script now closes what it inherits, but no
        // test should depend on that).
        let status = system("/bin/bash '\(script)' up '\(folder)' > '\(folder)/up.out' 2>&1")
        let output = (try? String(contentsOfFile: folder + "/up.out", encoding: .utf8)) ?? ""
        guard status == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("SLURM_CONF=") }) else {
            throw ClusterError(message: "the cluster did not come up (status \(status)):\n\(output)")
        }
        clusterFolder = folder
        atexit {
            // The test process is ending: stop the daemons, remove the folder.
            guard let folder = SlurmCluster.clusterFolder else { return }
            let script = Binary.packageRoot.appendingPathComponent(".ci/slurm-cluster").path
            _ = system("/bin/bash '\(script)' down '\(folder)' >/dev/null 2>&1; rm -rf '\(folder)'")
        }
        return SlurmCluster(configuration: String(line.dropFirst("SLURM_CONF=".count)), folder: folder)
    }

    nonisolated(unsafe) private static var clusterFolder: String?

    struct ClusterError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// The environment a run against this cluster needs.
    var environment: [String: String] { ["SLURM_CONF": configuration] }

    /// Runs `workflow` in `space` against this cluster, on a thread of its
    /// own (not one of the shared pool's).
    func run(_ workflow: String, in space: Workspace, _ arguments: [String] = []) async throws -> WorkflowRun {
        let environment = self.environment
        return try await Binary.offPool { try space.run(workflow, arguments, environment: environment) }
    }

    /// The jobs of promise-run runs still queued or running (none is left
    /// once a run has ended), read off the shared pool.
    func leftoverJobs() async throws -> [String] {
        try await Binary.offPool { try self.jobs() }
    }

    /// `squeue` lines (`id name state`) of jobs whose name starts with
    /// `prefix`. Through popen, not Foundation's Process: it is called in
    /// tight loops, from any thread.
    func jobs(prefix: String = "pr-") throws -> [String] {
        guard let pipe = popen("SLURM_CONF='\(configuration)' /usr/bin/squeue --noheader --format='%i %j %T'", "r") else {
            throw ClusterError(message: "squeue could not start")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        guard status == 0 else { throw ClusterError(message: "squeue failed (status \(status))") }
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init).filter { line in
            line.split(separator: " ").dropFirst().first.map { $0.hasPrefix(prefix) } ?? false
        }
    }
}
