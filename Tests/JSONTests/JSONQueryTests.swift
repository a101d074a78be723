import Testing

@testable import JSON

@Suite("JSONPath queries: wildcards, filters, recursive descent")
struct JSONQueryTests {
    let document = try! JSONDocument.parse(
        #"""
        {"items": [{"id": 1, "price": 5, "name": "pen"}, {"id": 2, "price": 12, "name": "ink"},
                   {"id": 3, "price": 20.5, "name": "pad", "tags": {"id": 9}}, {"id": 4, "name": "cap"}],
         "owner": {"id": 7}}
        """#)

    private func parse(_ text: String) throws(JSONPath.ParseError) -> JSONPath {
        let bytes = Array(text.utf8)
        let (path, end) = try JSONPath.parse(bytes, from: 0, to: bytes.count)
        guard end == bytes.count else { throw JSONPath.ParseError(message: "trailing", offset: end) }
        return path
    }

    private func select(_ text: String) throws -> String {
        try document.value(at: try parse(text)).serialized
    }

    @Test(arguments: [
        ("$.items[*].id", "[1,2,3,4]"),
        ("$.items.*.id", "[1,2,3,4]"),
        ("$.items[?(@.price > 10)].name", #"["ink","pad"]"#),
        ("$.items[?(@.price <= 12)].id", "[1,2]"),
        ("$.items[?(@.name == 'pad')].id", "[3]"),
        (#"$.items[?(@.name != "pen")].id"#, "[2,3,4]"),
        ("$.items[?(@.tags)].id", "[3]"),
        ("$.items[?(@.price == 99)]", "[]"),
        ("$..id", "[1,2,3,9,4,7]"),
        ("$.owner..id", "[7]"),
        ("$.items[-1].name", #""cap""#),
        ("$['owner'].id", "7"),
        ("$", ""),
    ])
    func queriesSelect(_ path: String, _ expected: String) throws {
        let got = try select(path)
        #expect(got == (expected.isEmpty ? document.serialized : expected))
    }

    @Test func aPathWithoutWildcardsGivesOneValue() throws {
        #expect(try parse("$.items[0].id").selectsMany == false)
        #expect(try select("$.items[0].id") == "1")
        #expect(throws: JSONPathError.self) { try document.value(at: try parse("$.missing")) }
    }

    @Test func dotPathsKeepTheirMeaning() {
        #expect(throws: JSONPath.ParseError.self) { try parse(".items[*]") }
    }

    @Test(arguments: ["$.", "$.items[?(price > 1)]", "$.items[?(@.price ~ 1)]", "$.items[?(@.price > [1])]", "$.items[?(@.x == 1]", "$.items[*"])
    func malformedQueriesAreRefused(_ path: String) {
        #expect(throws: JSONPath.ParseError.self) { try parse(path) }
    }

    @Test(arguments: ["$.items[*].id", "$..id", "$.items[?(@.price > 10)].name", "$..[*]", #"$.a["odd key"][?(@.x == "y")]"#])
    func descriptionsReadBack(_ path: String) throws {
        let parsed = try parse(path)
        #expect(parsed.description == path)
        #expect(try parse(parsed.description) == parsed)
    }
}
