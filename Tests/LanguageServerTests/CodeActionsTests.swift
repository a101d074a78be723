import Foundation
import LSPTestSupport
import Testing
import WorkflowModel

@testable import LanguageServer

/// Quick fixes, document links, workspace symbols, semantic
/// tokens, in process.
@Suite("Language server: quick fixes, links, workspace symbols, semantic tokens")
struct CodeActionsTests {
    @Test("a did-you-mean is a quick fix changing the word only; an undeclared variable offers var NAME = \"\" after the workflow line")
    func quickFixes() throws {
        let client = try TestLanguageClient()
        try client.start()
        let text = "workflow \"w\"\nvar name = \"x\"\nbuild: sh \"echo {{nme}} {{other}}\" {\n  expect exti 0\n}\n"
        try client.open("a.workflow", text)
        let uri = client.uri("a.workflow")
        let message = try client.wait("diagnostics") {
            $0["method"] as? String == "textDocument/publishDiagnostics" && ($0["params"] as? [String: Any])?["uri"] as? String == uri
        }
        let diagnostics = (message["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.count == 3, "\(diagnostics)")
        let actions =
            try client.request(
                "textDocument/codeAction",
                [
                    "textDocument": ["uri": uri], "range": ["start": ["line": 0, "character": 0], "end": ["line": 4, "character": 0]],
                    "context": ["diagnostics": diagnostics],
                ]) as? [[String: Any]] ?? []
        func edit(_ title: String) -> (String, String)? {
            guard let action = actions.first(where: { $0["title"] as? String == title }),
                let edit = (((action["edit"] as? [String: Any])?["changes"] as? [String: Any])?[uri] as? [[String: Any]])?.first,
                let range = edit["range"] as? [String: Any], let start = range["start"] as? [String: Any], let end = range["end"] as? [String: Any]
            else { return nil }
            return ("\(start["line"]!):\(start["character"]!)-\(end["line"]!):\(end["character"]!)", edit["newText"] as? String ?? "")
        }
        let titles = actions.compactMap { $0["title"] as? String }
        #expect(edit("Change 'exti' to 'exit'").map { $0 == ("3:9-3:13", "exit") } == true, "\(titles)")
        #expect(edit("Change 'nme' to 'name'").map { $0 == ("2:18-2:21", "name") } == true, "\(titles)")
        #expect(edit("Declare 'var other = \"\"'").map { $0 == ("1:0-1:0", "var other = \"\"\n") } == true, "\(titles)")
        #expect(actions.allSatisfy { $0["kind"] as? String == "quickfix" })
        #expect(try client.stop() == 0)
    }

    @Test("an include path is a link to its file; workspace symbols list the labels and variables of every workflow under the folders")
    func linksAndSymbols() throws {
        let client = try TestLanguageClient()
        try FileManager.default.createDirectory(at: client.folder.appendingPathComponent("lib"), withIntermediateDirectories: true)
        try client.write("lib/build.workflow", "var flags = \"-O2\"\ncompile: sh \"cc {{flags}}\"\n")
        try client.write("other.workflow", "deploy: sh \"true\"\n")
        try client.start()
        try client.open("main.workflow", "include \"lib/build.workflow\"\ntest: sh \"true\"\n")
        let links = try client.request("textDocument/documentLink", ["textDocument": ["uri": client.uri("main.workflow")]]) as? [[String: Any]] ?? []
        #expect(links.first?["target"] as? String == client.uri("lib/build.workflow"), "\(links)")
        let all = try client.request("workspace/symbol", ["query": ""]) as? [[String: Any]] ?? []
        let names = Set(all.compactMap { $0["name"] as? String })
        #expect(names == ["flags", "compile", "deploy", "test"], "\(names)")
        let compile = try client.request("workspace/symbol", ["query": "COMP"]) as? [[String: Any]] ?? []
        #expect(compile.count == 1 && (compile.first?["location"] as? [String: Any])?["uri"] as? String == client.uri("lib/build.workflow"))
        #expect(try client.stop() == 0)
    }

    @Test("semantic tokens: the legend is the table's kinds of word; comments, keywords, labels, attributes, subjects, strings, numbers")
    func semanticTokens() throws {
        let client = try TestLanguageClient()
        let initialize = try client.request("initialize", ["processId": NSNull(), "capabilities": [String: Any]()]) as? [String: Any]
        try client.notify("initialized")
        let provider = (initialize?["capabilities"] as? [String: Any])?["semanticTokensProvider"] as? [String: Any]
        let types = (provider?["legend"] as? [String: Any])?["tokenTypes"] as? [String] ?? []
        #expect(types.contains("keyword") && types.contains("property") && types.contains("comment"), "\(types)")
        try client.open("a.workflow", "# note\nvar who = \"x\"\nbuild: sh \"make\" {\n  timeout 5m\n  expect exit 0\n}\n")
        let result = try client.request("textDocument/semanticTokens/full", ["textDocument": ["uri": client.uri("a.workflow")]]) as? [String: Any]
        let data = result?["data"] as? [Int] ?? []
        var decoded: [String] = []
        var line = 0
        var character = 0
        for index in stride(from: 0, to: data.count - 4, by: 5) {
            line += data[index]
            character = data[index] == 0 ? character + data[index + 1] : data[index + 1]
            decoded.append("\(line):\(character)+\(data[index + 2]) \(types[data[index + 3]])")
        }
        #expect(
            decoded == [
                "0:0+6 comment", "1:0+3 keyword", "1:4+3 variable", "1:8+1 operator", "1:10+3 string",
                "2:0+5 namespace", "2:7+2 keyword", "2:10+6 string", "3:2+7 property", "3:10+2 number",
                "4:2+6 property", "4:9+4 enumMember", "4:14+1 number",
            ], "\(decoded)")
        #expect(try client.stop() == 0)
    }

    @Test("the code lens: each labelled step of the file the verdicts name gets its verdict on its line; steps of included files do not")
    func codeLens() throws {
        let client = try TestLanguageClient(
            store: LocalStore(verdicts: { workflow, _ in
                workflow.allNodes.map { ($0.id, "verdict of \($0.label ?? "-")") }
            }))
        try client.write("lib.workflow", "libstep: sh \"true\"\n")
        try client.start()
        try client.open("a.workflow", "include \"lib.workflow\"\nsh \"true\"\nbuild: sh \"make\"\n")
        let lenses = try client.request("textDocument/codeLens", ["textDocument": ["uri": client.uri("a.workflow")]]) as? [[String: Any]] ?? []
        let shown = lenses.map { lens -> String in
            let line = ((lens["range"] as? [String: Any])?["start"] as? [String: Any])?["line"] as? Int ?? -1
            return "\(line): \((lens["command"] as? [String: Any])?["title"] as? String ?? "")"
        }
        #expect(shown == ["2: verdict of build"], "\(shown)")
        #expect(try client.stop() == 0)
    }
}
