import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The reports (docs/reports.md), from a real run, parsed as their consumers
/// would.
@Suite("End to end: reports")
struct ReportsEndToEndTests {
    static let workflow = """
        workflow "reported"
        build: sh "echo built"
        parallel keep-going {
          unit: sh "echo 'assertion failed: 1 != 2' >&2; exit 1"
          lint: sh "sleep 0.2"
        }
        deploy: sh "true"
        """

    @Test("json: the documented fields for the run and every step")
    func json() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(Self.workflow)
        #expect(run.status == 1)
        let report = try #require(run.report)
        #expect(report["workflow"] as? String == "reported")
        #expect(report["status"] as? String == "failed")
        #expect((report["startedAt"] as? String)?.contains("T") == true)
        #expect(report["durationSeconds"] is Double)
        #expect(run.statuses == ["build succeeded", "unit failed", "lint succeeded", "deploy skipped"])
        let unit = try #require(run.step("unit"))
        #expect(unit["kind"] as? String == "sh")
        #expect(unit["attempts"] as? Int == 1)
        #expect(unit["exit"] as? Int == 1)
        let error = unit["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "exit")
        #expect((error?["stderrTail"] as? String)?.contains("assertion failed") == true)
        #expect(run.step("deploy")?["startedAt"] is NSNull)
    }

    @Test("junit: one testcase per step, failures and skips as CI systems expect")
    func junit() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let outcome = try await Binary.run(["--report", "junit=out/junit.xml", "test.workflow"], in: space.folder)
        #expect(outcome.status == 1)
        let data = try #require(space.read("out/junit.xml")?.data(using: .utf8))
        let collector = JUnitCollector()
        let parser = XMLParser(data: data)
        parser.delegate = collector
        #expect(parser.parse(), "the JUnit report is well-formed XML")
        #expect(collector.testcases == ["build", "unit", "lint", "deploy"])
        #expect(collector.failures == ["unit"])
        #expect(collector.skipped == ["deploy"])
        #expect(collector.suiteAttributes["tests"] == "4")
        #expect(collector.suiteAttributes["failures"] == "1")
    }

    @Test("html: one self-contained page with a timeline and the failure")
    func html() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        _ = try await Binary.run(["--report", "html=report.html", "test.workflow"], in: space.folder)
        let page = try #require(space.read("report.html"))
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("id=\"timeline\""))
        #expect(page.contains("assertion failed"))
        for reference in ["src=\"", "href=", "<link", "@import", "url("] {
            #expect(!page.contains(reference), "nothing to fetch: found \(reference)")
        }
    }

    @Test("GitHub Actions annotations for failures")
    func annotations() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("test.workflow", Self.workflow)
        let outcome = try await Binary.run(["test.workflow"], in: space.folder, environment: ["GITHUB_ACTIONS": "true"])
        #expect(outcome.stdout.contains("::error file=test.workflow,line=4,col=3,title=unit failed (exit)::"))
    }
}

final class JUnitCollector: NSObject, XMLParserDelegate {
    var testcases: [String] = []
    var failures: [String] = []
    var skipped: [String] = []
    var suiteAttributes: [String: String] = [:]
    private var current: String?

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        switch name {
        case "testsuite": suiteAttributes = attributes
        case "testcase":
            current = attributes["name"]
            if let current { testcases.append(current) }
        case "failure": if let current { failures.append(current) }
        case "skipped": if let current { skipped.append(current) }
        default: break
        }
    }
}
