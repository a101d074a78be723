import Foundation
import LSPTestSupport
import Testing

@testable import LanguageServer

/// In process (docs/language.md, 'Editors'): a file included by another is
/// analysed in its includer's context; the editor's buffers win over the
/// disk; definition, references and rename span the include tree from either
/// side.
@Suite("Language server: multi-file projects")
struct IncludeContextTests {
    static let main = "var project = \"demo\"\ninclude \"lib.workflow\"\nlast: sh \"echo {{built}} {{build.exit}}\"\n"
    static let lib = "var built = \"yes\"\nbuild: sh \"make {{project}}\"\n"

    @Test("a library using its includer's var has no false error, whether the includer is open or only on disk under the workspace")
    func libraryInContext() throws {
        let client = try TestLanguageClient()
        try client.write("main.workflow", Self.main)
        try client.write("lib.workflow", Self.lib)
        try client.start()
        try client.open("lib.workflow", Self.lib)
        #expect(try client.diagnostics("lib.workflow").isEmpty)
        // Hover and definition there see the includer's names.
        let definition = try client.request("textDocument/definition", client.at("lib.workflow", 1, 20)) as? [[String: Any]]
        #expect(definition?.first?["uri"] as? String == client.uri("main.workflow"), "\(definition ?? [])")
        try client.open("main.workflow", Self.main)
        #expect(try client.diagnostics("main.workflow").isEmpty)
        // A file included by none is analysed alone: the same text, not included, is an error.
        try client.open("alone.workflow", Self.lib)
        let alone = try client.diagnostics("alone.workflow")
        #expect(alone.contains { $0.contains("project") }, "\(alone)")
        #expect(try client.stop() == 0)
    }

    @Test(
        "an unsaved fix in the library is what the includer sees; an edit to the library republishes the includer; closing an includer keeps the library's errors"
    )
    func buffersWinAndRepublish() throws {
        let client = try TestLanguageClient()
        // On disk, the library is broken: main's use of {{built}} fails there.
        try client.write("main.workflow", Self.main)
        try client.write("lib.workflow", "var bulit = \"yes\"\nbuild: sh \"make {{project}}\"\n")
        try client.start()
        try client.open("main.workflow", Self.main)
        #expect(try client.diagnostics("main.workflow", until: { !$0.isEmpty }).contains { $0.contains("built") })
        // The fix, unsaved: main is clean.
        try client.open("lib.workflow", Self.lib)
        #expect(try client.diagnostics("main.workflow", until: { $0.isEmpty }).isEmpty)
        // Break it again in the editor: main's diagnostics come back without main being touched.
        try client.change("lib.workflow", "var bulit = \"yes\"\nbuild: sh \"make {{project}}\"\n", version: 2)
        let again = try client.diagnostics("main.workflow", until: { !$0.isEmpty })
        #expect(again.contains { $0.contains("built") }, "\(again)")
        // A second includer, then closed: the library's own error stays.
        try client.change("lib.workflow", "build: sh \"make {{projet}}\"\n", version: 3)
        #expect(try client.diagnostics("lib.workflow", until: { !$0.isEmpty }).contains { $0.contains("projet") })
        try client.open("other.workflow", "var project = \"x\"\ninclude \"lib.workflow\"\n")
        try client.close("other.workflow")
        let kept = try client.diagnostics("lib.workflow")
        #expect(kept.contains { $0.contains("projet") }, "closing an includer cleared the library's errors: \(kept)")
        #expect(try client.stop() == 0)
    }

    @Test("rename from the library changes the includer too, references span both files, 'error' is refused; the library formats")
    func renameAcrossFiles() throws {
        let client = try TestLanguageClient()
        try client.write("main.workflow", Self.main)
        try client.write("lib.workflow", Self.lib)
        try client.start()
        try client.open("main.workflow", Self.main)
        try client.open("lib.workflow", Self.lib)
        _ = try client.diagnostics("lib.workflow")
        // `build`, declared in the library, needed by main.
        let rename = try client.request("textDocument/rename", client.at("lib.workflow", 1, 2).merging(["newName": "compile"]) { $1 })
        let changes = (rename as? [String: Any])?["changes"] as? [String: [[String: Any]]] ?? [:]
        #expect(Set(changes.keys) == [client.uri("main.workflow"), client.uri("lib.workflow")], "\(changes)")
        #expect(changes[client.uri("main.workflow")]?.count == 1)
        // `project`, declared in main, used in the library: from the library's side.
        let references =
            try client.request(
                "textDocument/references",
                client.at("lib.workflow", 1, 20)
                    .merging(["context": ["includeDeclaration": true]]) { $1 }) as? [[String: Any]] ?? []
        #expect(Set(references.compactMap { $0["uri"] as? String }) == [client.uri("main.workflow"), client.uri("lib.workflow")], "\(references)")
        let refused = try client.requestResponse("textDocument/rename", client.at("lib.workflow", 1, 2).merging(["newName": "error"]) { $1 })
        #expect(refused["error"] != nil, "\(refused)")
        // fmt's layout on a file that parses but uses its includer's names.
        try client.change("lib.workflow", "var built = \"yes\"\nbuild:   sh \"make {{project}}\"\n", version: 2)
        let edits =
            try client.request("textDocument/formatting", ["textDocument": ["uri": client.uri("lib.workflow")], "options": [String: Any]()])
            as? [[String: Any]] ?? []
        #expect(edits.first?["newText"] as? String == Self.lib, "\(edits)")
        #expect(try client.stop() == 0)
    }
}

