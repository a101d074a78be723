import Foundation
import Testing

/// What a person sees (docs/command.md, 'What you see'): output modes,
/// verbosity, terminal or not.
@Suite("End to end: the console")
struct ConsoleEndToEndTests {
    static let workflow = """
        parallel {
          a: sh "echo a1; sleep 0.2; echo a2"
          b: sh "echo b1; sleep 0.1; echo b2"
        }
        """

    @Test("prefixed (default): each line as it comes behind [step]")
    func prefixed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(Self.workflow)
        for line in ["[a] a1", "[a] a2", "[b] b1", "[b] b2"] { #expect(run.stdout.contains(line)) }
        #expect(run.stdout.contains("✓ a"))
        #expect(run.stdout.contains("step  kind  status"), "the summary table")
    }

    @Test("grouped: each step's output in one piece when it ends")
    func grouped() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(Self.workflow, ["--output", "grouped"])
        #expect(run.stdout.contains("── a ──\na1\na2\n"))
        #expect(run.stdout.contains("── b ──\nb1\nb2\n"))
        #expect(!run.stdout.contains("[a]"))
    }

    @Test("--output quiet shows no step output; -q also drops the table")
    func quiet() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let noOutput = try await space.run(Self.workflow, ["--output", "quiet"])
        #expect(!noOutput.stdout.contains("a1"))
        #expect(noOutput.stdout.contains("✓ a"))
        let q = try await space.run(Self.workflow, ["-q"])
        #expect(!q.stdout.contains("step  kind"))
        #expect(!q.stdout.contains("✓ a"))
        #expect(!q.stdout.contains("a1"), "-q shows no step output")
        #expect(q.stdout.contains("succeeded in"))
        let failing = try await space.run(
            """
            log "LOG hidden"
            a: sh "echo quiet-out; echo broke-here >&2; exit 3"
            """, ["-q"])
        #expect(failing.status == 1)
        #expect(!failing.stdout.contains("quiet-out") && !failing.stdout.contains("LOG hidden"))
        #expect(failing.stdout.contains("✗ a"))
        #expect((failing.stdout + failing.stderr).contains("broke-here"), "a failure shows the end of its stderr")
    }

    @Test("-v shows each step's start with its command")
    func verbose() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(Self.workflow, ["-v"])
        #expect(run.stdout.contains("▶ a sh echo a1; sleep 0.2; echo a2"))
    }

    @Test("not on a terminal: no cursor movement, no color")
    func plainWhenPiped() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let outcome = try await Binary.run(["test.workflow"], in: space.folder)
        #expect(!outcome.stdout.contains("\u{1B}["))
    }

    @Test("on a terminal: a live area redrawn in place, and color", .enabled(if: hasScript))
    func liveOnTerminal() async throws {
        let (status, screen) = try await onTerminal(
            """
            a: sh "sleep 0.6"
            """)
        #expect(status == 0)
        #expect(screen.contains("running 1"), "the live area lists the running step")
        #expect(screen.contains("\u{1B}[J"), "the live area is cleared and redrawn in place")
        #expect(screen.contains("\u{1B}[32m✓"), "colored on a terminal")
    }

    /// Runs `command` on a pseudo-terminal of `columns` columns; returns
    /// what it printed, escape sequences and all.
    /// Whether `script` is here to give a run a pseudo-terminal.
    private static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    /// Runs `workflow` in a workspace of its own on a pseudo-terminal of
    /// `columns` columns (`script` copies what it printed); returns the
    /// exit code and that, escape sequences and all.
    private func onTerminal(
        _ workflow: String, _ arguments: [String] = [], columns: Int = 80,
        term: String = "xterm"
    ) async throws -> (status: Int32, screen: String) {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", workflow)
        let binary = try #require(Binary.url).path
        let outcome = try await Binary.runCommand(
            "/usr/bin/script", ["-qfec", "stty cols \(columns); \(binary) \(arguments.joined(separator: " ")) test.workflow", "typescript"],
            in: space.folder, environment: ["TERM": term, "NO_COLOR": ""])
        return (outcome.status, space.read("typescript") ?? "")
    }

    /// The characters a terminal shows: CSI escape sequences and carriage returns dropped.
    private static func visible(_ line: Substring) -> String {
        var text = ""
        var inEscape = false
        for scalar in line.unicodeScalars {
            if scalar == "\u{1B}" {
                inEscape = true
                continue
            }
            if inEscape {
                if scalar.properties.isAlphabetic && scalar != "[" { inEscape = false }
                continue
            }
            if scalar != "\r" { text.unicodeScalars.append(scalar) }
        }
        return text
    }

    @Test(
        "the final table fits a 40-column terminal: narrow columns go, long messages end in an ellipsis",
        .enabled(if: hasScript))
    func tableFitsTerminal() async throws {
        let (status, screen) = try await onTerminal(
            """
            parallel keep-going {
              a-step-with-a-rather-long-label: sh "true"
              broken: sh "echo 'a very long explanation of what went wrong in this step, far wider than forty columns' >&2; exit 1"
            }
            """, columns: 40)
        #expect(status == 1)
        let lines = screen.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(Self.visible)
        let header = try #require(lines.firstIndex { $0.hasPrefix("step ") }, "\(lines)")
        let rows = lines[header...].prefix(3)
        #expect(rows.count == 3)
        for row in rows {
            #expect(row.count <= 40, "'\(row)' is \(row.count) columns")
        }
        #expect(rows.contains { $0.hasPrefix("broken") && $0.hasSuffix("…") })
    }

    @Test(
        "TERM=dumb: no color and no live area, even on a terminal",
        .enabled(if: hasScript))
    func dumbTerminal() async throws {
        let (status, screen) = try await onTerminal(
            """
            a: sh "sleep 0.4"
            """, term: "dumb")
        #expect(status == 0)
        #expect(screen.contains("✓ a"))
        #expect(!screen.contains("\u{1B}["), "no escape sequence at all")
    }

    @Test(
        "a retried step's live line says which attempt it is on",
        .enabled(if: hasScript))
    func retryAttemptInLiveLine() async throws {
        let (status, screen) = try await onTerminal(
            """
            flaky: sh "test -f marker || { touch marker; exit 1; }; sleep 0.8" { retry 1 }
            """)
        #expect(status == 0)
        #expect(Self.visible(Substring(screen)).contains("› flaky attempt 2 "), "the live line, not only the note above it")
    }

    @Test(
        "a load test's live area: each repeated label's runs, rate and p99 so far",
        .enabled(if: hasScript))
    func labelStatsInLiveArea() async throws {
        let (status, screen) = try await onTerminal(
            """
            repeat for 1s parallel limit 2 rate 40/s {
              tick: sleep 20ms
            }
            """)
        #expect(status == 0)
        let visible = Self.visible(Substring(screen))
        #expect(visible.range(of: #"↻ tick  \d+ runs  [\d.]+/s  p99 [\d.]+ms"#, options: .regularExpression) != nil, "\(visible)")
        // Its iterations are not listed one by one (nor registered as they
        // start: a load test on a terminal costs what it does in a log).
        #expect(!visible.contains("› tick["), "\(visible)")
    }

    @Test("a label of a foreach without a rate prints its first 1,000 runs, says the rest are counted, and its statistics count them all")
    func repeatedLabelLinesCapped() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // A repeat prints none of its successes (LoadTruthTests).
        let run = try await space.run(
            """
            foreach i in range(0, 1004) parallel limit 8 {
              tick: sleep 0ms
            }
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("✓ tick[") }.count == 1_000)
        #expect(
            lines.filter { $0.contains("tick: past its first 1000 runs (and 100 failures), its runs are counted, not printed") }.count == 1,
            "\(run.stdout.suffix(2000))")
        #expect(run.stats("tick")?["count"] as? Int == 1005)
    }

    /// A step's output holding a title-setting OSC, a BEL, a clear-screen
    /// and a tab, shown by a `log`, a `fail` message (and its `-v` start
    /// line) and the stderr tail of the failure.
    static let controlText = """
        src: sh "printf 'A\\\\033]0;pwned\\\\007B\\\\033[2JC\\tD'"
        log "log: {{src.stdout}}"
        f: fail "fail: {{src.stdout}}" { allow-failure }
        bad: sh "printf 'err\\\\033[2Jboom\\n' >&2; exit 1"
        """

    /// What `controlText` must show: its control characters escaped, its
    /// tab a tab. The only escape sequences are the console's own: on a
    /// terminal, the live area's redraw, and colors unless `--color never`.
    private static func expectEscapedControlText(
        _ output: String, onTerminal: Bool, colored: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for shown in ["log: A\\e]0;pwned\\x07B\\e[2JC\tD", "fail: A\\e]0;pwned\\x07B\\e[2JC\tD", "err\\e[2Jboom"] {
            #expect(output.contains(shown), "\(shown.debugDescription) in \(output.debugDescription)", sourceLocation: sourceLocation)
        }
        var own = output
        if onTerminal { own = own.replacing(/\u{1B}\[[0-9]+F\u{1B}\[J/, with: "") }
        if colored { own = own.replacing(/\u{1B}\[[0-9;]*m/, with: "") }
        #expect(!own.unicodeScalars.contains("\u{1B}"), "\(output.debugDescription)", sourceLocation: sourceLocation)
        #expect(!output.unicodeScalars.contains("\u{07}"), sourceLocation: sourceLocation)
    }

    @Test(
        "control characters from steps (log, fail, stderr tail) are shown escaped, never sent to the terminal, piped or not",
        arguments: [[String](), ["--color", "never"]])
    func controlCharactersEscapedWhenPiped(arguments: [String]) async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.controlText)
        let outcome = try await Binary.run(["--output", "quiet", "-v"] + arguments + ["test.workflow"], in: space.folder)
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        Self.expectEscapedControlText(outcome.stdout + outcome.stderr, onTerminal: false, colored: false)
    }

    @Test(
        "on a terminal, control characters from steps are shown escaped; the only escape sequences are the console's own (colors, live area)",
        .enabled(if: hasScript), arguments: [[String](), ["--color", "never"]])
    func controlCharactersEscapedOnTerminal(arguments: [String]) async throws {
        let (status, screen) = try await onTerminal(Self.controlText, ["--output", "quiet", "-v"] + arguments)
        #expect(status == 1, "\(screen)")
        Self.expectEscapedControlText(screen, onTerminal: true, colored: arguments.isEmpty)
        if arguments.isEmpty { #expect(screen.contains("\u{1B}[31m"), "colored by default on a terminal") }
    }

    @Test("-q prints the final line alone, with no blank line before it")
    func quietHasNoBlankLine() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run("a: sh \"true\"", ["-q"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("✓ "), "\(run.stdout.debugDescription)")
    }
}

/// docs/command.md: `-v` prints each step as it starts "with its command":
/// what runs, values filled in, secrets masked.
@Suite("End to end: -v shows what runs")
struct VerboseStartLinesTests {
    @Test("-v prints the resolved command, URL and arguments, every foreach item's own, secrets masked")
    func resolvedStartLines() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            secret token = "tok-0123456789"
            var base = "\(base)"
            var name = "world"
            greet: sh "echo hello {{name}}"
            login: http POST "{{base}}/echo?t={{token}}" {
              body "x"
            }
            foreach item in split("alpha\\nbeta") {
              each: exec "echo" "{{item}}"
            }
            """, ["-v"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let starts = run.stdout.split(separator: "\n").filter { $0.hasPrefix("▶ ") }.map(String.init)
        #expect(starts.contains("▶ greet sh echo hello world"), "\(starts)")
        #expect(starts.contains("▶ login http POST \(base)/echo?t=***"), "\(starts)")
        #expect(starts.contains("▶ each[0] exec echo alpha"), "\(starts)")
        #expect(starts.contains("▶ each[1] exec echo beta"), "\(starts)")
        #expect(!run.stdout.contains("{{"), "no template is shown: \(run.stdout)")
        #expect(!run.stdout.contains("tok-0123456789"))
        #expect(run.step("each[1]")?["summary"] as? String == "exec echo beta", "the reports say what ran too")
    }
}
