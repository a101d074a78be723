import Foundation
import Testing

/// `promise-run completions bash|zsh|fish`, run in the shells themselves:
/// bash and zsh call the completion function with a command line set up
/// as the shell would; fish answers `complete -C`. Each shell is needed
/// (.ci/install-deps installs zsh and fish; bash is everywhere).
@Suite("End to end: shell completions")
struct CompletionsTests {
    static let workflow = """
        setup: sh "true"
        checks: parallel {
          lint: sh "true"
          unit: sh "true"
        }
        deploy: sh "true" {
          on-demand
        }
        each: foreach n in range(1, 2) {
          inner: sh "true"
        }
        """

    /// A folder with a workflow, a folder, another file, and the script.
    private func prepare(_ shell: String) async throws -> (Workspace, String) {
        let space = try Workspace()
        try space.write("ci.workflow", Self.workflow)
        try space.write("notes.txt", "x")
        try space.write("sub/other.workflow", "a: sh \"true\"\n")
        let script = try await Binary.run(["completions", shell], in: space.folder)
        #expect(script.status == 0)
        try space.write("script", script.stdout)
        let binaryFolder = try #require(Binary.url).deletingLastPathComponent().path
        return (space, binaryFolder)
    }

    private func requireShell(_ path: String) throws -> Bool {
        if FileManager.default.isExecutableFile(atPath: path) { return true }
        let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
        try #require(!required, "\(path) is required in CI: run .ci/install-deps")
        return false
    }