/// Completion and hover where the first language server left them short
/// (issue: `{{f.` after `file read`, `{{r.header.`, subjects by step kind,
/// after `catch`, `capture =`, `retry N`, `foreach ... in`; a request's
/// `header`; the `if` fold and its `else`).
@Suite("Language server: completion and hover in context")
struct CompletionInContextTests {
    static let text = """
        f: file read "notes.txt"
        r: http GET "http://127.0.0.1:9" {
          header "Accept" "text/plain"
          expect st
          capture v = 
        }
        s: sh "true" {
          expect 
          retry 2 
        }
        t: sh "echo {{f.}} {{r.header.}}"
        catch 
        foreach x in 
        if "{{r.status}}" == "200" {
          log "a"
          log "b"
        } else {
          log "c"
          log "d"
        }

        """

    private func labels(_ client: TestLanguageClient, _ line: Int, _ character: Int) throws -> [String] {
        let result = try client.request("textDocument/completion", client.at("a.workflow", line, character)) as? [String: Any]
        return (result?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    @Test("fields, subjects, capture sources, catch kinds, retry options, list functions; a request header's hover; the if and else folds")
    func completionAndHover() throws {
        let client = try TestLanguageClient()
        try client.start()
        try client.open("a.workflow", Self.text)
        #expect(try labels(client, 10, 16).contains("content"), "{{f.}} after file read")
        #expect(try labels(client, 10, 30).isEmpty, "{{r.header.}} offers header names, not the fields again")
        let httpSubjects = try labels(client, 3, 11)
        #expect(httpSubjects.contains("status") && !httpSubjects.contains("stdout"), "\(httpSubjects)")
        let shellSubjects = try labels(client, 7, 9)
        #expect(shellSubjects.contains("stdout") && !shellSubjects.contains("status"), "\(shellSubjects)")
        let sources = try labels(client, 4, 14)
        #expect(sources.contains("json") && sources.contains("header") && !sources.contains("stdout"), "\(sources)")
        #expect(try labels(client, 8, 10) == ["delay", "backoff"])
        let kinds = try labels(client, 11, 6)
        #expect(kinds.contains("timeout") && kinds.contains("expect"), "\(kinds)")
        #expect(try labels(client, 12, 13).contains("range"))
        let hover = try client.request("textDocument/hover", client.at("a.workflow", 2, 4)) as? [String: Any]
        let value = (hover?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(value.contains("request header"), "\(value)")
        let folds = try client.request("textDocument/foldingRange", ["textDocument": ["uri": client.uri("a.workflow")]]) as? [[String: Any]] ?? []
        let spans = Set(
            folds.compactMap { fold -> String? in
                guard let start = fold["startLine"] as? Int, let end = fold["endLine"] as? Int else { return nil }
                return "\(start)-\(end)"
            })
        #expect(spans.contains("13-15") && spans.contains("16-18") && !spans.contains("13-18"), "\(spans)")
        #expect(try client.stop() == 0)
    }

    @Test(
        "right after an edit of a library, a request there analyses the one includer it is read in, not every open file (the others wait for their diagnostics)"
    )
    func oneIncluderAfterAnEdit() throws {
        // Diagnostics after an edit wait long: what the request made is all there is to count.
        let client = try TestLanguageClient(debounce: .seconds(30))
        let files = [
            "main0.workflow": "var project = \"p\"\ninclude \"lib0.workflow\"\ninclude \"lib1.workflow\"\n",
            "main1.workflow": "var project = \"q\"\ninclude \"lib1.workflow\"\ninclude \"lib2.workflow\"\n",
            "lib0.workflow": "a0: sh \"echo {{project}}\"\n",
            "lib1.workflow": "a1: sh \"echo {{project}}\"\n",
            "lib2.workflow": "a2: sh \"echo {{project}}\"\n",
        ]
        for (name, text) in files { try client.write(name, text) }
        try client.start()
        for name in files.keys.sorted() { try client.open(name, files[name]!) }
        for name in files.keys.sorted() { #expect(try client.diagnostics(name).isEmpty, "\(name)") }
        // Answered after every diagnostics run the opens started.
        _ = try client.request("textDocument/hover", client.at("lib1.workflow", 0, 16))
        let before = client.server.queue.sync { client.server.analysesMade }
        try client.change("lib1.workflow", "a1: sh \"echo {{project}} again\"\n", version: 2)
        // The includer first in URI order: main0's var.
        let definition = try client.request("textDocument/definition", client.at("lib1.workflow", 0, 16)) as? [[String: Any]]
        #expect(definition?.first?["uri"] as? String == client.uri("main0.workflow"), "\(definition ?? [])")
        let made = client.server.queue.sync { client.server.analysesMade } - before
        #expect(made == 1, "\(made) analyses for one request")
        #expect(try client.stop() == 0)
    }
}
