import Testing

@testable import JSON

@Suite("JSON paths")
struct JSONPathTests {
    private func parse(_ text: String) throws(JSONPath.ParseError) -> JSONPath {
        let bytes = Array(text.utf8)
        let (path, end) = try JSONPath.parse(bytes, from: 0, to: bytes.count)
        guard end == bytes.count else { throw JSONPath.ParseError(message: "trailing", offset: end) }
        return path
    }

    @Test func forms() throws {
        #expect(try parse(".") == JSONPath([]))
        #expect(try parse(".a") == JSONPath([.key("a")]))
        #expect(try parse(".a.b-c_d") == JSONPath([.key("a"), .key("b-c_d")]))
        #expect(try parse("[0]") == JSONPath([.index(0)]))
        #expect(try parse("[-1]") == JSONPath([.index(-1)]))
        #expect(try parse(".items[2].id") == JSONPath([.key("items"), .index(2), .key("id")]))
        #expect(try parse(#"["odd key"]["a\"b"]"#) == JSONPath([.key("odd key"), .key("a\"b")]))
        #expect(try parse(".[0]") == JSONPath([.index(0)]))
    }

    @Test func errors() {
        #expect(throws: JSONPath.ParseError.self) { try parse("") }
        #expect(throws: JSONPath.ParseError.self) { try parse("a") }
        #expect(throws: JSONPath.ParseError.self) { try parse(".a.") }
        #expect(throws: JSONPath.ParseError.self) { try parse("[x]") }
        #expect(throws: JSONPath.ParseError.self) { try parse("[0") }
        #expect(throws: JSONPath.ParseError.self) { try parse(#"["a"#) }
    }

    @Test func description() throws {
        #expect(JSONPath([]).description == ".")
        #expect(JSONPath([.key("a"), .index(1), .key("odd key")]).description == #".a[1]["odd key"]"#)
        #expect(try parse(JSONPath([.key("x y"), .index(-2)]).description) == JSONPath([.key("x y"), .index(-2)]))
    }
}
