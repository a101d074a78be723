import Foundation
import Testing

/// Hurl's xpath end to end: XPath 1.0 on HTML (libxml2's HTML parser,
/// tag soup included) and XML bodies from the tests' server, through the
/// system's libxml2 loaded at run time; a clear error naming the library
/// when it cannot be loaded.
@Suite("End to end: xpath on HTML and XML bodies")
struct HurlXPathTests {
    private func run(_ workflow: String, in space: Workspace, environment: [String: String] = [:]) async throws -> WorkflowRun {
        let base = try await TestServers.plain()
        return try await space.run("workflow \"xpath\"\nvar base = \"\(base)\"\n" + workflow, environment: environment)
    }

    @Test("an HTML page with unclosed tags: strings, node sets, counts, booleans, attributes; failing with what came")
    func html() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            a: http GET "{{base}}/page.html" {
              expect xpath "string(//title)" == "Café menu"
              expect xpath "//li" count == 3
              expect xpath "//li" contains "Coffee"
              expect xpath "//p" == ["First", "Second\\norder\\n"]
              expect xpath "normalize-space(//h1[@class='title'])" == "Menu"
              expect xpath "count(//li)" == 3
              expect xpath "boolean(//table)" == false
              expect xpath "//table" not exists
              expect xpath "//ul[@id='items']" exists
              expect xpath "string(//a/@href)" | split "?" | last == "item=tea&n=2"
              expect xpath "//li" | nth 2 == "Cake"
              capture first = xpath "string(//li[1])"
              capture items = xpath "//li"
            }
            log "={{a.first}} {{a.items}} {{a.items | count}}"
            parallel keep-going {
              b: http GET "{{base}}/page.html" { expect xpath "//li" count == 4 }
              c: http GET "{{base}}/page.html" { expect xpath "string(//title)" startsWith "Menu" }
              d: http GET "{{base}}/page.html" { expect xpath "//table" exists }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "log@18:1 succeeded", "b failed", "c failed", "d failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b") == #"expected xpath "//li" count == 4, but it has 3: ["Tea","Coffee","Cake"]"#)
        #expect(run.errorMessage(of: "c") == #"expected xpath "string(//title)" to start with "Menu", got "Café menu""#)
        #expect(run.errorMessage(of: "d") == #"expected xpath "//table" to exist, but it selects nothing"#)
        #expect(run.logLines(prefix: "=") == [#"=Tea ["Tea","Coffee","Cake"] 3"#], "\(run.stdout)")
    }

    @Test("an XML document: numbers, sums, attributes; a body that is not XML and an expression that is not XPath fail saying so")
    func xml() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await run(
            """
            parallel keep-going {
              a: http GET "{{base}}/feed.xml" {
                expect xpath "string(/feed/title)" == "Releases"
                expect xpath "count(//entry)" == 3
                expect xpath "sum(//size)" == 42.5
                expect xpath "//entry[@id='2']/version" == ["1.1"]
                expect xpath "//entry/@id" == ["1", "2", "3"]
                expect xpath "//entry[last()]/version" | first | toFloat >= 2
                expect xpath "number(//entry[1]/size) > 5" == true
              }
              b: http GET "{{base}}/broken.xml" { expect xpath "//entry" exists }
              c: http GET "{{base}}/feed.xml" { expect xpath "//entry[" exists }
              d: http GET "{{base}}/json" { capture x = xpath "//a" }
            }
            """, in: space)
        #expect(run.statuses == ["a succeeded", "b failed", "c failed", "d failed"], "\(run.stdout)\(run.stderr)")
        #expect(run.errorMessage(of: "b").hasPrefix(#"expected xpath "//entry" to exist, but the body is not XML: "#), "\(run.errorMessage(of: "b"))")
        #expect(run.errorMessage(of: "c").hasPrefix(#"expected xpath "//entry[" to exist, but "#), "\(run.errorMessage(of: "c"))")
        #expect(run.errorMessage(of: "c").lowercased().contains("expression"), "\(run.errorMessage(of: "c"))")
        #expect(run.errorMessage(of: "d").hasPrefix(#"capture x = xpath "//a", but the body is not XML"#), "\(run.errorMessage(of: "d"))")
    }

    @Test("without a loadable libxml2, an xpath step fails naming the library; a run without xpath never loads it")
    func missingLibrary() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let fake = space.folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: fake.appendingPathComponent("libxml2.so.2"))
        let run = try await run(
            """
            plain: http GET "{{base}}/page.html" { expect body contains "Menu" }
            a: http GET "{{base}}/page.html" { expect xpath "//li" count == 3 }
            """, in: space, environment: ["LD_LIBRARY_PATH": fake.path])
        #expect(run.statuses == ["plain succeeded", "a failed"], "\(run.stdout)\(run.stderr)")
        let message = run.errorMessage(of: "a")
        #expect(
            message.hasPrefix(#"expected xpath "//li" count == 3, but xpath needs libxml2 (libxml2.so.2), which could not be loaded: "#),
            "\(message)")
        #expect(message.contains("apt-get install libxml2"), "\(message)")
    }

    @Test("check knows xpath: a capture source and a subject, only for http steps; fmt keeps it")
    func checkAndFormat() async throws {
        try await Workspace.expectCheckRefuses(
            """
            workflow "bad"
            a: sh "true" { expect xpath "//a" exists }
            b: http GET "http://127.0.0.1:1/" { expect xpth "//a" exists }
            """,
            with: [
                "bad.workflow:2:23: error: 'expect xpath' does not apply to sh steps",
                "bad.workflow:3:44: error: unknown expectation 'xpth'; did you mean 'xpath'?",
            ])
        let text = """
            workflow "t"
            a: http GET "http://127.0.0.1:1/x" {
              expect xpath "count(//li)" == 3
              capture title = xpath "string(//title)" | upper
            }

            """
        let space = try Workspace()
        defer { space.remove() }
        let formatted = try await Binary.run(["fmt", "-"], stdin: text, in: space.folder)
        #expect(formatted.stdout == text, "\(formatted.stdout)\(formatted.stderr)")
    }
}
