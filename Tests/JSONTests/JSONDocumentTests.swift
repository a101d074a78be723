import Testing

@testable import JSON

@Suite("JSON document")
struct JSONDocumentTests {
    @Test func parsesEveryKindOfValue() throws {
        let document = try JSONDocument.parse(
            """
            { "s": "text", "n": -12.5e2, "i": 42, "t": true, "f": false, "z": null,
              "a": [1, [2, {}], []], "o": {"k": "v"} }
            """)
        guard case .object(let object) = document else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["s", "n", "i", "t", "f", "z", "a", "o"])
        #expect(object["s"] == .string("text"))
        #expect(object["n"] == .number(JSONNumber(text: "-12.5e2")))
        #expect(object["i"] == .number(JSONNumber(42)))
        #expect(object["t"] == .bool(true))
        #expect(object["f"] == .bool(false))
        #expect(object["z"] == .null)
        #expect(object["a"] == .array([.number(JSONNumber(1)), .array([.number(JSONNumber(2)), .object(JSONObject())]), .array([])]))
        #expect(object["o"] == .object(JSONObject([.init(key: "k", value: .string("v"))])))
    }

    @Test func decodesEscapesAndUnicode() throws {
        let text = #""a\"b\\c\/d\b\f\n\r\t \u00e9 \u20AC \ud83d\ude00 é""#
        #expect(try JSONDocument.parse(text) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t é € 😀 é"))
        // A lone surrogate becomes U+FFFD rather than failing.
        #expect(try JSONDocument.parse(#""\ud83d x""#) == .string("\u{FFFD} x"))
        #expect(try JSONDocument.parse(#""\udc00""#) == .string("\u{FFFD}"))
    }

    @Test func acceptsWhiteSpaceAndAByteOrderMark() throws {
        #expect(try JSONDocument.parse(" \t\r\n 1 \n") == .number(JSONNumber(1)))
        #expect(try JSONDocument.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == .array([]))
    }

    @Test(arguments: [
        ("", "unexpected end of JSON at byte 0"),
        ("{", "expected a string key in object at byte 1"),
        ("[1,]", "unexpected character ']' at byte 3"),
        ("[1 2]", "expected ',' or ']' in array at byte 3"),
        ("{\"a\" 1}", "expected ':' after object key at byte 5"),
        ("01", "unexpected text after the JSON value at byte 1"),
        ("-", "expected a digit in number at byte 1"),
        ("1.", "expected a digit after '.' in number at byte 2"),
        ("1e+", "expected a digit in the exponent of number at byte 3"),
        ("tru", "unexpected end of JSON at byte 0"),
        ("nul1", "invalid literal; expected 'null' at byte 0"),
        ("\"abc", "unterminated string at byte 4"),
        ("\"a\u{01}\"", "control character in string (escape it) at byte 2"),
        ("\"\\x\"", "invalid escape '\\x' in string at byte 2"),
        ("\"\\u12G4\"", "expected a hex digit in \\u escape at byte 5"),
        ("{} {}", "unexpected text after the JSON value at byte 3"),
        ("'a'", "unexpected character ''' at byte 0"),
    ])
    func rejectsInvalidTextSayingWhereAndWhy(_ text: String, _ message: String) {
        #expect(throws: JSONParseError.self) { try JSONDocument.parse(text) }
        do {
            _ = try JSONDocument.parse(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func deepNestingIsRejectedNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONDocument.parse(deep) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONDocument.parse(fine) }
    }

    @Test func duplicateKeysTakeTheLast() throws {
        let document = try JSONDocument.parse(#"{"a": 1, "a": 2}"#)
        #expect(document[JSONPath([.key("a")])] == .number(JSONNumber(2)))
    }

    @Test func numbersCompareByValue() {
        #expect(JSONNumber.compare(JSONNumber(text: "42"), JSONNumber(text: "42.0")) == 0)
        #expect(JSONNumber.compare(JSONNumber(text: "1e2"), JSONNumber(100)) == 0)
        #expect(JSONNumber.compare(JSONNumber(text: "9007199254740993"), JSONNumber(9_007_199_254_740_992)) == 1)
        #expect(JSONNumber.compare(JSONNumber(text: "-0.5"), JSONNumber(0)) == -1)
        #expect(JSONNumber(text: "12345678901234567890").integerValue == nil)
        #expect(JSONNumber(text: "12345678901234567890").doubleValue == 12345678901234567890.0)
    }

    @Test func textValueIsHowAValueIsInterpolated() throws {
        let document = try JSONDocument.parse(#"{"s": "plain \"q\"", "n": 1.50, "b": true, "z": null, "a": [1, "x", {"k": [] }]}"#)
        #expect(document[JSONPath([.key("s")])]?.textValue == "plain \"q\"")
        #expect(document[JSONPath([.key("n")])]?.textValue == "1.50")
        #expect(document[JSONPath([.key("b")])]?.textValue == "true")
        #expect(document[JSONPath([.key("z")])]?.textValue == "null")
        #expect(document[JSONPath([.key("a")])]?.textValue == #"[1,"x",{"k":[]}]"#)
        #expect(document.serialized == #"{"s":"plain \"q\"","n":1.50,"b":true,"z":null,"a":[1,"x",{"k":[]}]}"#)
        #expect(JSONDocument.string("line\nbreak\u{01}").serialized == #""line\nbreak\u0001""#)
    }

    @Test func serializedTextParsesBackToTheSameDocument() throws {
        let text = #"{"a":[1,2.5,-3e-2,"\u00e9\n",{"b":null,"c":[true,false]}],"d":{}}"#
        let document = try JSONDocument.parse(text)
        #expect(try JSONDocument.parse(document.serialized) == document)
    }
}
