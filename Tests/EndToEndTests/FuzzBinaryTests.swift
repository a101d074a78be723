import Foundation
import LSPTestSupport
import Testing

/// Mutated workflows and random JSON-RPC through the real binary, with a
/// fixed seed (a run is the same every time) and the repository's
/// workflows, the spec's and the corpus as seeds. Every call is bounded:
/// `check`, `fmt` and `graph` end with exit 0, 1 or 2, never a signal or a
/// hang; the language server answers every request with a result or an
/// error and writes nothing but frames.
@Suite("Fuzzing the binary")
struct FuzzBinaryTests {
    /// A fixed-seed generator (a 64-bit LCG's high bits).
    struct Random {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        mutating func pick<T>(_ items: [T]) -> T { items[next() % items.count] }
    }

    static func seeds() throws -> [[UInt8]] {
        let folders = ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"].map { Binary.packageRoot.appendingPathComponent($0) }
        return try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".workflow") }.sorted()
                .map { [UInt8](try Data(contentsOf: folder.appendingPathComponent($0))) }
        }
    }

    /// A few insertions, deletions and stray bytes (line breaks of every
    /// kind, bytes that are not UTF-8, the language's brackets and words).
    static func mutate(_ seed: [UInt8], _ random: inout Random) -> [UInt8] {
        let fragments = [
            "{", "}", "\"", "\"\"\"\n", "{{", "}}", "\n", "\r", "\r\n", "\\\r\n", "\\\n", "parallel {", "needs x",
            "catch {", "'", "\\", "é", "\u{FEFF}", "\ninclude \"/dev/zero\"\n", "\ninclude \".\"\n",
        ]
        var bytes = seed
        for _ in 0..<(1 + random.next() % 4) {
            let position = bytes.isEmpty ? 0 : random.next() % bytes.count
            switch random.next() % 4 {
            case 0 where !bytes.isEmpty: bytes.remove(at: position)
            case 1: bytes.insert(contentsOf: Array(random.pick(fragments).utf8), at: position)
            case 2: bytes.insert(random.pick([0xFF, 0xC3, 0x80, 0xED, 0x00, 0x0D]), at: position)
            default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
            }
        }
        return bytes
    }

    @Test("mutated workflows through check, fmt and graph end with exit 0, 1 or 2, in time, with a diagnostic for 2")
    func mutatedWorkflowsEndWell() async throws {
        let seeds = try Self.seeds()
        #expect(seeds.count > 40)
        let space = try Workspace()
        defer { space.remove() }
        var random = Random(state: 1234)
        let mutated = (0..<240).map { Self.mutate(seeds[$0 % seeds.count], &random) }
        // Four rounds at a time, each in a file of its own: 720 short runs
        // one after another were the suite's last 10 s, each waiting its
        // turn for a process slot.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in stride(from: worker, to: mutated.count, by: 4) {
                        try await Self.check(mutated[round], round: round, in: space)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// `check`, `fmt --check` and `graph` of one mutated workflow end well.
    static func check(_ bytes: [UInt8], round: Int, in space: Workspace) async throws {
        let file = "fuzz-\(round).workflow"
        try Data(bytes).write(to: URL(fileURLWithPath: space.path(file)))
        for command in [["check"], ["fmt", "--check"], ["graph"]] {
            let run = try await Binary.runBounded(command + ["--color", "never", file], seconds: 10, in: space.folder)
            #expect(
                run.endedWell, "round \(round), \(command[0]): exit \(run.outcome.status), \(run.seconds) s\n\(run.outcome.stderr.prefix(400))")
            if run.outcome.status == 2 {
                #expect(run.outcome.stderr.contains("error: "), "round \(round), \(command[0]): no diagnostic")
            }
        }
    }

    /// A random JSON value of the shapes LSP's parameters have, and not.
    static func value(_ random: inout Random, depth: Int = 0, uris: [String]) -> Any {
        let keys = [
            "textDocument", "uri", "position", "range", "start", "end", "line", "character", "text", "version",
            "contentChanges", "newName", "options", "context", "includeDeclaration",
        ]
        switch random.next() % (depth > 2 ? 4 : 7) {
        case 0: return random.pick([0, -1, 1, 2, 3, 7, 1 << 31, Int.max, -(1 << 40)])
        case 1: return random.pick(uris + ["", "file:///", "not a uri", "é\r\n\u{0}", "{{a.stdout}}"])
        case 2: return random.pick([true, false, NSNull()] as [Any])
        case 3: return random.pick([1.5, -0.0, 1e300])
        case 4: return (0..<(random.next() % 3)).map { _ in value(&random, depth: depth + 1, uris: uris) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<(1 + random.next() % 4) { object[random.pick(keys)] = value(&random, depth: depth + 1, uris: uris) }
            return object
        }
    }

    @Test("random JSON-RPC through lsp: every request is answered with a result or an error, nothing but frames is written")
    func randomMessagesToTheLanguageServer() async throws {
        let client = try LSPClient()
        _ = try client.start()
        var random = Random(state: 4321)
        let seeds = try Self.seeds()
        let uris = [client.uri("a.workflow"), client.uri("b.workflow")]
        let methods = [
            "textDocument/completion", "textDocument/hover", "textDocument/definition", "textDocument/references",
            "textDocument/prepareRename", "textDocument/rename", "textDocument/documentSymbol", "textDocument/formatting",
            "textDocument/foldingRange", "workspace/symbol", "no/such/method",
        ]
        for round in 0..<800 {
            let uri = random.pick(uris)
            switch random.next() % 5 {
            case 0:
                let text = String(decoding: Self.mutate(random.pick(seeds), &random), as: UTF8.self)
                try client.notify(
                    "textDocument/didOpen", ["textDocument": ["uri": uri, "languageId": "promise-run", "version": round, "text": text]])
            case 1:
                let position = { (random: inout Random) in lspPosition(random.next() % 40 - 2, random.next() % 90 - 2) }
                let change: [String: Any] = [
                    "range": ["start": position(&random), "end": position(&random)],
                    "text": random.pick(["", "\n", "\r", "\r\n", "{", "a: sh \"x\"\r", "é", "\"\"\"\n"]),
                ]
                try client.notify("textDocument/didChange", ["textDocument": ["uri": uri, "version": round], "contentChanges": [change]])
            case 2:
                // A frame whose body is not a request: answered with an error or ignored, never a stray byte.
                let body = Data((0..<(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                client.sendRaw(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
            default:
                var params = Self.value(&random, uris: uris) as? [String: Any] ?? [:]
                if random.next() % 3 != 0 {
                    params["textDocument"] = ["uri": uri]
                    params["position"] = lspPosition(random.next() % 30, random.next() % 60)
                }
                let method = random.pick(methods)
                let response = try client.request(method, params, timeout: 10)
                #expect((response["result"] != nil) != (response["error"] != nil), "round \(round), \(method): \(response)")
            }
        }
        // Still answering after all that.
        let symbols = try client.request("textDocument/documentSymbol", ["textDocument": ["uri": uris[0]]], timeout: 10)
        #expect(symbols["result"] != nil || symbols["error"] != nil)
        #expect(try client.stop() == 0)
        #expect(client.strayOutput.isEmpty, "\(client.strayOutput)")
    }
}
