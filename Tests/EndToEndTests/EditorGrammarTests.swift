import Foundation
import Testing

/// editors/promise-run.tmLanguage.json, tokenized by a small TextMate
/// tokenizer (Tests/Fixtures/tokenize-textmate.py).
@Suite("Editor support: the TextMate grammar")
struct EditorGrammarTests {
    static let grammar = Binary.packageRoot.appendingPathComponent("editors/promise-run.tmLanguage.json").path
    static let tokenizer = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/tokenize-textmate.py").path

    @Test("every workflow of the repository and of the spec tokenizes, giving its text back, with no invalid scope")
    func everyWorkflow() async throws {
        let root = Binary.packageRoot
        var files: [String] = []
        for folder in ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"] {
            let url = root.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".workflow") }
            files += names.sorted().map { url.appendingPathComponent($0).path }
        }
        #expect(files.count > 60)
        let outcome = try await Binary.runCommand("/usr/bin/python3", [Self.tokenizer, Self.grammar, "check"] + files)
        #expect(outcome.status == 0, "\(outcome.stderr)")
    }

    @Test("comments, the three strings with {{ }} where it is filled in, escapes, durations, labels, words")
    func scopes() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            "sample.workflow",
            #"""
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
        let outcome = try await Binary.runCommand("/usr/bin/python3", [Self.tokenizer, Self.grammar, "show", space.path("sample.workflow")])
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

    /// Vim 9 and Neovim, each when installed (.ci/install-deps installs both).
    static let vims = ["/usr/bin/vim", "/usr/bin/nvim", "/usr/local/bin/nvim"].filter { FileManager.default.isExecutableFile(atPath: $0) }

    /// Loads editors/vim in `editor`, headless, with filetype plugins on;
    /// runs `probe` (Vim script that adds to the list `found`) on `file`,
    /// and returns `found` after the filetype, the error messages, and the
    /// ftplugin's 'commentstring' and 'iskeyword'.
    static func loadInVim(_ editor: String, _ space: Workspace, file: String, probe: String) async throws -> [String] {
        let runtime = Binary.packageRoot.appendingPathComponent("editors/vim").path
        let out = space.path("found-\((editor as NSString).lastPathComponent).txt")
        var script = "set nocompatible\nset runtimepath^=\(runtime)\nfiletype plugin on\nsyntax on\nedit \(space.path(file))\n"
        script +=
            "let found = [&filetype, join(filter(split(execute('messages'), \"\\n\"), 'v:val =~ \"E[0-9]\\\\+:\"'), ' | '), &commentstring, &iskeyword]\n"
        script += probe
        script += "call writefile(found, '\(out)')\nqa!\n"
        try space.write("probe.vim", script)
        let arguments =
            editor.hasSuffix("nvim")
            ? ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-S", space.path("probe.vim")]
            : ["-Nu", "NONE", "-es", "-S", space.path("probe.vim")]
        _ = try await Binary.runCommand(
            editor, arguments, in: space.folder,
            environment: ["XDG_STATE_HOME": space.path("state"), "XDG_DATA_HOME": space.path("data")])
        return (space.read((out as NSString).lastPathComponent) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func skipWithoutVim() throws -> Bool {
        guard vims.isEmpty else { return false }
        let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
        try #require(!required, "vim and neovim are required in CI: run .ci/install-deps")
        return true
    }

    @Test(
        "Vim and Neovim: *.workflow gets the promise-run filetype, no error, the ftplugin, and comments, labels, steps, attributes and strings their groups"
    )
    func vim() async throws {
        if try Self.skipWithoutVim() { return }
        let space = try Workspace()
        defer { space.remove() }
        try space.write("sample.workflow", "# note\nbuild: sh \"make {{x}}\" {\n  timeout 10m\n  expect stdout contains \"ok\"\n  allow-failure\n}\n")
        // Each probe: line, column → the syntax group there.
        let probes = [(1, 1), (2, 1), (2, 8), (2, 11), (2, 19), (3, 3), (3, 11), (4, 10), (4, 17), (5, 3), (5, 9)]
        var probe = ""
        for (line, column) in probes { probe += "call add(found, synIDattr(synID(\(line), \(column), 1), 'name'))\n" }
        for editor in Self.vims {
            let found = try await Self.loadInVim(editor, space, file: "sample.workflow", probe: probe)
            #expect(found.first == "promise-run", "\(editor): \(found)")
            #expect(found.dropFirst().first == "", "\(editor) reported errors: \(found.dropFirst().first ?? "")")
            #expect(found.dropFirst(2).first == "# %s", "\(editor): commentstring \(found)")
            #expect(found.dropFirst(3).first?.split(separator: ",").contains("-") == true, "\(editor): iskeyword \(found)")
            #expect(
                Array(found.dropFirst(4).prefix(11)) == [
                    "promiseRunComment", "promiseRunLabel", "promiseRunStep", "promiseRunString", "promiseRunInterpolation",
                    "promiseRunAttribute", "promiseRunDuration", "promiseRunPredicate", "promiseRunPredicate",
                    "promiseRunAttribute", "promiseRunAttribute",
                ], "\(editor): \(found)")
        }
    }

    @Test("Vim and Neovim colour every word the syntax file names (a word Vim reads as an argument of `syn keyword` would not be)")
    func vimEveryWord() async throws {
        if try Self.skipWithoutVim() { return }
        let syntax = try String(contentsOf: Binary.packageRoot.appendingPathComponent("editors/vim/syntax/promise-run.vim"), encoding: .utf8)
        var words: [String] = []
        for line in syntax.split(separator: "\n") {
            if line.hasPrefix("syn keyword") {
                words += line.split(separator: " ").dropFirst(3).map(String.init)
            } else if line.hasPrefix("syn match"), let open = line.range(of: "\"\\<"), let close = line.range(of: "\\>\""),
                open.upperBound < close.lowerBound
            {
                let word = String(line[open.upperBound..<close.lowerBound])
                if word.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { words.append(word) }
            }
        }
        #expect(words.contains("contains") && words.count > 100, "\(words)")
        let space = try Workspace()
        defer { space.remove() }
        try space.write("words.workflow", words.map { "  \($0)\n" }.joined())
        var probe = ""
        for line in words.indices { probe += "call add(found, synIDattr(synID(\(line + 1), 3, 1), 'name'))\n" }
        for editor in Self.vims {
            let found = try await Self.loadInVim(editor, space, file: "words.workflow", probe: probe)
            #expect(found.dropFirst().first == "", "\(editor) reported errors: \(found.dropFirst().first ?? "")")
            let groups = Array(found.dropFirst(4).prefix(words.count))
            for (word, group) in zip(words, groups + Array(repeating: "", count: max(0, words.count - groups.count))) {
                #expect(group.hasPrefix("promiseRun"), "\(editor): '\(word)' is not coloured (\(group))")
            }
        }
    }
}