    @Test("bash: commands and files, options, option values, formats per command, shells, target labels (on-demand ones too, not foreach-body ones)")
    func bash() async throws {
        let (space, binaries) = try await prepare("bash")
        defer { space.remove() }
        let lines: [(String, String)] = [
            ("promise-run ''", "check ci.workflow completions fmt graph help list lsp sub"),
            ("promise-run --col", "--color"),
            ("promise-run --color ''", "always auto never"),
            ("promise-run --output g", "grouped"),
            ("promise-run ci.workflow ''", "checks deploy each lint setup unit"),
            ("promise-run -j 4 ci.workflow de", "deploy"),
            ("promise-run graph --format ''", "dot json mermaid tree"),
            ("promise-run list --format ''", "json text"),
            ("promise-run check --f", "--format"),
            ("promise-run completions ''", "bash fish zsh"),
            ("promise-run --report ''", "html= json= junit= markdown="),
            // bash cuts NAME=VALUE at '=' (COMP_WORDBREAKS), as here.
            ("promise-run --var cc = clang ci.workflow ''", "checks deploy each lint setup unit"),
            ("promise-run --report junit = ''", "ci.workflow drive.sh notes.txt script sub"),
            ("promise-run --report junit =", "ci.workflow drive.sh notes.txt script sub"),
            ("promise-run run ''", "ci.workflow sub"),
            ("promise-run run ci.workflow ''", "checks deploy each lint setup unit"),
        ]
        var script = "source ./script\nexport PATH='\(binaries)':\"$PATH\"\n"
        script += "complete_line() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _promise_run; "
        script += "printf '%s\\n' \"${COMPREPLY[@]}\" | sort | paste -sd ' '; }\n"
        for (line, _) in lines { script += "complete_line \(line)\n" }
        try space.write("drive.sh", script)
        let outcome = try await Binary.runCommand("/bin/bash", ["drive.sh"], in: space.folder)
        let answers = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, (line, expected)) in lines.enumerated() {
            #expect(
                index < answers.count && answers[index] == expected,
                "bash: \(line) → \(index < answers.count ? answers[index] : "?") \(outcome.stderr)")
        }
    }

    @Test("zsh: the same answers through compadd, files after a report's FORMAT=")
    func zsh() async throws {
        guard try requireShell("/usr/bin/zsh") else { return }
        let (space, binaries) = try await prepare("zsh")
        defer { space.remove() }
        let lines: [(String, String)] = [
            ("promise-run ''", "check ci.workflow completions fmt graph help list lsp sub"),
            ("promise-run --col", "--color"),
            ("promise-run --color ''", "always auto never"),
            ("promise-run ci.workflow ''", "checks deploy each lint setup unit"),
            ("promise-run graph ci.workflow l", "lint"),
            ("promise-run graph --format ''", "dot json mermaid tree"),
            ("promise-run completions ''", "bash fish zsh"),
            ("promise-run run ''", "ci.workflow sub"),
            ("promise-run run ci.workflow ''", "checks deploy each lint setup unit"),
            ("promise-run --report ''", "html= json= junit= markdown="),
            ("promise-run --report j", "json= junit="),
            ("promise-run --report junit=", "junit=ci.workflow junit=drive.zsh junit=notes.txt junit=script junit=sub/"),
            ("promise-run --report junit=s", "junit=script junit=sub/"),
            ("promise-run --report html=sub/", "html=sub/other.workflow"),
            ("promise-run --report junit=out.xml ci.workflow ''", "checks deploy each lint setup unit"),
        ]
        // compadd as zsh's completion system calls it, keeping the words
        // that start with the one being completed (as the real one does).
        var script = "compadd() { local -a args; args=(\"$@\"); local i=${args[(i)--]}; "
        script += "local w; for w in \"${(@)args[i+1,-1]}\"; do [[ \"$w\" == \"${words[CURRENT]}\"* ]] && print -r -- \"$w\"; done; }\n"
        script += "source ./script\npath=('\(binaries)' $path)\n"
        script += "complete_line() { words=(\"$@\"); CURRENT=${#words}; print -r -- \"$(_promise_run | sort | paste -sd ' ')\"; }\n"
        for (line, _) in lines { script += "complete_line \(line)\n" }
        try space.write("drive.zsh", script)
        let outcome = try await Binary.runCommand("/usr/bin/zsh", ["-f", "drive.zsh"], in: space.folder)
        let answers = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, (line, expected)) in lines.enumerated() {
            #expect(
                index < answers.count && answers[index] == expected,
                "zsh: \(line) → \(index < answers.count ? answers[index] : "?") \(outcome.stderr)")
        }
    }

    @Test("fish: complete -C answers with commands, files, values and targets")
    func fish() async throws {
        guard try requireShell("/usr/bin/fish") else { return }
        let (space, binaries) = try await prepare("fish")
        defer { space.remove() }
        let lines: [(String, String)] = [
            ("promise-run ", "check ci.workflow completions fmt graph help list lsp sub/"),
            ("promise-run --color ", "always auto never"),
            ("promise-run ci.workflow ", "checks deploy each lint setup unit"),
            ("promise-run completions ", "bash fish zsh"),
            ("promise-run run ", "ci.workflow sub/"),
            ("promise-run run ci.workflow ", "checks deploy each lint setup unit"),
        ]
        var script = "set -x PATH '\(binaries)' $PATH\nsource ./script\n"
        for (line, _) in lines { script += "complete -C '\(line)' | cut -f1 | sort | paste -sd ' '\n" }
        // The descriptions: a value's is its option; an option's is its help without the asides.
        script += "complete -C 'promise-run --color ' | cut -f2 | sort -u | paste -sd ' '\n"
        script += "complete -C 'promise-run --col' | cut -f2\n"
        try space.write("drive.fish", script)
        let outcome = try await Binary.runCommand("/usr/bin/fish", ["--no-config", "drive.fish"], in: space.folder)
        let answers = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, (line, expected)) in lines.enumerated() {
            #expect(
                index < answers.count && answers[index] == expected,
                "fish: \(line) → \(index < answers.count ? answers[index] : "?") \(outcome.stderr)")
        }
        #expect(Array(answers.dropFirst(lines.count).prefix(2)) == ["--color", "auto, always or never; NO_COLOR turns auto off"], "\(answers)")
    }
}
