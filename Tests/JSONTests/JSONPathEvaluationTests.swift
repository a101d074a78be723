import Testing

@testable import JSON

@Suite("JSON path evaluation")
struct JSONPathEvaluationTests {
    let document = try! JSONDocument.parse(
        #"""
        {"items": [{"id": 42, "tags": ["a", "b"]}, {"id": 7}], "odd key": {"x\"y": 1}, "empty": [], "n": null}
        """#)

    /// A path parsed as the language parses it.
    private func path(_ text: String) throws -> JSONPath {
        let bytes = Array(text.utf8)
        return try JSONPath.parse(bytes, from: 0, to: bytes.count).0
    }

    @Test(
        arguments: [
            (".", nil),
            (".items[0].id", "42"),
            (".items[1].id", "7"),
            (".items[-1].id", "7"),
            (".items[0].tags[-2]", "a"),
            (#"["odd key"]["x\"y"]"#, "1"),
            (".n", "null"),
            (".items[0].tags", #"["a","b"]"#),
        ] as [(String, String?)])
    func pathsLeadToValues(_ text: String, _ expected: String?) throws {
        let value = try document.value(at: try path(text))
        if let expected { #expect(value.textValue == expected) } else { #expect(value == document) }
    }

    @Test(arguments: [
        (".missing", #"no key "missing""#),
        (".items[2]", "at .items: index 2 out of range (2 elements)"),
        (".items[-3]", "at .items: index -3 out of range (2 elements)"),
        (".empty[0]", "at .empty: index 0 out of range (0 elements)"),
        (".items[0].id.deeper", #"at .items[0].id: number has no key "deeper""#),
        (".items.id", #"at .items: array has no key "id""#),
        (".n[0]", "at .n: null has no index [0]"),
    ])
    func pathsThatLeadNowhereSayWhere(_ text: String, _ message: String) throws {
        #expect(throws: JSONPathError.self) { try document.value(at: try path(text)) }
        do {
            _ = try document.value(at: try path(text))
        } catch let error as JSONPathError {
            #expect(error.description == message)
        }
        #expect(document[try path(text)] == nil)
    }
}
