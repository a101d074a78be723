import Foundation
import LSPTestSupport
import Testing

/// `promise-run lsp` driven by a protocol client over stdio:
/// the real binary, real files for includes.
/// See docs/language.md, 'Editors'.
@Suite("End to end: the language server")
struct LanguageServerTests {
    static let workflow = """
        workflow "demo"
        var base = "http://127.0.0.1:8080"
        build: sh "make all" {
          timeout 5m
          capture ver = stdout matches 'v([0-9]+)'
        }
        test: sh "echo {{build.ver}} {{base}}" {
          expect exit 0
        }
        parallel {
          lint: sh "true"
          unit: sh "true" {
            needs lint
          }
        }

        """

    private func items(_ response: [String: Any]) -> [String] {
        let result = response["result"] as? [String: Any]
        return (result?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    private func textDocument(_ client: LSPClient, _ name: String, _ line: Int, _ character: Int) -> [String: Any] {
        ["textDocument": ["uri": client.uri(name)], "position": lspPosition(line, character)]
    }

    private func range(_ value: Any?) -> String {
        guard let range = value as? [String: Any], let start = range["start"] as? [String: Any], let end = range["end"] as? [String: Any] else {
            return "?"
        }
        return "\(start["line"]!):\(start["character"]!)-\(end["line"]!):\(end["character"]!)"
    }

    @Test("diagnostics as check gives them, updated by incremental changes; completion, hover, definition, references, rename")
    func editingSession() async throws {
        let client = try LSPClient()
        let initialized = try client.start()
        let capabilities = (initialized["result"] as? [String: Any])?["capabilities"] as? [String: Any]
        #expect(capabilities?["positionEncoding"] as? String == "utf-16")
        #expect(capabilities?["hoverProvider"] as? Bool == true)

        // An error, with check's message and location.
        try client.open("a.workflow", Self.workflow.replacingOccurrences(of: "expect exit 0", with: "expect exti 0"))
        let first = try client.diagnostics(for: client.uri("a.workflow"))
        #expect(first.count == 1)
        #expect((first.first?["message"] as? String)?.contains("did you mean 'exit'?") == true, "\(first)")
        #expect(range(first.first?["range"]) == "7:9-7:13")
        #expect(first.first?["severity"] as? Int == 1)

        // An incremental change fixes it.
        try client.notify(
            "textDocument/didChange",
            [
                "textDocument": ["uri": client.uri("a.workflow"), "version": 2],
                "contentChanges": [["range": ["start": lspPosition(7, 9), "end": lspPosition(7, 13)], "text": "exit"]],
            ])
        #expect(try client.diagnostics(for: client.uri("a.workflow")).isEmpty)

        // Completion: the attributes of the step at the cursor.
        let attributes = items(try client.request("textDocument/completion", textDocument(client, "a.workflow", 3, 2)))
        #expect(attributes.contains("timeout") && attributes.contains("sources") && attributes.contains("env"), "\(attributes)")
        #expect(!attributes.contains("header"), "an http attribute offered for sh")
        // After {{: variables and labels; after label.: its fields and captures.
        let values = items(try client.request("textDocument/completion", textDocument(client, "a.workflow", 6, 17)))
        #expect(values.contains("base") && values.contains("build") && values.contains("env"), "\(values)")
        let fields = items(try client.request("textDocument/completion", textDocument(client, "a.workflow", 6, 23)))
        #expect(fields.contains("stdout") && fields.contains("exit") && fields.contains("ver"), "\(fields)")
        // After needs: labels. At the top level: statements.
        let needs = items(try client.request("textDocument/completion", textDocument(client, "a.workflow", 12, 10)))
        #expect(needs.contains("lint") && needs.contains("build"), "\(needs)")
        let statements = items(try client.request("textDocument/completion", textDocument(client, "a.workflow", 15, 0)))
        #expect(statements.contains("sh") && statements.contains("parallel") && statements.contains("var"), "\(statements)")

        // Hover: a keyword's doc; a label's kind, line and fields.
        let keyword = try client.request("textDocument/hover", textDocument(client, "a.workflow", 3, 4))
        #expect(
            ((keyword["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String
                == "**timeout**: fails with kind timeout after the duration")
        let label = try client.request("textDocument/hover", textDocument(client, "a.workflow", 6, 18))
        let labelText = ((label["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(labelText.contains("a `sh` step, line 3") && labelText.contains("`ver`"), "\(labelText)")

        let field = try client.request("textDocument/hover", textDocument(client, "a.workflow", 6, 24))
        #expect(((field["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String == "**build.ver**: a capture of `build`")

        // Definition and references of a label.
        let definition = try client.request("textDocument/definition", textDocument(client, "a.workflow", 6, 18))
        let places = definition["result"] as? [[String: Any]] ?? []
        #expect(places.map { range($0["range"]) } == ["2:0-2:5"])
        let references = try client.request(
            "textDocument/references",
            textDocument(client, "a.workflow", 2, 1).merging(["context": ["includeDeclaration": true]]) { $1 })
        #expect((references["result"] as? [[String: Any]] ?? []).map { range($0["range"]) } == ["2:0-2:5", "6:17-6:22"])
        let lint = try client.request(
            "textDocument/references",
            textDocument(client, "a.workflow", 12, 11).merging(["context": ["includeDeclaration": false]]) { $1 })
        #expect((lint["result"] as? [[String: Any]] ?? []).map { range($0["range"]) } == ["12:10-12:14"])

        // Rename a variable everywhere; a name that is not one is refused.
        let rename = try client.request(
            "textDocument/rename",
            textDocument(client, "a.workflow", 1, 5).merging(["newName": "root"]) { $1 })
        let changes = ((rename["result"] as? [String: Any])?["changes"] as? [String: Any])?[client.uri("a.workflow")] as? [[String: Any]]
        #expect(changes?.map { range($0["range"]) } == ["1:4-1:8", "6:31-6:35"])
        #expect(changes?.allSatisfy { $0["newText"] as? String == "root" } == true)
        let refused = try client.request("textDocument/rename", textDocument(client, "a.workflow", 1, 5).merging(["newName": "9 lives"]) { $1 })
        #expect((refused["error"] as? [String: Any])?["code"] as? Int == -32803)

        // The outline and the folds.
        let symbols = try client.request("textDocument/documentSymbol", ["textDocument": ["uri": client.uri("a.workflow")]])
        let outline = (symbols["result"] as? [[String: Any]] ?? [])
        #expect(outline.compactMap { $0["name"] as? String } == ["base", "build", "test", "parallel"])
        let lanes = (outline.last?["children"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(lanes == ["lint", "unit"])
        let folds = try client.request("textDocument/foldingRange", ["textDocument": ["uri": client.uri("a.workflow")]])
        #expect((folds["result"] as? [[String: Any]] ?? []).contains { $0["startLine"] as? Int == 2 && $0["endLine"] as? Int == 4 })

        #expect(try client.stop() == 0)
        #expect(client.strayOutput.isEmpty, "\(client.strayOutput)")
    }

    @Test("check's look at the files too: a sources pattern that matches nothing is a warning")
    func sourcesWarnings() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open("w.workflow", "workflow \"w\"\nbuild: sh \"make\" {\n  sources \"scr/**/*.c\"\n}\n")
        let diagnostics = try client.diagnostics(for: client.uri("w.workflow"))
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?["severity"] as? Int == 2)
        #expect((diagnostics.first?["message"] as? String)?.contains("matches no file") == true)
        let warned = range(diagnostics.first?["range"])
        #expect(warned.hasPrefix("2:10-"), "\(warned)")
        #expect(try client.stop() == 0)
    }

    @Test("formatting gives fmt's layout, and nothing for a file that does not parse")
    func formatting() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open("f.workflow", "workflow \"f\"\nbuild:   sh   \"make\"  {  timeout 5m }\n")
        _ = try client.diagnostics(for: client.uri("f.workflow"))
        let formatted = try client.request(
            "textDocument/formatting",
            [
                "textDocument": ["uri": client.uri("f.workflow")],
                "options": ["tabSize": 2, "insertSpaces": true],
            ])
        let edits = formatted["result"] as? [[String: Any]] ?? []
        #expect(edits.count == 1)
        #expect(edits.first?["newText"] as? String == "workflow \"f\"\nbuild: sh \"make\" {\n  timeout 5m\n}\n")
        try client.open("broken.workflow", "workflow \"f\"\nbuild: sh {\n")
        _ = try client.diagnostics(for: client.uri("broken.workflow"))
        let none = try client.request(
            "textDocument/formatting",
            [
                "textDocument": ["uri": client.uri("broken.workflow")],
                "options": ["tabSize": 2, "insertSpaces": true],
            ])
        #expect((none["result"] as? [Any])?.isEmpty == true)
        #expect(try client.stop() == 0)
    }

    @Test("an error in an included file is published on that file, with the include line as related information")
    func includedFiles() async throws {
        let client = try LSPClient()
        try Data("lib: sh \"true\" {\n  timout 5s\n}\n".utf8).write(to: client.folder.appendingPathComponent("lib.workflow"))
        _ = try client.start()
        try client.open("main.workflow", "workflow \"main\"\ninclude \"lib.workflow\"\nafter: sh \"echo {{lib.exit}}\"\n")
        let included = try client.diagnostics(for: client.uri("lib.workflow"))
        #expect(included.count == 1)
        #expect(range(included.first?["range"]) == "1:2-1:8", "\(included)")
        let related = included.first?["relatedInformation"] as? [[String: Any]] ?? []
        let location = related.last?["location"] as? [String: Any]
        #expect(location?["uri"] as? String == client.uri("main.workflow"))
        let includeRange = range(location?["range"])
        #expect(includeRange.hasPrefix("1:0-"), "\(includeRange)")
        #expect(try client.diagnostics(for: client.uri("main.workflow")).isEmpty)
        // Go to definition on the include line opens the file; on a label
        // from it, its place there.
        let include = try client.request("textDocument/definition", textDocument(client, "main.workflow", 1, 12))
        #expect((include["result"] as? [[String: Any]])?.first?["uri"] as? String == client.uri("lib.workflow"))
        let label = try client.request("textDocument/definition", textDocument(client, "main.workflow", 2, 18))
        let place = (label["result"] as? [[String: Any]])?.first
        #expect(place?["uri"] as? String == client.uri("lib.workflow"))
        #expect(range(place?["range"]) == "0:0-0:3")
        #expect(try client.stop() == 0)
    }

    @Test("a threshold's 'latency of LABEL' is a use of the label: references and rename reach it; completion offers thresholds")
    func thresholds() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open(
            "load.workflow",
            """
            workflow "load"
            repeat 10 parallel limit 2 rate 20/s {
              expect latency of api p99 < 250ms
              api: http GET "http://127.0.0.1:9/items/{{repeat.index}}"
            }
            """)
        #expect(try client.diagnostics(for: client.uri("load.workflow")).isEmpty)
        let rename = try client.request(
            "textDocument/rename",
            textDocument(client, "load.workflow", 3, 3).merging(["newName": "items"]) { $1 })
        let changes = ((rename["result"] as? [String: Any])?["changes"] as? [String: Any])?[client.uri("load.workflow")] as? [[String: Any]]
        #expect(changes?.map { range($0["range"]) }.sorted() == ["2:20-2:23", "3:2-3:5"], "\(rename)")
        try client.open("more.workflow", "repeat 10 {\n  expect \n}\n")
        let completion = try client.request("textDocument/completion", textDocument(client, "more.workflow", 1, 9))
        let labels = ((completion["result"] as? [String: Any])?["items"] as? [[String: Any]] ?? (completion["result"] as? [[String: Any]] ?? []))
            .compactMap { $0["label"] as? String }
        #expect(labels.contains("latency") && labels.contains("failures") && labels.contains("rate"), "\(labels)")
        #expect(try client.stop() == 0)
    }

    @Test("positions in UTF-16 by default, in UTF-8 when the client offers it")
    func positionEncodings() async throws {
        let folder = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "workflow \"é😀\"\nlog \"😀 {{bogus}}\"\n"
        for (offered, expected) in [(nil as [String]?, "1:8-1:17"), (["utf-8", "utf-16"], "1:10-1:19")] {
            let client = try LSPClient(folder: folder)
            let response = try client.start(encodings: offered)
            let capabilities = (response["result"] as? [String: Any])?["capabilities"] as? [String: Any]
            #expect(capabilities?["positionEncoding"] as? String == (offered == nil ? "utf-16" : "utf-8"))
            try client.open("u.workflow", text)
            let diagnostics = try client.diagnostics(for: client.uri("u.workflow"))
            #expect(diagnostics.map { range($0["range"]) } == [expected], "\(diagnostics)")
            #expect(try client.stop() == 0)
        }
    }

    @Test("malformed input, unknown methods, requests before initialize, bad UTF-8: errors answered, the server keeps serving")
    func robustness() async throws {
        let client = try LSPClient()
        let early = try client.request("textDocument/hover", ["textDocument": ["uri": "file:///x"], "position": lspPosition(0, 0)])
        #expect((early["error"] as? [String: Any])?["code"] as? Int == -32002)
        _ = try client.start()
        let unknown = try client.request("workspace/nothingLikeThis")
        #expect((unknown["error"] as? [String: Any])?["code"] as? Int == -32601)
        // Not JSON; a header without a length; JSON that is no message.
        client.sendRaw(Data("Content-Length: 9\r\n\r\n{garbage}".utf8))
        _ = try client.wait("a parse error") { ($0["error"] as? [String: Any])?["code"] as? Int == -32700 }
        client.sendRaw(Data("X-Nothing: 1\r\n\r\n".utf8))
        _ = try client.wait("a header error") {
            ($0["error"] as? [String: Any])?["message"] as? String == "malformed header: a header part without Content-Length"
        }
        client.sendRaw(Data("Content-Length: 2\r\n\r\n[]".utf8))
        _ = try client.wait("an invalid request") { ($0["error"] as? [String: Any])?["code"] as? Int == -32600 }
        // Text that is not UTF-8: a diagnostic, not a crash.
        let body =
            Data(
                #"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"\#(client.uri("bad.workflow"))","languageId":"promise-run","version":1,"text":"log \"caf"#
                    .utf8)
            + Data([0xE9, 0x20, 0xFF]) + Data(#"\"\n"}}}"#.utf8)
        client.sendRaw(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
        let bad = try client.diagnostics(for: client.uri("bad.workflow"))
        #expect(bad.contains { ($0["message"] as? String)?.contains("not valid UTF-8") == true }, "\(bad)")
        // Still serving.
        try client.open("ok.workflow", "log \"fine\"\n")
        #expect(try client.diagnostics(for: client.uri("ok.workflow")).isEmpty)
        #expect(client.strayOutput.isEmpty, "\(client.strayOutput)")
        // exit without shutdown: code 1, as LSP says.
        #expect(try client.stop(shutdown: false) == 1)
    }

    @Test("started as vscode-languageclient starts it (lsp --stdio); a completion replaces the whole word at the cursor, hyphens included")
    func stdioAndReplaceRanges() async throws {
        let client = try LSPClient(arguments: ["lsp", "--stdio"])
        _ = try client.start()
        try client.open("a.workflow", "build: sh \"make\" {\n  allow-\n}\nt: sh \"echo {{build.std}}\"\n")
        let response = try client.request("textDocument/completion", textDocument(client, "a.workflow", 1, 8))
        let all = (response["result"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        let item = try #require(all.first { $0["label"] as? String == "allow-failure" }, "\(all)")
        let edit = item["textEdit"] as? [String: Any]
        #expect(range(edit?["range"]) == "1:2-1:8", "\(item)")
        #expect(edit?["newText"] as? String == "allow-failure")
        // In {{ }}: the field after the dot, not the label before it.
        let fields =
            (try client.request("textDocument/completion", textDocument(client, "a.workflow", 3, 23))["result"] as? [String: Any])?["items"]
            as? [[String: Any]] ?? []
        let status = try #require(fields.first { $0["label"] as? String == "stdout" }, "\(fields)")
        #expect(range((status["textEdit"] as? [String: Any])?["range"]) == "3:20-3:23", "\(status)")
        #expect(try client.stop() == 0)
    }

    @Test("a frame whose Content-Length is too long or too short (characters, not bytes) costs that message only")
    func wrongLengthResynchronises() async throws {
        let client = try LSPClient()
        _ = try client.start()
        try client.open("a.workflow", "log \"fine\"\n")
        for (number, wrong) in [40, -3].enumerated() {
            let body = Data(
                #"{"jsonrpc":"2.0","id":"w\#(number)","method":"textDocument/hover","params":{"textDocument":{"uri":"\#(client.uri("a.workflow"))"},"position":{"line":0,"character":1}}}"#
                    .utf8)
            client.sendRaw(Data("Content-Length: \(body.count + wrong)\r\n\r\n".utf8) + body)
            // The requests after it are answered.
            for _ in 0..<3 {
                let hover = try client.request("textDocument/hover", textDocument(client, "a.workflow", 0, 1), timeout: 10)
                #expect(hover["result"] != nil, "\(hover)")
            }
        }
        #expect(try client.stop() == 0)
    }

    @Test(
        "the code lens says what --dry-run says of a step with sources, and after a run each labelled step's last result (the store's last-results.json)"
    )
    func codeLensVerdicts() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = "build: sh \"cp in.txt out.txt\" {\n  sources \"in.txt\"\n  generates \"out.txt\"\n}\ncheck: sh \"exit 3\"\n"
        try space.write("ci.workflow", text)
        try space.write("in.txt", "a\n")
        func lens() throws -> [String] {
            let client = try LSPClient(folder: space.folder)
            _ = try client.start()
            try client.open("ci.workflow", text)
            let response = try client.request("textDocument/codeLens", ["textDocument": ["uri": client.uri("ci.workflow")]])
            _ = try client.stop()
            return (response["result"] as? [[String: Any]] ?? []).compactMap { lens in
                let line = ((lens["range"] as? [String: Any])?["start"] as? [String: Any])?["line"] as? Int ?? -1
                return ((lens["command"] as? [String: Any])?["title"] as? String).map { "\(line): \($0)" }
            }
        }
        #expect(try lens() == ["0: would run: no successful run is stored"])
        #expect(try await Binary.run(["ci.workflow"], in: space.folder).status == 1)
        let after = try lens()
        #expect(after.count == 3, "\(after)")
        #expect(after.first?.hasPrefix("0: ✓ ") == true && endsWithRecentTime(after.first), "\(after)")
        #expect(after.dropFirst().first?.hasPrefix("0: up-to-date") == true, "\(after)")
        #expect(after.last?.hasPrefix("4: ✗ failed after ") == true && endsWithRecentTime(after.last), "\(after)")
        let stored = try #require(space.read(".promise-run/last-results.json"))
        #expect(stored.contains("\"format\": \"promise-run-last-results/1\"") && stored.contains("\"check\""), "\(stored)")
        // A workflow read from standard input has no file for an editor: nothing is kept.
        let piped = try Workspace()
        defer { piped.remove() }
        #expect(try await Binary.run(["-"], stdin: "build: sh \"true\"\n", in: piped.folder).status == 0)
        #expect(!FileManager.default.fileExists(atPath: piped.path(".promise-run")))
    }

    @Test("a client that can refresh its lenses is asked to when a run writes the store")
    func codeLensRefresh() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = "build: sh \"true\"\n"
        try space.write("ci.workflow", text)
        let client = try LSPClient(folder: space.folder)
        _ = try client.start(capabilities: ["workspace": ["codeLens": ["refreshSupport": true]]])
        try client.open("ci.workflow", text)
        let before = try client.request("textDocument/codeLens", ["textDocument": ["uri": client.uri("ci.workflow")]])
        #expect((before["result"] as? [Any])?.isEmpty == true, "\(before)")
        #expect(try await Binary.run(["ci.workflow"], in: space.folder).status == 0)
        try client.served("workspace/codeLens/refresh")
        let after = try client.request("textDocument/codeLens", ["textDocument": ["uri": client.uri("ci.workflow")]])
        let titles = (after["result"] as? [[String: Any]] ?? []).compactMap { ($0["command"] as? [String: Any])?["title"] as? String }
        #expect(titles.count == 1 && titles.first?.hasPrefix("✓ ") == true, "\(titles)")
        #expect(try client.stop() == 0)
    }
}
