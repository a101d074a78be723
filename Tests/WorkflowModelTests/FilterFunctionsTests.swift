import Testing

@testable import PromiseEngine
@testable import WorkflowModel

@Suite("Filters")
struct FilterFunctionsTests {
    @Test func trim() {
        #expect(Filter.trim.apply(to: " \t a b \n") == "a b")
        #expect(Filter.trim.apply(to: " \n ") == "")
    }

    @Test func shell() {
        #expect(Filter.shell.apply(to: "it's a $x") == #"'it'\''s a $x'"#)
        #expect(Filter.shell.apply(to: "") == "''")
        // An apostrophe with a combining mark after it is one Character to
        // Swift but an apostrophe to the shell: it must still be escaped.
        let sneaky = "x'\u{301}; touch pwned; echo '"
        let expected = #"'x'\''"# + "\u{301}" + #"; touch pwned; echo '\'''"#
        #expect(Array(Filter.shell.apply(to: sneaky).utf8) == Array(expected.utf8))
    }

    @Test func json() {
        #expect(Filter.json.apply(to: "a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test func url() {
        #expect(Filter.url.apply(to: "a b/c?d=é~") == "a%20b%2Fc%3Fd%3D%C3%A9~")
    }

    @Test(
        "path filters: base, stem, ext, dir as basename, dirname and a last-dot extension give them",
        arguments: [
            ("src/a.c", "a.c", "a", ".c", "src"), ("a.c", "a.c", "a", ".c", "."), ("/x/y/lib.tar.gz", "lib.tar.gz", "lib.tar", ".gz", "/x/y"),
            ("src/.bashrc", ".bashrc", ".bashrc", "", "src"), ("out/", "out", "out", "", "."), ("/a", "a", "a", "", "/"),
            ("Makefile", "Makefile", "Makefile", "", "."), ("v1.", "v1.", "v1.", "", "."),
        ])
    func pathFilters(_ path: String, _ base: String, _ stem: String, _ ext: String, _ dir: String) {
        #expect(Filter.base.apply(to: path) == base)
        #expect(Filter.stem.apply(to: path) == stem)
        #expect(Filter.ext.apply(to: path) == ext)
        #expect(Filter.dir.apply(to: path) == dir)
    }
}
