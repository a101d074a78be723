import Foundation
import RunnerSystem
import Testing

/// The one matcher of `sources`, `generates` and the cache (SourceGlob) and
/// the language's `glob()` (FileSystem.glob), on a real folder: names that
/// start with `.`, `**` at any depth, folders standing for their files,
/// links matched as links and never walked through.
@Suite("Globbing")
struct GlobTests {
    private let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("glob-\(UUID().uuidString)").path
        for file in [
            "src/a.c", "src/b.h", "src/.hidden.c", "src/deep/er/c.c", "src/.git/config", "out/x.o", ".promise-run/steps/s.json",
            "src/.promise-run/stat-cache",
        ] {
            let path = root + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/src/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: root + "/src/outside", withDestinationPath: "/usr/include")
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    @Test("'*' and '**' skip names that start with '.' unless the pattern's segment does; '**' never walks through a link")
    func wildcards() {
        defer { cleanUp() }
        #expect(FileSystem.glob("src/*.c", base: root) == ["src/a.c"])
        #expect(FileSystem.glob("src/.*.c", base: root) == ["src/.hidden.c"])
        #expect(FileSystem.glob("src/**/*.c", base: root) == ["src/a.c", "src/deep/er/c.c"])
        #expect(FileSystem.glob("/nonexistent-\(UUID())/*", base: root) == [])
        // A literal path is one stat: it names a link too.
        #expect(FileSystem.glob("src/loop", base: root) == ["src/loop"])
    }

    @Test("a folder stands for every file below it, dotfiles included, links as links, the store left out")
    func folders() {
        defer { cleanUp() }
        let below = Set(SourceGlob.matches("src", base: root))
        #expect(below == ["src/a.c", "src/b.h", "src/.hidden.c", "src/deep/er/c.c", "src/.git/config", "src/loop", "src/outside"])
        #expect(Set(SourceGlob.matches("src/", base: root)) == below)
        #expect(Set(SourceGlob.matches("src/**", base: root)).isSuperset(of: ["src/a.c", "src/deep/er/c.c"]))
        #expect(SourceGlob.matches("missing", base: root).isEmpty)
    }

    @Test(
        "covers decides from the text what matches could give",
        arguments: [
            ("out", "out/x.o", true), ("out/", "out/sub/.y", true), ("out/**", "out/a/b", true), ("out/*.o", "out/x.o", true),
            ("out/*.o", "out/.x.o", false), ("out/.*.o", "out/.x.o", true), ("out/*.o", "out/sub/x.o", false),
            ("**/*.o", "a/b/x.o", true), ("**/*.o", ".git/x.o", false), ("/abs/x", "abs/x", false), ("../x", "x", false),
            ("out", "outer/x", false),
        ])
    func covers(_ pattern: String, _ path: String, _ expected: Bool) {
        defer { cleanUp() }
        #expect(SourceGlob.covers(pattern, path: path) == expected)
    }

    @Test("paths: normalized, made absolute, joined")
    func paths() {
        defer { cleanUp() }
        #expect(Paths.normalized("/a/./b//c/") == "/a/b/c")
        #expect(Paths.absolute("x/y", from: "/base") == "/base/x/y")
        #expect(Paths.absolute("/x", from: "/base") == "/x")
        #expect(Paths.join("/a", "b") == "/a/b")
    }
}
