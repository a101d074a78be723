import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The shape Jenkins' JUnit schema (and GitHub's, GitLab's readers) expect:
/// `testsuites` > `testsuite` > `testcase` (name, classname, a decimal
/// time), each holding at most one of `failure` / `error` / `skipped`,
/// then `system-out` / `system-err`; `tests`, `failures`, `skipped` on
/// the suite equal to what it holds. `problems` lists every departure.
final class JUnitShape: NSObject, XMLParserDelegate {
    private(set) var problems: [String] = []
    private(set) var cases: [(name: String, outcome: String?, out: String, err: String, failureType: String?)] = []
    private var stack: [String] = []
    private var suite: [String: String] = [:]
    private var text = ""

    /// The report `name` a run wrote in `space`, read and checked: a test
    /// fails on any departure from the shape.
    static func read(_ space: Workspace, _ name: String = "junit.xml") throws -> JUnitShape {
        let data = try #require(space.read(name)?.data(using: .utf8), "\(name) was written")
        let shape = check(data)
        #expect(shape.problems.isEmpty, "JUnit shape: \(shape.problems)")
        return shape
    }

    static func check(_ data: Data) -> JUnitShape {
        let shape = JUnitShape()
        let parser = XMLParser(data: data)
        parser.delegate = shape
        if !parser.parse() { shape.problems.append("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
        shape.finish()
        return shape
    }

    private static let allowedParents: [String: Set<String>] = [
        "testsuites": [""], "testsuite": ["testsuites", ""], "testcase": ["testsuite"],
        "failure": ["testcase"], "error": ["testcase"], "skipped": ["testcase"],
        "system-out": ["testcase", "testsuite"], "system-err": ["testcase", "testsuite"], "properties": ["testsuite"],
        "property": ["properties"],
    ]

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        let parent = stack.last ?? ""
        if let allowed = Self.allowedParents[name] {
            if !allowed.contains(parent) { problems.append("<\(name)> inside <\(parent)>") }
        } else {
            problems.append("unknown element <\(name)>")
        }
        switch name {
        case "testsuite":
            suite = attributes
            for required in ["name", "tests", "failures", "errors", "skipped", "time"] where attributes[required] == nil {
                problems.append("testsuite without \(required)")
            }
        case "testcase":
            for required in ["name", "classname", "time"] where attributes[required] == nil {
                problems.append("testcase without \(required)")
            }
            if let time = attributes["time"], Double(time) == nil { problems.append("testcase time '\(time)' is not a number") }
            cases.append((attributes["name"] ?? "?", nil, "", "", nil))
        case "failure", "error", "skipped":
            if let last = cases.last, last.outcome != nil { problems.append("testcase \(last.name) has two outcomes") }
            if !cases.isEmpty {
                cases[cases.count - 1].outcome = name
                cases[cases.count - 1].failureType = attributes["type"]
            }
            if name != "skipped", attributes["message"] == nil { problems.append("<\(name)> without message") }
        default: break
        }
        stack.append(name)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
        guard !cases.isEmpty, stack.last == "testcase" else { return }
        if name == "system-out" { cases[cases.count - 1].out = text }
        if name == "system-err" { cases[cases.count - 1].err = text }
    }

    private func finish() {
        let count = { (outcome: String) in self.cases.filter { $0.outcome == outcome }.count }
        if suite["tests"] != String(cases.count) { problems.append("tests=\(suite["tests"] ?? "nil") but \(cases.count) testcases") }
        if suite["failures"] != String(count("failure")) {
            problems.append("failures=\(suite["failures"] ?? "nil") but \(count("failure")) failures")
        }
        if suite["skipped"] != String(count("skipped")) { problems.append("skipped=\(suite["skipped"] ?? "nil") but \(count("skipped")) skipped") }
    }

    func testcase(_ name: String) -> (name: String, outcome: String?, out: String, err: String, failureType: String?)? {
        cases.first { $0.name == name }
    }

    var failures: Int { Int(suite["failures"] ?? "") ?? -1 }
}
