import Foundation
import LSPTestSupport
import Testing

/// One reading of a file's lines and bytes everywhere: LF, CRLF and a
/// lone CR are each one line break (in `check`, in `fmt` and in the
/// language server's positions, as LSP 3.17 counts them), and bytes that
/// are not UTF-8 are an error at the first of them in `check`, a run and
/// the language server, which `fmt` never rewrites.
@Suite("End to end: line breaks and encoding")
struct LineBreaksAndEncodingTests {
    /// `text` with LSP text edits applied, lines broken at LF, CRLF or CR
    /// as an editor does (ASCII text: characters are bytes).
    private func applying(_ edits: [[String: Any]], to text: String) -> String {
        var bytes = Array(text.utf8)
        func offset(_ position: [String: Any]) -> Int {
            let line = position["line"] as? Int ?? 0
            let character = position["character"] as? Int ?? 0
            var start = 0
            for _ in 0..<line {
                while start < bytes.count, bytes[start] != 0x0A, bytes[start] != 0x0D { start += 1 }
                if start < bytes.count, bytes[start] == 0x0D, start + 1 < bytes.count, bytes[start + 1] == 0x0A { start += 1 }
                start = min(bytes.count, start + 1)
            }
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            return min(start + character, end)
        }
        for edit in edits.reversed() {
            let range = edit["range"] as? [String: Any] ?? [:]
            let start = offset(range["start"] as? [String: Any] ?? [:])
            let end = offset(range["end"] as? [String: Any] ?? [:])
            bytes.replaceSubrange(start..<max(start, end), with: Array((edit["newText"] as? String ?? "").utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("the language server counts a lone CR as a line break: edits land where the editor means, formatting keeps the buffer whole")
    func languageServerLoneCR() async throws {
        let client = try LSPClient()
        _ = try client.start()
        let uri = client.uri("cr.workflow")
        var text = "a: sh \"x\"\rb:   sh \"{{nope.stdout}}\"\r"
        try client.open("cr.workflow", text)
        let first = try client.diagnostics(for: uri)
        let start = (first.first?["range"] as? [String: Any])?["start"] as? [String: Any]
        #expect(start?["line"] as? Int == 1 && start?["character"] as? Int == 9, "\(first)")
        // The editor replaces `nope` on line 1 with `a`.
        let edit: [String: Any] = ["range": ["start": lspPosition(1, 11), "end": lspPosition(1, 15)], "text": "a"]
        try client.notify("textDocument/didChange", ["textDocument": ["uri": uri, "version": 2], "contentChanges": [edit]])
        text = applying([["range": edit["range"]!, "newText": "a"]], to: text)
        #expect(try client.diagnostics(for: uri).isEmpty)
        let formatting = try client.request(
            "textDocument/formatting", ["textDocument": ["uri": uri], "options": ["tabSize": 2, "insertSpaces": true]])
        let edits = formatting["result"] as? [[String: Any]] ?? []
        #expect(applying(edits, to: text) == "a: sh \"x\"\nb: sh \"{{a.stdout}}\"\n", "\(edits)")
        #expect(try client.stop() == 0)
    }

    @Test("a backslash continues a statement across a CRLF or CR line break, and check counts lines the same way")
    func continuationWithCRLF() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("crlf.workflow", "a: sh \"echo hi\" \\\r\n  { timeout 5s }\r\nlog \"{{a.stdout}}\"\r\n")
        let crlf = try await Binary.run(["check", "crlf.workflow"], in: space.folder)
        #expect(crlf.status == 0 && crlf.stdout == "crlf.workflow: ok (2 steps)\n", "\(crlf.stderr)")
        try space.write("cr.workflow", "log \"x\"\rlog \\\r  \"y\"\rlog \"{{nope.stdout}}\"\r")
        let cr = try await Binary.run(["check", "--color", "never", "cr.workflow"], in: space.folder)
        #expect(cr.status == 2)
        #expect(cr.stderr.hasPrefix("cr.workflow:4:6: error: unknown step 'nope'"), "\(cr.stderr)")
    }

    @Test(".env files and --var-file read CRLF and CR line breaks as line breaks, not as part of a value")
    func envAndVarFilesWithCRLF() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("crlf.env", "A=1\r\nB=2\r\n")
        try space.write("cr.env", "C=3\rD=4\r")
        try space.write("vars", "v=5\r\nw=6\rx=7\n")
        let run = try await space.run(
            """
            var v = ""
            var w = ""
            var x = ""
            dotenv "cr.env"
            log "={{env.A}},{{env.B}},{{v}},{{w}},{{x}}"
            a: sh "echo =$C,$D"
            """, ["--env-file", "crlf.env", "--var-file", "vars"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=") == ["=1,2,5,6,7"])
        #expect(run.stdout.contains("[a] =3,4\n"), "\(run.stdout)")
    }

    @Test("a UTF-8 byte order mark first (Notepad) is no part of the first line: lines(), dotenv, --env-file and --var-file")
    func byteOrderMarks() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("list.txt", "\u{FEFF}one\r\ntwo\r\n")
        try space.write("vars.txt", "\u{FEFF}who=world\r\n")
        try space.write("first.env", "\u{FEFF}GREETING=hello\r\n")
        try space.write("second.env", "\u{FEFF}MARK=!\r\n")
        let run = try await space.run(
            """
            var who = "nobody"
            dotenv "second.env"
            foreach item in lines("list.txt") {
              log "=[{{item}}]"
            }
            a: sh "echo \\"=$GREETING {{who}}$MARK\\""
            """, ["--var-file", "vars.txt", "--env-file", "first.env"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.logLines(prefix: "=[") == ["=[one]", "=[two]"], "\(run.stdout)")
        #expect(run.stdout.contains("[a] =hello world!\n"), "\(run.stdout)")
    }

    @Test("fmt writes LF line breaks everywhere, inside \"\"\" strings too, and the string's value is the same")
    func fmtNormalisesLineBreaks() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let text = "a: sh \"\"\"\r\n  echo one\r\n  echo two\r\n  \"\"\"\r\nb: sh \"\"\"\r  echo three\r  \"\"\"\r"
        try space.write("w.workflow", text)
        let before = try await Binary.run(["graph", "--format", "json", "w.workflow"], in: space.folder)
        #expect(before.status == 0, "\(before.stderr)")
        let fmt = try await Binary.run(["fmt", "w.workflow"], in: space.folder)
        #expect(fmt.status == 0, "\(fmt.stderr)")
        #expect(space.read("w.workflow") == "a: sh \"\"\"\n  echo one\n  echo two\n  \"\"\"\nb: sh \"\"\"\n  echo three\n  \"\"\"\n")
        let after = try await Binary.run(["graph", "--format", "json", "w.workflow"], in: space.folder)
        #expect(after.stdout == before.stdout)
        #expect(before.stdout.contains("echo one") && before.stdout.contains("echo three"), "\(before.stdout)")
    }

    @Test(
        "bytes that are not UTF-8 are an error at the first of them in check, a run, an include and the language server; fmt leaves the file as it is"
    )
    func invalidUTF8() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let bytes = Data("log \"x\"\n# caf".utf8) + Data([0xE9]) + Data("\nlog \"".utf8) + Data([0xFF]) + Data("\"\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: space.path("bad.workflow")))
        let error = "bad.workflow:2:6: error: this byte (0xE9) is not UTF-8"
        let check = try await Binary.run(["check", "--color", "never", "bad.workflow"], in: space.folder)
        #expect(check.status == 2 && check.stderr.hasPrefix(error), "\(check.stderr)")
        let run = try await Binary.run(["--color", "never", "bad.workflow"], in: space.folder)
        #expect(run.status == 2 && run.stderr.hasPrefix(error), "\(run.stderr)")
        try space.write("main.workflow", "include \"bad.workflow\"\n")
        let included = try await Binary.run(["check", "--color", "never", "main.workflow"], in: space.folder)
        #expect(included.status == 2 && included.stderr.hasPrefix(error), "\(included.stderr)")
        let fmt = try await Binary.run(["fmt", "--color", "never", "bad.workflow"], in: space.folder)
        #expect(fmt.status == 2 && fmt.stderr.hasPrefix(error), "\(fmt.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: space.path("bad.workflow"))) == bytes)
        let stdin = try await Binary.run(["fmt", "-"], stdin: "log \"x\"\n", in: space.folder)
        #expect(stdin.status == 0)

        let client = try LSPClient(folder: space.folder)
        _ = try client.start()
        try client.open("main.workflow", "include \"bad.workflow\"\n")
        let diagnostics = try client.diagnostics(for: client.uri("bad.workflow"))
        let place = diagnostics.first { ($0["message"] as? String)?.contains("is not UTF-8") == true }?["range"] as? [String: Any]
        let start = place?["start"] as? [String: Any]
        #expect(start?["line"] as? Int == 1 && start?["character"] as? Int == 5, "\(diagnostics)")
        #expect(try client.stop() == 0)
    }
}
