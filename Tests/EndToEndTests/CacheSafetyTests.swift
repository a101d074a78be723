import Foundation
import Testing

/// The shared cache is never a way in (issue 39, "The shared cache"): an
/// entry is data other checkouts wrote, so a crafted one must not write
/// through a link, outside its step's `generates`, over the workflow or
/// `.git`, with setuid bits, or half; an object must not hold the run; no
/// secret is stored, and no step sees the cache's credentials. Crafted
/// entries in a real folder store, the real binary.
@Suite("End to end: the shared cache is never a way in")
struct CacheSafetyTests {
    static let workflow = """
        build: sh "mkdir -p out && echo built > out/upper.txt && echo ran >> $RUNLOG" {
          sources "src/*.txt"
          generates "out/*"
        }
        """

    /// A folder store with one real entry in it, and a fresh checkout to
    /// restore into.
    private struct Setup {
        let store: URL
        let first: Workspace
        let second: Workspace
        let key: String

        init(workflow: String = CacheSafetyTests.workflow, prepare: (Workspace) throws -> Void = { _ in }) async throws {
            store = try Binary.temporaryFolder()
            first = try Workspace()
            second = try Workspace()
            for space in [first, second] {
                try space.write("build.workflow", workflow)
                try space.write("src/in.txt", "in\n")
            }
            try prepare(first)
            let stored = try await CacheSafetyTests.run(first, store: store)
            #expect(stored.status == 0, "\(stored.stdout)\(stored.stderr)")
            let keys = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("ac").path)
            key = try #require(keys.first)
        }

        func remove() {
            first.remove()
            second.remove()
            try? FileManager.default.removeItem(at: store)
        }

        /// Stores `content` as an object; its SHA-256.
        @discardableResult
        func object(_ content: String) throws -> String {
            let digest = try CacheSafetyTests.sha256(content)
            let url = store.appendingPathComponent("cas/" + digest)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
            return digest
        }

        /// Replaces the entry with one naming `files` (path, mode, content, size).
        func craft(_ files: [(path: String, mode: Int, sha256: String, size: Int)]) throws {
            try craft(records: files.map { #"{"path": "\#($0.path)", "mode": \#($0.mode), "sha256": "\#($0.sha256)", "size": \#($0.size)}"# })
        }

        /// Replaces the entry with one whose file list is `records` (JSON objects), of `format`.
        func craft(records: [String], format: String = "promise-run-cache/2") throws {
            let entry =
                #"{"format": "\#(format)", "exit": 0, "stdout": "", "stderr": "", "captures": {}, "files": [\#(records.joined(separator: ", "))]}"#
            try Data(entry.utf8).write(to: store.appendingPathComponent("ac/" + key))
        }

        /// The second checkout against the store, bounded in time.
        func restore() async throws -> WorkflowRun {
            try await CacheSafetyTests.run(second, store: store)
        }
    }

    static func run(_ space: Workspace, store: URL, environment: [String: String] = [:]) async throws -> WorkflowRun {
        var environment = environment
        environment["RUNLOG"] = space.path("runs.log")
        let bounded = try await Binary.runBounded(
            [
                "--report", "json=report.json", "--color", "never", "--cache", "file://" + store.path,
                "--cache-timeout", "3s", "build.workflow",
            ], seconds: 40, in: space.folder,
            environment: environment)
        #expect(!bounded.timedOut, "the run did not end")
        return WorkflowRun(outcome: bounded.outcome, reportText: space.read("report.json"))
    }

    static func sha256(_ content: String) throws -> String {
        let file = try Binary.temporaryFolder().appendingPathComponent("object")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data(content.utf8).write(to: file)
        let outcome = try Binary.runCommand("/usr/bin/sha256sum", [file.path])
        return String(outcome.stdout.prefix(64))
    }

    private func ran(_ space: Workspace) -> Bool {
        space.read("runs.log") != nil
    }

    @Test("an entry naming a file through a link in the checkout is refused: nothing is written where the link leads")
    func noWriteThroughALink() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let elsewhere = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try FileManager.default.createSymbolicLink(atPath: setup.second.path("out"), withDestinationPath: elsewhere.path)
        let digest = try setup.object("pwned\n")
        try setup.craft([("out/pwned.txt", 0o644, digest, 6)])
        let run = try await setup.restore()
        #expect(run.said.contains("leads through the link"), "\(run.said)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("pwned.txt").path))
        #expect(ran(setup.second))
    }

    @Test(
        "an entry may restore only what its step's generates matches: never the workflow, .git, .promise-run or another path",
        arguments: [
            ".git/hooks/post-checkout", "build.workflow", ".promise-run/steps/x.json", "src/in.txt", "elsewhere/file",
            "out/.hidden",
        ])
    func onlyWhatGeneratesMatches(_ path: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let before = setup.second.read(path)
        let digest = try setup.object("#!/bin/sh\necho pwned\n")
        try setup.craft([("out/upper.txt", 0o644, try setup.object("built\n"), 6), (path, 0o4777, digest, 21)])
        let run = try await setup.restore()
        #expect(run.said.contains("refused"), "\(run.said)")
        #expect(setup.second.read(path) == before, "\(path) was written")
        #expect(ran(setup.second), "the step should run when its entry is refused")
        #expect(!FileManager.default.fileExists(atPath: setup.second.path(".git")))
        #expect(!FileManager.default.fileExists(atPath: setup.second.path("elsewhere")))
    }

