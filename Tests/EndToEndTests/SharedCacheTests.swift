import Foundation
import Testing

/// The shared cache, end to end: the real binary, real
/// checkouts in different folders, nginx with WebDAV and a folder as
/// stores, and a store that refuses, hangs, corrupts and demands a token.
/// See docs/language.md, 'A shared cache'.
@Suite("End to end: the shared cache")
struct SharedCacheTests {
    /// `build` makes a text file and an executable; every real run adds a
    /// line to $RUNLOG (outside the checkout: the inherited environment is
    /// not in the key, so every checkout names its own log).
    static let workflow = """
        workflow "cached"
        build: sh "mkdir -p out && tr a-z A-Z < src/in.txt > out/upper.txt && cp tool.sh out/tool && chmod 755 out/tool && echo ran >> $RUNLOG && echo built it" {
          sources "src/*.txt" "tool.sh"
          generates "out/*"
          capture word = stdout matches 'built (it)'
        }
        log "word={{build.word}}"
        """

    /// A second step with sources, to show that a dead store costs once.
    static let twoSteps =
        workflow + """

            second: sh "mkdir -p out2 && cp src/in.txt out2/copy.txt && echo ran >> $RUNLOG" {
              sources "src/in.txt"
              generates "out2/copy.txt"
            }
            """

    /// A checkout: the workflow and its sources in a folder of its own.
    private func checkout(_ workflow: String = SharedCacheTests.workflow, input: String = "hello cache\n") throws -> Workspace {
        let space = try Workspace()
        try space.write("build.workflow", workflow)
        try space.write("src/in.txt", input)
        try space.write("tool.sh", "#!/bin/sh\necho tool\n")
        return space
    }

    /// `count` checkouts of the same project, removed together by `remove`.
    private func checkouts(_ count: Int) throws -> [Workspace] {
        var made: [Workspace] = []
        do {
            for _ in 0..<count { made.append(try checkout()) }
        } catch {
            remove(made)
            throw error
        }
        return made
    }

    private func remove(_ spaces: [Workspace]) {
        for space in spaces { space.remove() }
    }

    private func run(
        _ space: Workspace, _ arguments: [String], environment: [String: String] = [:],
        reports: Bool = false
    ) async throws -> WorkflowRun {
        let more = reports ? ["--report", "junit=report.xml", "--report", "markdown=report.md", "--report", "html=report.html"] : []
        var environment = environment
        environment["RUNLOG"] = space.path("runs.log")
        let outcome = try await Binary.run(
            ["--report", "json=report.json", "--color", "never"] + more + arguments + ["build.workflow"],
            in: space.folder, environment: environment)
        return WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
    }

    /// A first checkout stores its steps in the cache at `url`; a second
    /// then runs against it. Returns the second (the caller removes it) and
    /// its run.
    private func storedThenRun(_ url: String) async throws -> (Workspace, WorkflowRun) {
        let first = try checkout()
        let second = try checkout()
        defer { first.remove() }
        #expect(try await run(first, ["--cache", url]).status == 0)
        return (second, try await run(second, ["--cache", url]))
    }

    private func runs(_ space: Workspace) -> Int {
        (space.read("runs.log") ?? "").split(separator: "\n").count
    }

    /// Everything a person or a CI system could read after a run.
    private func everythingShown(_ run: WorkflowRun, _ space: Workspace) -> String {
        run.stdout + run.stderr + ["report.json", "report.xml", "report.md", "report.html"].compactMap { space.read($0) }.joined()
    }

