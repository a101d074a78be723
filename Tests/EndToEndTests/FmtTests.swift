import Foundation
import Testing

/// `promise-run fmt`: the canonical layout, idempotent, keeping meaning,
/// on every workflow of the repository, the spec and the corpus.
@Suite("End to end: fmt")
struct FmtTests {
    /// The graph as JSON without line/column (they move when a file is laid out).
    private nonisolated func meaning(_ file: String, in space: Workspace) throws -> String {
        let graph = try Binary.run(["graph", "--format", "json", file], in: space.folder)
        return "\(graph.status)\n"
            + graph.stdout.split(separator: "\n")
            .filter { !$0.contains("\"line\":") && !$0.contains("\"column\":") && !$0.contains("\"file\":") && !$0.contains("\"directory\":") }
            .map { $0.replacing(/@[0-9]+:[0-9]+/, with: "@") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ,")) }
            .joined(separator: "\n")
    }

    @Test("every workflow: formatting is idempotent and keeps the graph; a file that does not parse is left alone (exit 2)")
    func everyWorkflow() async throws {
        let root = Binary.packageRoot
        var files: [URL] = []
        for folder in ["workflows", "Tests/Fixtures/Spec", "Tests/Fixtures/Corpus"] {
            let url = root.appendingPathComponent(folder)
            files += try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".workflow") }.sorted()
                .map { url.appendingPathComponent($0) }
        }
        let space = try Workspace()
        defer { space.remove() }
        let list = files
        // Some 200 runs of the binary: off the shared pool.
        let (problems, formattedCount) = try await Binary.offPool { () throws -> ([String], Int) in
            var problems: [String] = []
            var formattedCount = 0
            for (number, url) in list.enumerated() {
                let original = try String(contentsOf: url, encoding: .utf8)
                let name = "f\(number).workflow"
                let file = url.lastPathComponent
                try space.write(name, original)
                let checks = try Binary.run(["check", name], in: space.folder).status == 0
                let first = try Binary.run(["fmt", "-"], stdin: original, in: space.folder)
                guard checks else {
                    // A file that parses is laid out even when it does not check
                    // (an included file uses its includer's names); one that does
                    // not parse is left alone.
                    if first.status == 0 {
                        let again = try Binary.run(["fmt", "-"], stdin: first.stdout, in: space.folder)
                        if again.stdout != first.stdout { problems.append("\(file): formatting twice changed it again") }
                        continue
                    }
                    if first.status != 2 { problems.append("\(file): fmt exited \(first.status)") }
                    let untouched = try Binary.run(["fmt", name], in: space.folder)
                    if untouched.status != 2 || space.read(name) != original { problems.append("\(file) was changed") }
                    continue
                }
                formattedCount += 1
                if first.status != 0 { problems.append("\(file): \(first.stderr)") }
                let second = try Binary.run(["fmt", "-"], stdin: first.stdout, in: space.folder)
                if second.stdout != first.stdout { problems.append("\(file): formatting twice changed it again") }
                // The same name in another folder: an unnamed workflow is named after its file.
                try space.write("formatted/" + name, first.stdout)
                if try meaning(name, in: space) != meaning("formatted/" + name, in: space) {
                    problems.append("\(file): the graph changed")
                }
            }
            return (problems, formattedCount)
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(formattedCount >= 10)
    }

    @Test("the layout: indentation, one statement a line, attributes in order, group attributes first, aligned lanes, comments kept")
    func layout() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let messy = """
            workflow "demo"   # the name
            a: sh "x" { timeout 1s; retry 2 }
            parallel {
                  b: sh "y"   # trailing


                  # about c
                  longer: sh "z" {
                    expect exit 0
                    env A = "1"
                    timeout 5s
                  }
              timeout 10m
            }
            if "{{a.exit}}" == "0" { log "ok" } else {
             log "no"
            }
            # the end
            """
        let expected = """
            workflow "demo"  # the name
            a: sh "x" {
              timeout 1s
              retry 2
            }
            parallel {
              timeout 10m
              b:      sh "y"  # trailing

              # about c
              longer: sh "z" {
                timeout 5s
                env A = "1"
                expect exit 0
              }
            }
            if "{{a.exit}}" == "0" {
              log "ok"
            } else {
              log "no"
            }
            # the end

            """
        try space.write("demo.workflow", messy)
        let check = try await Binary.run(["fmt", "--check", "demo.workflow"], in: space.folder)
        #expect(check.status == 1)
        #expect(check.stdout == "demo.workflow: not formatted\n")
        #expect(space.read("demo.workflow") == messy, "--check writes nothing")
        let fmt = try await Binary.run(["fmt", "demo.workflow"], in: space.folder)
        #expect(fmt.status == 0)
        #expect(space.read("demo.workflow") == expected)
        let again = try await Binary.run(["fmt", "--check", "demo.workflow"], in: space.folder)
        #expect(again.status == 0 && again.stdout.isEmpty)
    }

    @Test("fmt --check - checks standard input: exit 1 and nothing on stdout but the verdict when unformatted, 0 when formatted")
    func checkStandardInput() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let unformatted = try await Binary.run(["fmt", "--check", "-"], stdin: "log   \"x\"\n", in: space.folder)
        #expect(unformatted.status == 1, "\(unformatted.stdout)\(unformatted.stderr)")
        #expect(unformatted.stdout.contains("not formatted") && !unformatted.stdout.contains("log \"x\""), "\(unformatted.stdout)")
        let formatted = try await Binary.run(["fmt", "--check", "-"], stdin: "log \"x\"\n", in: space.folder)
        #expect(formatted.status == 0 && formatted.stdout.isEmpty, "\(formatted.stdout)\(formatted.stderr)")
    }

    @Test("a library that uses its includer's names is formatted (it parses); a file that does not parse is not (exit 2)")
    func includedFileIsFormatted() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("main.workflow", "var project = \"p\"\ninclude \"lib.workflow\"\n")
        try space.write("lib.workflow", "build:   sh \"make {{project}}\"\n")
        let lib = try await Binary.run(["fmt", "lib.workflow"], in: space.folder)
        #expect(lib.status == 0, "\(lib.stderr)")
        #expect(space.read("lib.workflow") == "build: sh \"make {{project}}\"\n")
        #expect(try await Binary.run(["check", "main.workflow"], in: space.folder).status == 0)
        try space.write("broken.workflow", "build: sh {\n")
        #expect(try await Binary.run(["fmt", "broken.workflow"], in: space.folder).status == 2)
        #expect(space.read("broken.workflow") == "build: sh {\n")
    }
}
