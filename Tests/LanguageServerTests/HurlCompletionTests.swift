import Foundation
import LSPTestSupport
import Testing
import WorkflowModel

@testable import LanguageServer

/// Hurl's asserts in the editor, in process: the predicates where an
/// expectation's test comes (after its subject, and after `not`), the
/// certificate's fields after `certificate`, and what each one means on
/// hover; the lists are the language's own (`ValuePredicate`,
/// `CertificateField`).
@Suite("Language server: Hurl's predicates and certificate fields")
struct HurlCompletionTests {
    /// Each line ends where completion is asked (the cursor at its end).
    static let lines = [
        #"r: http GET "https://127.0.0.1:9/" {"#,
        #"  expect json "$.items[?(@.id > 1)].id" "#,
        #"  expect header "X-Id" not is"#,
        #"  expect body "#,
        #"  expect certificate "#,
        #"  expect certificate iss"#,
        #"  expect certificate start-date "#,
        #"  expect cookie "sid" attribute "Max-Age" "#,
        #"  capture until = certificate "#,
        #"  expect status "#,
        #"  expect json "$.a" == "#,
        #"  expect json "$.ip" isIpv4"#,
        #"  expect certificate expire-date > "2030-01-01T00:00:00Z""#,
        "}",
        "",
    ]

    private func labels(_ client: TestLanguageClient, line: Int) throws -> [String] {
        let result = try client.request("textDocument/completion", client.at("a.workflow", line, Self.lines[line].utf16.count)) as? [String: Any]
        return (result?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    private func hover(_ client: TestLanguageClient, line: Int, word: String) throws -> String {
        let column = try #require(Self.lines[line].range(of: word)).lowerBound.utf16Offset(in: Self.lines[line]) + 1
        let result = try client.request("textDocument/hover", client.at("a.workflow", line, column)) as? [String: Any]
        return (result?["contents"] as? [String: Any])?["value"] as? String ?? ""
    }

    @Test(
        "after a subject (a JSON path, a header, the body, a certificate field, a cookie attribute; after not) the predicates come; after certificate its fields"
    )
    func completion() throws {
        let client = try TestLanguageClient()
        try client.start()
        try client.open("a.workflow", Self.lines.joined(separator: "\n"))
        let predicates = ValuePredicate.allCases.map(\.rawValue)
        let fields = CertificateField.allCases.map(\.rawValue)
        for line in [1, 2, 3, 6, 7] {
            let offered = try labels(client, line: line)
            #expect(
                predicates.allSatisfy(offered.contains) && offered.contains("contains") && offered.contains("startsWith"),
                "line \(line) `\(Self.lines[line])`: \(offered)")
            #expect(!offered.contains("subject") && !offered.contains("status"), "line \(line): \(offered)")
        }
        for line in [4, 5, 8] {
            #expect(try labels(client, line: line) == fields, "line \(line) `\(Self.lines[line])`")
        }
        for line in [9, 10] {
            let offered = try labels(client, line: line)
            #expect(!offered.contains("isUuid") && !offered.contains("issuer"), "line \(line) `\(Self.lines[line])`: \(offered)")
        }
        #expect(try client.stop() == 0)
    }

    @Test("hover tells what a predicate and a certificate field are")
    func hovers() throws {
        let client = try TestLanguageClient()
        try client.start()
        try client.open("a.workflow", Self.lines.joined(separator: "\n"))
        let predicate = try hover(client, line: 11, word: "isIpv4")
        #expect(predicate.hasPrefix("**isIpv4**: a string holding an IPv4 address"), "\(predicate)")
        let field = try hover(client, line: 12, word: "expire-date")
        #expect(field.hasPrefix("**expire-date**: when the certificate expires, RFC 3339 in UTC"), "\(field)")
        #expect(try client.stop() == 0)
    }
}