    /// Crafted entries with links: each is refused before anything is
    /// written (the second checkout then holds only what the step's run
    /// makes, and no link), and the step runs. `ELSEWHERE` stands for a
    /// folder outside the checkout.
    static let hostileLinks: [(records: [String], said: String)] = [
        ([#"{"path": ".git/hooks/post-checkout", "link": "/bin/sh"}"#], "inside .git; refused"),
        ([#"{"path": "out/../../x", "link": "ELSEWHERE"}"#], "outside the step's folder"),
        ([#"{"path": "out/link", "link": "ELSEWHERE"}"#, #"{"path": "out/link/pwned", "link": "x"}"#], "below its own out/link"),
        (
            [#"{"path": "out/link", "link": "ELSEWHERE"}"#, #"{"path": "out/link/pwned", "mode": 420, "sha256": "BUILT", "size": 6}"#],
            "below its own out/link"
        ),
        ([#"{"path": "out/hard", "hardlink": "out/missing"}"#], "which is not a file before it in the entry"),
        (
            [#"{"path": "out/hard", "hardlink": "out/upper.txt"}"#, #"{"path": "out/upper.txt", "mode": 420, "sha256": "BUILT", "size": 6}"#],
            "which is not a file before it in the entry"
        ),
        ([#"{"path": "out/hard", "hardlink": "ELSEWHERE/file"}"#], "malformed"),
        ([#"{"path": "out/hard", "hardlink": "../../etc/passwd"}"#], "malformed"),
        ([#"{"path": "out/link", "link": "x", "sha256": "BUILT", "mode": 420, "size": 6}"#], "malformed"),
        ([#"{"path": "out/link", "link": ""}"#], "malformed"),
        ([#"{"path": "out/link", "link": "a"}"#, #"{"path": "out/./link", "link": "b"}"#], "outside the step's folder"),
        ([#"{"path": "out/link", "link": "a"}"#, #"{"path": "out/link", "link": "b"}"#], "names out/link twice"),
        ([#"{"path": "build.workflow", "link": "ELSEWHERE"}"#], "refused"),
        ([#"{"path": "src/in.txt", "link": "ELSEWHERE"}"#], "does not match; refused"),
        // All or none: a good link is not left when a file cannot be restored.
        (
            [#"{"path": "out/link", "link": "ELSEWHERE"}"#, #"{"path": "out/upper.txt", "mode": 420, "sha256": "MISSING", "size": 6}"#],
            "not in the cache"
        ),
    ]

    @Test(
        "a crafted entry with links is refused before anything is written: forbidden names, paths out or below its own links, hard links to what it does not hold",
        arguments: 0..<CacheSafetyTests.hostileLinks.count)
    func hostileLinkEntries(_ index: Int) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let elsewhere = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let (records, said) = Self.hostileLinks[index]
        let built = try setup.object("built\n")
        try setup.craft(
            records: records.map {
                $0.replacingOccurrences(of: "ELSEWHERE", with: elsewhere.path).replacingOccurrences(of: "BUILT", with: built)
                    .replacingOccurrences(of: "MISSING", with: String(repeating: "0", count: 64))
            })
        let run = try await setup.restore()
        #expect(run.said.contains(said), "\(run.said)")
        #expect(ran(setup.second), "the step should run when its entry is refused")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        // What the checkout holds is its own files and what the step's run made: no link, no hard link.
        let names = FileManager.default.enumerator(atPath: setup.second.folder.path)?.compactMap { $0 as? String } ?? []
        #expect(
            Set(names.filter { !$0.hasPrefix(".promise-run") }) == [
                "build.workflow", "src", "src/in.txt", "out", "out/upper.txt",
                "runs.log", "report.json",
            ], "\(names)")
        for name in names {
            var info = stat()
            #expect(lstat(setup.second.path(name), &info) == 0 && (info.st_mode & S_IFMT) != S_IFLNK, "\(name) is a link")
            #expect((info.st_mode & S_IFMT) == S_IFDIR || info.st_nlink == 1, "\(name) has \(info.st_nlink) names")
        }
    }

    @Test("an entry of the format before links (promise-run-cache/1) is a clean miss: the step runs and stores its entry again")
    func oldFormat() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        try setup.craft(
            records: [#"{"path": "out/upper.txt", "mode": 420, "sha256": "\#(try setup.object("built\n"))", "size": 6}"#],
            format: "promise-run-cache/1")
        let run = try await setup.restore()
        #expect(run.status == 0, "\(run.said)")
        #expect(run.said.contains("not of format promise-run-cache/2"), "\(run.said)")
        #expect(ran(setup.second))
        let entry = try String(contentsOf: setup.store.appendingPathComponent("ac/" + setup.key), encoding: .utf8)
        #expect(entry.contains("promise-run-cache/2"), "the success did not replace the old entry")
    }

    @Test("a restored file never gets setuid, setgid, sticky or world-write bits")
    func noDangerousModes() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        try setup.craft([("out/upper.txt", 0o7777, try setup.object("built\n"), 6)])
        let run = try await setup.restore()
        #expect(run.step("build")?["from"] as? String == "cache", "\(run.said)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: setup.second.path("out/upper.txt"))[.posixPermissions] as? Int)
        #expect(mode == 0o775, "mode \(String(mode, radix: 8))")
    }

    @Test("a restore is all or none: a missing object leaves the old files as they were and no folder it made")
    func allOrNone() async throws {
        // The step succeeds only where `ok` is (the first checkout), so that
        // what the second holds after is the restore's doing.
        let workflow = """
            build: sh "test -f ok && mkdir -p out && echo built > out/upper.txt; echo ran >> $RUNLOG; test -f ok" {
              sources "src/*.txt"
              generates "out/**"
            }
            """
        let setup = try await Setup(workflow: workflow, prepare: { try $0.write("ok", "") })
        defer { setup.remove() }
        try setup.second.write("out/upper.txt", "old\n")
        let missing = String(repeating: "0", count: 64)
        try setup.craft([("out/upper.txt", 0o644, try setup.object("new\n"), 4), ("out/new/deep/a.txt", 0o644, missing, 1)])
        let run = try await setup.restore()
        #expect(run.said.contains("not in the cache"), "\(run.said)")
        #expect(ran(setup.second))
        #expect(setup.second.read("out/upper.txt") == "old\n")
        #expect(!FileManager.default.fileExists(atPath: setup.second.path("out/new")), "\(run.said)")
        let names = FileManager.default.enumerator(atPath: setup.second.folder.path)?.compactMap { $0 as? String } ?? []
        #expect(!names.contains { $0.hasSuffix(".restore") || $0.hasSuffix(".restore-old") }, "\(names)")
    }

    @Test(
        "an object that is a FIFO, a link to /dev/zero or larger than its entry says is refused at once; the step runs",
        arguments: ["fifo", "zero", "large"])
    func objectsNeverHoldTheRun(_ kind: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let digest = try Self.sha256("built\n")
        let object = setup.store.appendingPathComponent("cas/" + digest).path
        try? FileManager.default.removeItem(atPath: object)
        switch kind {
        case "fifo": #expect(mkfifo(object, 0o644) == 0)
        case "zero": try FileManager.default.createSymbolicLink(atPath: object, withDestinationPath: "/dev/zero")
        default: try Data(count: 10 << 20).write(to: URL(fileURLWithPath: object))
        }
        let run = try await setup.restore()
        #expect(run.status == 0, "\(run.said)")
        #expect(ran(setup.second), "\(run.said)")
        #expect(setup.second.read("out/upper.txt") == "built\n")
        #expect(run.said.contains("refused"), "\(run.said)")
    }

    @Test("a step whose output or captures hold a secret is stored neither in the store nor in the cache, and says so")
    func noSecretStored() async throws {
        let secret = "s3cr3t-\(UUID().uuidString.prefix(8))"
        let setup = try await Setup(
            workflow: """
                secret token = "\(secret)"
                build: sh "mkdir -p out && echo built > out/upper.txt && echo token={{token}} && echo ran >> $RUNLOG" {
                  sources "src/*.txt"
                  generates "out/*"
                }
                plain: sh "echo plain" {
                  sources "src/*.txt"
                }
                """)
        defer { setup.remove() }
        // Setup stored `plain` only.
        for folder in [setup.store.path, setup.first.path(".promise-run")] {
            for name in FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) ?? [] {
                let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
                #expect(!text.contains(secret), "\(folder)/\(name) holds the secret")
            }
        }
        let again = try await Self.run(setup.first, store: setup.store)
        #expect(again.said.contains("build: its output or captures hold a secret value"), "\(again.said)")
        #expect(again.step("plain")?["status"] as? String == "up-to-date", "\(again.statuses)")
        #expect(again.step("build")?["status"] as? String == "succeeded", "\(again.statuses)")
        #expect(!again.said.contains(secret))
    }

    @Test("no step sees promise-run's own cache credentials: PROMISE_RUN_CACHE_TOKEN, or a PROMISE_RUN_CACHE with user info")
    func credentialsScrubbed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let store = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: store) }
        try space.write(
            "build.workflow",
            """
            show: sh "echo token=[$PROMISE_RUN_CACHE_TOKEN] cache=[$PROMISE_RUN_CACHE] env; env | grep -c PROMISE_RUN_CACHE || true"
            """)
        let run = try await Self.run(
            space, store: store,
            environment: [
                "PROMISE_RUN_CACHE_TOKEN": "tok-\(UUID().uuidString)", "PROMISE_RUN_CACHE": "http://user:pw-123@127.0.0.1:1/x",
            ])
        #expect(run.status == 0, "\(run.said)")
        #expect(run.stdout.contains("token=[] cache=[] env"), "\(run.stdout)")
        #expect(!run.said.contains("pw-123"))
    }
}
