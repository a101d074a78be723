import Foundation
import Testing

/// editors/promise-run.tmLanguage.json, tokenized by a small TextMate
/// tokenizer (Tests/Fixtures/tokenize-textmate.py).
@Suite("Editor support: the TextMate grammar")
struct EditorGrammarTests {
    static let grammar = Binary.packageRoot.appendingPathComponent("editors/promise-run.tmLanguage.json").path
    static let tokenizer = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/tokenize-textmate.py").path

    @Test("every workflow of the repository and of the spec tokenizes, giving its text back, with no invalid scope")
    func everyWorkflow() throws {
        let root = Binary.packageRoot
        var files: [String] = []
        for folder in ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"] {
            let url = root.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".workflow") }
            files += names.sorted().map { url.appendingPathComponent($0).path }
        }
        #expect(files.count > 60)
        let outcome = try Binary.runCommand("/usr/bin/python3", [Self.tokenizer, Self.grammar, "check"] + files)
        #expect(outcome.status == 0, "\(outcome.stderr)")
    }

    @Test("comments, the three strings with {{ }} where it is filled in, escapes, durations, labels, words")
    func scopes() throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("sample.workflow", #"""
        # a comment
        var who = "a {{env.USER ?? "x"}} \" b"
        build: sh 'raw {{who}}' {
          timeout 1m30s
          allow-failure
        }
        r: http PURGE "http://u" { expect json ".n" count >= 2 }
        notes: log """
          hello {{who}}
          """
        """#)
        let outcome = try Binary.runCommand("/usr/bin/python3", [Self.tokenizer, Self.grammar, "show", space.path("sample.workflow")])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        var scopes: [String: [String]] = [:]
        for line in outcome.stdout.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            scopes[parts[1], default: []].append(parts[0])
        }
        func has(_ text: String, _ scope: String) -> Bool { scopes[text]?.contains { $0.contains(scope) } == true }
        #expect(has("# a comment", "comment.line"))
        #expect(has("var", "storage.type"))
        #expect(has("{{", "string.quoted.double") && has("{{", "punctuation.section.interpolation.begin"))
        #expect(has("USER", "meta.interpolation") || has("env", "meta.interpolation"))
        #expect(has("\\\"", "constant.character.escape"))
        #expect(has("build", "entity.name.label"))
        #expect(has("sh", "keyword.other.step"))
        #expect(has("raw {{who}}", "string.quoted.single"), "a raw string has no interpolation")
        #expect(has("1m30s", "constant.numeric.duration"))
        #expect(has("timeout", "keyword.other.attribute") && has("allow-failure", "keyword.other.attribute"))
        #expect(has("PURGE", "support.constant.method"))
        #expect(has("count", "keyword.operator.word"))
        #expect(has("who", "string.quoted.triple"), "{{who}} inside a triple-quoted string")
    }

    @Test("Vim: *.workflow gets the promise-run filetype, and comments, labels, steps, attributes and strings their groups")
    func vim() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vim") else {
            let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
            try #require(!required, "vim is required in CI: run .ci/install-deps")
            return
        }
        let space = try Workspace()
        defer { space.remove() }
        try space.write("sample.workflow", "# note\nbuild: sh \"make {{x}}\" {\n  timeout 10m\n}\n")
        let runtime = Binary.packageRoot.appendingPathComponent("editors/vim").path
        let out = space.path("groups.txt")
        // Each probe: line, column → the syntax group there.
        let probes = [(1, 1), (2, 1), (2, 8), (2, 11), (2, 19), (3, 3), (3, 11)]
        var script = "set nocompatible\nset runtimepath^=\(runtime)\nfiletype on\nsyntax on\nedit \(space.path("sample.workflow"))\n"
        script += "let found = [&filetype]\n"
        for (line, column) in probes { script += "call add(found, synIDattr(synID(\(line), \(column), 1), 'name'))\n" }
        script += "call writefile(found, '\(out)')\nqa!\n"
        try space.write("probe.vim", script)
        _ = try Binary.runCommand("/usr/bin/vim", ["-Nu", "NONE", "-es", "-S", space.path("probe.vim")])
        let found = (space.read("groups.txt") ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(found.prefix(8) == ["promise-run", "promiseRunComment", "promiseRunLabel", "promiseRunStep", "promiseRunString",
                                    "promiseRunInterpolation", "promiseRunAttribute", "promiseRunDuration"], "\(found)")
    }
}
