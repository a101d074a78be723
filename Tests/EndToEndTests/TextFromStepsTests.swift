import Foundation
import Testing

/// Text that comes from steps and servers (stderr, `fail` messages, values
/// a `log` shows, multipart names) leaves promise-run as text, never as
/// markup or commands: under GitHub Actions it makes no workflow command,
/// in a report no broken table or attribute, in a multipart body no header
/// (a CR LF pair is one Swift Character, so every escaper works on
/// scalars).
@Suite("End to end: text from steps and servers")
struct TextFromStepsTests {
    /// Lines as GitHub's runner reads a job's output: a break is LF, CR LF
    /// or a lone CR.
    private static func runnerLines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }

    @Test("under GitHub Actions, CR LF in stderr, a fail message or a log makes no workflow command; annotations stay one line")
    func noWorkflowCommandsFromStepText() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let fileName = "f\r\nX-Injected: 2.txt"
        try space.write(fileName, "file content")
        try space.write("summary.md", "")
        let run = try await space.run(
            """
            var base = "\(base)"
            log "logged\\r\\n::notice::from-log\\n  ::add-mask::log-mask"
            parallel {
              a: sh "printf 'one\\r\\n::add-mask::x\\r\\n::stop-commands::tok\\r\\n' >&2; exit 3"
              b: fail "x\\r\\n::warning::y 100%\\n  ::error::z"
              up: http POST "{{base}}/echo" {
                multipart "n\\r\\nX-Injected: 1" "value"
                multipart "quoted \\"name\\"" "second"
                multipart f file "f\\r\\nX-Injected: 2.txt"
                save "echo.json"
              }
            }
            """, ["--keep-going", "--report", "markdown=report.md", "--report", "junit=report.xml", "--report", "html=report.html"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": space.path("summary.md")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses.contains("up succeeded"), "\(run.stdout)\(run.stderr)")

        // No line GitHub reads as a command but promise-run's own
        // annotations, each one line with CR, LF and % escaped.
        var annotations: [Substring] = []
        for line in Self.runnerLines(run.stdout) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("::") || trimmed.hasPrefix("\\::") else { continue }
            #expect(
                trimmed.hasPrefix("\\::") || line.hasPrefix("::error ") || line.hasPrefix("::warning "),
                "a line GitHub would read as a command: \(line.debugDescription)\n\(run.stdout)")
            if line.hasPrefix("::") { annotations.append(line) }
        }
        let failAnnotation = try #require(annotations.first { $0.contains("title=b failed") }, "\(run.stdout)")
        #expect(failAnnotation.contains("::x%0A::warning::y 100%25%0A  ::error::z"), "\(failAnnotation)")
        let shAnnotation = try #require(annotations.first { $0.contains("title=a failed") }, "\(run.stdout)")
        #expect(shAnnotation.contains("one%0A::add-mask::x%0A::stop-commands::tok"), "\(shAnnotation)")
        #expect(run.stdout.contains("\\::warning::y 100%"), "the fail message shown, its command-like line marked\n\(run.stdout)")

        // Reports: every table row with the header's cells; no raw line
        // break inside an XML attribute; no raw CR in the HTML page.
        for name in ["report.md", "summary.md"] {
            let markdown = try #require(space.read(name))
            let shape = MarkdownShape(markdown)
            #expect(shape.problems.isEmpty, "\(name): \(shape.problems)\n\(markdown)")
            // A line break in a cell would end the table early.
            let steps = try #require(shape.tables.first { $0.first?.first == "step" }, "\(markdown)")
            #expect(steps.count == 5, "a header and the four steps' rows: \(steps)\n\(markdown)")
        }
        let junit = try #require(space.read("report.xml"))
        for attribute in junit.matches(of: /="[^"]*"/) {
            #expect(!attribute.output.unicodeScalars.contains { $0 == "\r" || $0 == "\n" }, "\(attribute.output.debugDescription)")
        }
        #expect(junit.contains("x&#13;&#10;::warning::y"), "\(junit)")
        let html = try #require(space.read("report.html"))
        #expect(!html.unicodeScalars.contains("\r"))

        // The server saw exactly the parts written, each with only its own
        // headers.
        let echo = try #require(space.read("echo.json"))
        let request = try #require(try JSONSerialization.jsonObject(with: Data(echo.utf8)) as? [String: Any])
        let headers = try #require(request["headers"] as? [String: String])
        let contentType = try #require(headers["content-type"])
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let body = try #require(request["body"] as? String)
        let parts = body.components(separatedBy: "--" + boundary).dropFirst().dropLast()
        #expect(parts.count == 3, "\(body.debugDescription)")
        var dispositions: [String] = []
        for part in parts {
            let head = try #require(part.components(separatedBy: "\r\n\r\n").first)
            let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            for line in lines {
                #expect(line.hasPrefix("Content-Disposition: ") || line.hasPrefix("Content-Type: "), "\(part.debugDescription)")
            }
            dispositions += lines.filter { $0.hasPrefix("Content-Disposition: ") }
        }
        #expect(
            dispositions == [
                "Content-Disposition: form-data; name=\"n%0D%0AX-Injected: 1\"",
                "Content-Disposition: form-data; name=\"quoted %22name%22\"",
                "Content-Disposition: form-data; name=\"f\"; filename=\"f%0D%0AX-Injected: 2.txt\"",
            ],
            "\(body.debugDescription)")
    }

    @Test("a multipart type with a line break or another control character: check refuses it written, the step fails when it is a value")
    func multipartTypeWithControlCharacters() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("a.txt", "a")
        try await space.expectCheckRefuses(
            """
            up: http POST "http://127.0.0.1:9/x" { multipart f file "a.txt" type "text/plain\\r\\nX-Injected: 1" }
            """, with: ["bad.workflow:1:", "a media type cannot hold control characters"])
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            var base = "\(base)"
            var kind = "text/plain\\r\\nX-Injected: 1"
            up: http POST "{{base}}/echo" { multipart f file "a.txt" type "{{kind}}" }
            """)
        #expect(run.status == 1)
        let message = run.error(of: "up")?["message"] as? String ?? ""
        #expect(
            message.contains("the type of multipart part 'f' has a control character (\\r); it cannot be sent"),
            "\(message)\n\(run.stdout)")
    }

    @Test("no report keeps a control character from a step's output: Markdown, JUnit and HTML show it escaped")
    func controlCharactersInReports() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            a: sh 'printf "bad\\001x\\033[2Jy\\n" >&2; exit 1'
            """, ["--report", "markdown=report.md", "--report", "junit=report.xml", "--report", "html=report.html"])
        #expect(run.status == 1)
        for name in ["report.md", "report.xml", "report.html"] {
            let bytes = Array((space.read(name) ?? "").utf8)
            #expect(!bytes.isEmpty, "\(name) was written")
            #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 }, "\(name) holds a control character")
        }
        #expect(space.read("report.md")?.contains("bad\\x01x\\e[2Jy") == true, "\(space.read("report.md") ?? "")")
    }
}
