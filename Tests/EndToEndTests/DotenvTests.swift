import Foundation
import Testing

/// `dotenv` and `--env-file`, end to end.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
@Suite("End to end: dotenv and --env-file")
struct DotenvTests {
    @Test("dotenv: quotes, export, comments, a missing optional file; a block's dotenv is its own")
    func dotenv() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write(
            ".env",
            """
            # settings
            export API_URL=http://127.0.0.1:1
            NAME = "two words"  # a comment
            RAW='a $b {{c}}'
            ESC="line1\\nline2"
            EMPTY=

            """)
        try space.write("inner.env", "ONLY_INSIDE=yes\n")
        let run = try await space.run(
            """
            dotenv ".env"
            dotenv "absent.env" optional
            a: sh "echo \\"=[$API_URL] [$NAME] [$RAW] [$EMPTY]\\"; printf '=%s\\\\n' \\"$ESC\\""
            inside: sequence {
              dotenv "inner.env"
              b: sh "echo =inside:$ONLY_INSIDE"
            }
            c: sh "echo =outside:${ONLY_INSIDE:-unset}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init).compactMap { line -> String? in
            guard let range = line.range(of: "] =") else { return nil }
            return String(line[range.upperBound...])
        }
        #expect(lines == ["[http://127.0.0.1:1] [two words] [a $b {{c}}] []", "line1", "inside:yes", "outside:unset"])
        #expect(run.stdout.contains("[a] line2"), "\\n in double quotes is a line break")
    }

    @Test("dotenv: a missing file fails with kind file (saying 'optional'); a malformed line says path:line:col")
    func failures() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let missing = try await space.run(
            """
            dotenv "absent.env"
            a: sh "true"
            """)
        #expect(missing.status == 1)
        #expect(missing.step("a")?["status"] as? String == "skipped")
        #expect(missing.stdout.contains("dotenv absent.env (file)"))
        #expect(missing.stdout.contains("write 'dotenv \"absent.env\" optional' if it may be absent"))
        try space.write("bad.env", "GOOD=1\n  NOT A PAIR\n")
        let bad = try await space.run(
            """
            dotenv "bad.env"
            catch file { log "=caught {{error.message}}" }
            """)
        #expect(bad.status == 0)
        #expect(bad.logLines(prefix: "=") == ["=caught bad.env:2:3: expected NAME=VALUE, but the line has no '='; comment a line out with '#'"])
    }

    @Test("--env-file: loaded before anything runs, for {{env.NAME}} and processes; a bad line is exit 2 with its place")
    func envFile() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("ci.env", "TOKEN_NAME='deploy bot'\n")
        let run = try await space.run(
            """
            log "={{env.TOKEN_NAME}}"
            a: sh "echo =$TOKEN_NAME"
            """, ["--env-file", "ci.env"])
        #expect(run.status == 0)
        #expect(run.logLines(prefix: "=") == ["=deploy bot"])
        #expect(run.stdout.contains("[a] =deploy bot"))
        try space.write("bad.env", "9LIVES=1\n")
        try space.write("test.workflow", "a: sh \"true\"\n")
        let bad = try await Binary.run(["--env-file", "bad.env", "test.workflow"], in: space.folder)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.env:1:1: the text before '=' cannot be a variable name"))
        let absent = try await Binary.run(["--env-file", "nope.env", "test.workflow"], in: space.folder)
        #expect(absent.status == 2)
        #expect(absent.stderr.contains("--env-file nope.env: No such file or directory"))
    }
}
