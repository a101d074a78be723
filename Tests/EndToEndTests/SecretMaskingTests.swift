import Foundation
import Testing

/// docs/language.md: a `secret` is masked in every report, in every form.
/// Each place a secret can reach (a URL's query, a `query` attribute, a
/// failure message that quotes a body cut at 200 characters, a process's
/// stderr tail cut from the front, a report's output tail cut at
/// `--report-output`), in each report (console, JSON, JUnit, Markdown, HTML).
@Suite("End to end: secrets masked in every report")
struct SecretMaskingTests {
    static let token = "ghp_AAAABBBBCCCCDDDDEEEE"

    /// The secret whole and every piece of it of four characters or more
    /// that starts or ends it (what a cut leaves).
    static let pieces: [String] = {
        let characters = Array(token)
        var pieces: [String] = []
        for length in 4...characters.count {
            pieces.append(String(characters.prefix(length)))
            pieces.append(String(characters.suffix(length)))
        }
        return pieces
    }()

    static func leaks(_ text: String) -> [String] {
        pieces.filter { text.contains($0) }
    }

    @Test("a secret in a URL, a query, a body excerpt and output tails cut across it never shows")
    func everyPlaceEveryReport() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        // The echo's body starts `{"method": "GET", "path": "/echo?p=`
        // (35 characters): 157 more put the secret across the 200th.
        let pad = String(repeating: "x", count: 157)
        // 1 KiB of output tail: the secret across the cut 1,024 bytes
        // from the end; the stderr excerpt's 200 characters, likewise.
        let after = String(repeating: "y", count: 1024 - 10)
        let afterExcerpt = String(repeating: "z", count: 200 - 10)
        let run = try await space.run(
            """
            workflow "secrets"
            secret token = "\(Self.token)"
            var base = "\(base)"
            inline: http GET "{{base}}/echo?t={{token}}"
            query: http GET "{{base}}/echo" {
              query t "{{token}}"
              header "Authorization" "Bearer {{token}}"
            }
            excerpt: http GET "{{base}}/echo?p=\(pad)&t={{token}}" {
              expect status 201
              allow-failure
            }
            tail: sh "printf '%s%s' '{{token}}' '\(after)'" {
              allow-failure
              expect stdout contains "never"
            }
            stderr: sh "printf '%s%s' '{{token}}' '\(afterExcerpt)' >&2; exit 3" {
              allow-failure
            }
            """,
            [
                "-v", "--report-output", "1", "--report", "junit=junit.xml", "--report", "markdown=summary.md",
                "--report", "html=page.html",
            ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["inline succeeded", "query succeeded", "excerpt failed", "tail failed", "stderr failed"])
        let reports = ["report.json", "junit.xml", "summary.md", "page.html"]
        for name in reports {
            let text = try #require(space.read(name), "\(name) was written")
            #expect(Self.leaks(text).isEmpty, "\(name) shows \(Self.leaks(text))")
        }
        #expect(Self.leaks(run.stdout + run.stderr).isEmpty, "the console shows \(Self.leaks(run.stdout + run.stderr))")
        // What is masked is still there around the mask.
        #expect(run.step("inline")?["url"] as? String == "\(base)/echo?t=***")
        #expect(run.step("query")?["url"] as? String == "\(base)/echo?t=***")
        let excerpt = try #require(run.error(of: "excerpt")?["message"] as? String)
        #expect(excerpt.hasSuffix("&t=***\"…"), "\(excerpt)")
        let stderr = try #require(run.error(of: "stderr")?["message"] as? String)
        #expect(stderr.contains("…\"***zzz"), "\(stderr)")
        let output = try #require(run.step("tail")?["output"] as? [String: Any])
        let tail = try #require((output["stdout"] as? [String: Any])?["tail"] as? String)
        #expect(tail.hasPrefix("***yyy"), "\(tail)")
    }

    @Test("a secret with a space and a slash in a URL is masked as the request line carries it")
    func secretInARequestLine() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            secret word = "pa ss/wd-1234"
            get: http GET "\(base)/echo?t={{word}}"
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.step("get")?["url"] as? String == "\(base)/echo?t=***", "\(run.step("get") ?? [:])")
        #expect(!(run.reportText ?? "").contains("ss/wd-1234"))
    }

    @Test("Basic authentication made from a secret (basic-auth, a URL's user info) is masked when a server echoes it back")
    func basicAuthenticationEchoed() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let password = "Pa55-w0rd-from-var-7781"
        let word = "env w0rd/é:42"
        let withUser = base.replacingOccurrences(of: "http://", with: "http://ci:{{word | url}}@")
        // The echo answers the request's path and headers; the step fails
        // and shows it, and a log prints it whole.
        let quiet = #"header "User-Agent" ""; header "Accept" ""; header "Accept-Encoding" ""; expect status 201; allow-failure"#
        let summary = space.path("step-summary.md")
        let run = try await space.run(
            """
            workflow "echoed"
            secret password = "not this one"
            secret word = "{{env.ECHO_WORD}}"
            auth: http GET "\(base)/echo" { basic-auth "ci" "{{password}}"; \(quiet) }
            userinfo: http GET "\(withUser)/echo?u={{word}}" { \(quiet) }
            log "{{auth.body}}"
            log "{{userinfo.body}}"
            """,
            [
                "-v", "--var", "password=\(password)", "--report", "junit=junit.xml", "--report", "markdown=summary.md",
                "--report", "html=page.html",
            ], environment: ["ECHO_WORD": word, "GITHUB_STEP_SUMMARY": summary])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.statuses == ["auth failed", "userinfo failed", "log@6:1 succeeded", "log@7:1 succeeded"], "\(run.statuses)")
        // What the server saw: the derived tokens were sent.
        #expect(run.stdout.contains(#""authorization": "Basic ***""#), "\(run.stdout)")
        var derived: [String] = [password, word]
        for secret in [password, word] {
            for form in [secret, secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret] {
                derived.append(Data("ci:\(form)".utf8).base64EncodedString())
            }
        }
        let shown =
            ["report.json", "junit.xml", "summary.md", "page.html"].map { ($0, space.read($0)) }
            + [("stdout", run.stdout), ("stderr", run.stderr), ("GITHUB_STEP_SUMMARY", try? String(contentsOfFile: summary, encoding: .utf8))]
        for (name, text) in shown {
            let text = try #require(text, "\(name) was written")
            #expect(!derived.contains { text.contains($0) }, "\(name) shows \(derived.filter { text.contains($0) })")
        }
    }
}