    private func leftovers(_ space: Workspace) throws -> [String] {
        let names = FileManager.default.enumerator(atPath: space.folder.path)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(".restore") || $0.hasSuffix(".tmp") }
    }

    @Test(
        "nginx with WebDAV: a second checkout in another folder, with another environment, restores files, modes, output and captures without running",
        .enabled(if: TestServers.nginxShouldRun, TestServers.nginxSkipReason))
    func twoCheckoutsThroughNginx() async throws {
        let dav = try await TestServers.required(TestServers.nginxWebDAV())
        let url = "\(dav.url)/cache/\(UUID().uuidString)"
        let spaces = try checkouts(2)
        let (first, second) = (spaces[0], spaces[1])
        defer {
            remove(spaces)
        }

        let stored = try await run(first, ["--cache", url], environment: ["SOME_CI_VARIABLE": "runner-1"])
        #expect(stored.status == 0, "\(stored.said)")
        #expect(stored.step("build")?["status"] as? String == "succeeded")
        #expect(runs(first) == 1)
        // The upload finished before the run ended: an entry and two files.
        let folder = dav.files.appendingPathComponent("cache/" + url.split(separator: "/").last!)
        let objects = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.contains("/") } ?? []
        #expect(objects.filter { $0.hasPrefix("ac/") }.count == 1, "\(objects)")
        #expect(objects.filter { $0.hasPrefix("cas/") }.count == 2, "\(objects)")

        // The dry run of the second checkout knows.
        let dry = try await Binary.run(["--dry-run", "--cache", url, "build.workflow"], in: second.folder)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("build  would be restored from the cache"), "\(dry.stdout)")

        let restored = try await run(second, ["--cache", url], environment: ["SOME_CI_VARIABLE": "runner-2", "TERM": "xterm-256color"])
        #expect(restored.status == 0, "\(restored.stdout)\(restored.said)")
        #expect(runs(second) == 0, "the step ran instead of being restored")
        #expect(restored.step("build")?["status"] as? String == "up-to-date")
        #expect(restored.step("build")?["from"] as? String == "cache")
        #expect(restored.stdout.contains("≡ build restored from cache"), "\(restored.stdout)")
        #expect(restored.logLines(prefix: "word=") == ["word=it"], "the capture is restored")
        #expect(second.read("out/upper.txt") == "HELLO CACHE\n")
        let mode = try FileManager.default.attributesOfItem(atPath: second.path("out/tool"))[.posixPermissions] as? Int
        #expect(mode == 0o755)
        #expect(try leftovers(second).isEmpty)

        // The restore was recorded locally: without the cache it is up to date.
        let local = try await run(second, [])
        #expect(local.step("build")?["status"] as? String == "up-to-date")
        #expect(local.step("build")?["from"] as? String == "local")
        #expect(runs(second) == 0)
    }

    @Test("a changed source is a miss: the step runs and its new entry is stored beside the old one")
    func changedSourceMisses() async throws {
        let store = try Binary.temporaryFolder()
        let first = try checkout()
        let second = try checkout(input: "something else\n")
        defer {
            first.remove()
            second.remove()
            try? FileManager.default.removeItem(at: store)
        }
        #expect(try await run(first, ["--cache", store.path]).status == 0)
        let other = try await run(second, ["--cache", store.path])
        #expect(other.status == 0)
        #expect(other.step("build")?["status"] as? String == "succeeded")
        #expect(runs(second) == 1)
        #expect(second.read("out/upper.txt") == "SOMETHING ELSE\n")
        let entries = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("ac").path)
        #expect(entries.count == 2)
    }

    @Test("a folder store through file://; --cache-read-only reads but never writes")
    func folderAndReadOnly() async throws {
        let store = try Binary.temporaryFolder()
        let spaces = try checkouts(3)
        let (first, second, third) = (spaces[0], spaces[1], spaces[2])
        defer {
            remove(spaces)
            try? FileManager.default.removeItem(at: store)
        }
        let url = "file://" + store.path

        let readOnly = try await run(first, ["--cache", url, "--cache-read-only"])
        #expect(readOnly.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).isEmpty, "a read-only run wrote to the cache")

        #expect(try await run(second, [], environment: ["PROMISE_RUN_CACHE": url]).status == 0)
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("ac").path))

        // --cache wins over PROMISE_RUN_CACHE (here a store that is down).
        let restored = try await run(third, ["--cache", url, "--cache-read-only"], environment: ["PROMISE_RUN_CACHE": "http://127.0.0.1:1/down"])
        #expect(restored.step("build")?["from"] as? String == "cache")
        #expect(!restored.said.contains("warning"), "\(restored.said)")
        #expect(runs(third) == 0)
        #expect(third.read("out/upper.txt") == "HELLO CACHE\n")
    }

    @Test(
        "the URL's user info is sent as Basic authentication and never shown; wrong credentials are a warning and the step runs",
        .enabled(if: TestServers.nginxShouldRun, TestServers.nginxSkipReason))
    func basicAuthentication() async throws {
        let dav = try await TestServers.required(TestServers.nginxWebDAV())
        let address = dav.url.replacingOccurrences(of: "http://", with: "")
        let path = "/private/\(UUID().uuidString)"
        let spaces = try checkouts(3)
        let (first, second, third) = (spaces[0], spaces[1], spaces[2])
        defer {
            remove(spaces)
        }

        let stored = try await run(first, ["--cache", "http://ci:dav-pa55-word@\(address)\(path)"], reports: true)
        #expect(stored.status == 0, "\(stored.said)")
        #expect(!stored.said.contains("warning"), "\(stored.said)")
        #expect(!everythingShown(stored, first).contains("dav-pa55-word"))

        let restored = try await run(second, ["--cache", "http://ci:dav-pa55-word@\(address)\(path)"], reports: true)
        #expect(restored.step("build")?["from"] as? String == "cache", "\(restored.stdout)\(restored.said)")
        #expect(!everythingShown(restored, second).contains("dav-pa55-word"))
        // Every report says where the result came from.
        #expect(second.read("report.xml")?.contains("restored from the shared cache") == true)
        #expect(second.read("report.md")?.contains("restored from cache") == true)
        #expect(second.read("report.html")?.contains("\"fr\":\"cache\"") == true)

        let refused = try await run(third, ["--cache", "http://ci:wrong-pa55@\(address)\(path)"], reports: true)
        #expect(refused.status == 0)
        #expect(refused.step("build")?["status"] as? String == "succeeded")
        #expect(refused.said.contains("status 401"), "\(refused.said)")
        #expect(!everythingShown(refused, third).contains("wrong-pa55"))
    }

    @Test("PROMISE_RUN_CACHE_TOKEN is sent as a Bearer token and never shown; without it the store's 401 is a warning")
    func bearerToken() async throws {
        let store = try await TestServers.cacheStore()
        let url = "\(store.url)/token/\(UUID().uuidString)"
        let spaces = try checkouts(3)
        let (first, second, third) = (spaces[0], spaces[1], spaces[2])
        defer {
            remove(spaces)
        }
        let token = ["PROMISE_RUN_CACHE_TOKEN": "sekret-token-42"]

        let stored = try await run(first, ["--cache", url], environment: token, reports: true)
        #expect(stored.status == 0)
        #expect(!stored.said.contains("warning"), "\(stored.said)")
        let restored = try await run(second, [], environment: token.merging(["PROMISE_RUN_CACHE": url]) { $1 }, reports: true)
        #expect(restored.step("build")?["from"] as? String == "cache", "\(restored.stdout)\(restored.said)")
        for (run, space) in [(stored, first), (restored, second)] {
            #expect(!everythingShown(run, space).contains("sekret-token-42"))
        }
        let log = try String(contentsOf: store.log, encoding: .utf8)
        #expect(log.contains("PUT /token/\(url.split(separator: "/").last!)/ac/"))
        #expect(
            log.split(separator: "\n").filter { $0.contains(url.split(separator: "/").last!) }
                .allSatisfy { $0.hasSuffix("Bearer sekret-token-42") })

        let without = try await run(third, ["--cache", url])
        #expect(without.status == 0)
        #expect(without.step("build")?["status"] as? String == "succeeded")
        #expect(without.said.contains("status 401 (credentials missing or wrong"), "\(without.said)")
    }

    @Test("a store that never answers costs one timeout and one warning per run, not one per step")
    func hangingStore() async throws {
        let store = try await TestServers.cacheStore()
        let name = UUID().uuidString
        let space = try checkout(Self.twoSteps)
        defer { space.remove() }
        let result = try await run(space, ["--cache", "\(store.url)/hang/\(name)", "--cache-timeout", "1s"])
        #expect(result.status == 0, "\(result.stdout)\(result.said)")
        #expect(runs(space) == 2)
        #expect(result.said.components(separatedBy: "not used for the rest of this run").count == 2, "\(result.said)")
        let log = try String(contentsOf: store.log, encoding: .utf8)
        #expect(log.split(separator: "\n").filter { $0.contains(name) }.count == 1, "\(log)")
    }

    @Test("an unreachable store is one warning; the run succeeds")
    func unreachableStore() async throws {
        let space = try checkout(Self.twoSteps)
        defer { space.remove() }
        let result = try await run(space, ["--cache", "http://127.0.0.1:\(freeLoopbackPort())/cache"])
        #expect(result.status == 0)
        #expect(runs(space) == 2)
        #expect(result.said.components(separatedBy: "warning").count == 2, "\(result.said)")
    }

    @Test("a store that refuses writes is one warning; the steps run and nothing is stored")
    func refusingStore() async throws {
        let store = try await TestServers.cacheStore()
        let space = try checkout(Self.twoSteps)
        defer { space.remove() }
        let result = try await run(space, ["--cache", "\(store.url)/refuse/\(UUID().uuidString)"])
        #expect(result.status == 0)
        #expect(runs(space) == 2)
        #expect(result.said.contains("status 403"), "\(result.said)")
        #expect(result.said.components(separatedBy: "nothing more is stored in it this run").count == 2, "\(result.said)")
    }

    @Test("a restored file whose SHA-256 does not match is refused: nothing half-restored, the step runs and stores its entry again")
    func corruptObject() async throws {
        let store = try await TestServers.cacheStore()
        let name = UUID().uuidString
        let url = "\(store.url)/corrupt/\(name)"
        let (second, result) = try await storedThenRun(url)
        defer { second.remove() }
        #expect(result.status == 0)
        #expect(result.said.contains("do not match their SHA-256; refused"), "\(result.said)")
        #expect(result.step("build")?["status"] as? String == "succeeded")
        #expect(runs(second) == 1)
        #expect(second.read("out/upper.txt") == "HELLO CACHE\n")
        #expect(try leftovers(second).isEmpty)
        let log = try String(contentsOf: store.log, encoding: .utf8)
        #expect(log.split(separator: "\n").filter { $0.hasPrefix("PUT /corrupt/\(name)/ac/") }.count == 2, "\(log)")
    }

    @Test("the cache asks its store for the bytes as stored (Accept-Encoding: identity): a store that would send a gzip bomb sends the object")
    func identityFromTheStore() async throws {
        let store = try await TestServers.cacheStore()
        let url = "\(store.url)/bomb/\(UUID().uuidString)"
        let (second, result) = try await storedThenRun(url)
        defer { second.remove() }
        #expect(result.status == 0, "\(result.stdout)\(result.said)")
        #expect(!result.said.contains("warning"), "\(result.said)")
        #expect(result.step("build")?["from"] as? String == "cache", "\(result.stdout)\(result.said)")
        #expect(runs(second) == 0)
        #expect(second.read("out/upper.txt") == "HELLO CACHE\n")
    }

    @Test("an HTTP store that sends an object without end is stopped at the size its entry gives, long before the cache timeout")
    func endlessObject() async throws {
        let store = try await TestServers.cacheStore()
        let url = "\(store.url)/endless/\(UUID().uuidString)"
        let spaces = try checkouts(2)
        let (first, second) = (spaces[0], spaces[1])
        defer {
            remove(spaces)
        }
        #expect(try await run(first, ["--cache", url]).status == 0)
        // Stopped by the size, not by the 60 s timeout (which would say so).
        let result = try await run(second, ["--cache", url, "--cache-timeout", "60s"])
        #expect(result.status == 0, "\(result.said)")
        #expect(result.said.contains("bytes its entry says; refused"), "\(result.said)")
        #expect(runs(second) == 1)
        #expect(second.read("out/upper.txt") == "HELLO CACHE\n")
        #expect(try leftovers(second).isEmpty)
    }

    @Test("an entry that names a file outside the step's folder is refused as corrupt")
    func entryOutsideTheFolder() async throws {
        let store = try await TestServers.cacheStore()
        let url = "\(store.url)/badentry/\(UUID().uuidString)"
        let (second, result) = try await storedThenRun(url)
        defer { second.remove() }
        #expect(result.status == 0)
        #expect(result.said.contains("outside the step's folder"), "\(result.said)")
        #expect(runs(second) == 1)
    }

    @Test("a cache URL that cannot be used is a usage error (exit 2), from --cache or PROMISE_RUN_CACHE")
    func badLocation() async throws {
        let space = try checkout()
        defer { space.remove() }
        let option = try await Binary.run(["--cache", "s3://bucket/cache", "build.workflow"], in: space.folder)
        #expect(option.status == 2)
        #expect(option.stderr.contains("'s3://' caches are not supported"), "\(option.stderr)")
        let variable = try await Binary.run(["build.workflow"], in: space.folder, environment: ["PROMISE_RUN_CACHE": "http://user:pw@/x"])
        #expect(variable.status == 2)
        #expect(variable.stderr.contains("PROMISE_RUN_CACHE"), "\(variable.stderr)")
        #expect(!variable.stderr.contains("pw"), "\(variable.stderr)")
        #expect(runs(space) == 0)
    }
}

extension WorkflowRun {
    /// Everything the run printed (warnings go to the console, with the steps).
    var said: String { stdout + stderr }
}
