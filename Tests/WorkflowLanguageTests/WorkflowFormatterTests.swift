import Testing
import WorkflowLanguage
import WorkflowModel

/// `fmt`'s layout of what the end-to-end tests do not reach line by line.
@Suite("fmt: the layout")
struct WorkflowFormatterTests {
    private func format(_ text: String) throws -> String {
        try #require(WorkflowFormatter.format(SourceFile(path: "t.workflow", text: text)), "\(text) did not format")
    }

    @Test("a list written over several lines keeps its items indented under it and its ] back at the statement, at any depth")
    func multiLineLists() throws {
        let text = """
            foreach f in [
            "a",

                  "b",
              ] {
              log "{{f}}"
            }
            sequence {
            foreach g in [
            "x",
            "y"] {
            log "{{g}}"
            }
            }

            """
        let expected = """
            foreach f in [
              "a",
              "b",
            ] {
              log "{{f}}"
            }
            sequence {
              foreach g in [
                "x",
                "y"] {
                log "{{g}}"
              }
            }

            """
        let formatted = try format(text)
        #expect(formatted == expected, "\(formatted)")
        #expect(try format(formatted) == formatted, "formatting twice changes nothing")
    }
}
