import Foundation
import Testing

/// `file` steps never lose what they were not asked to touch (issue 39,
/// "Data loss"): a delete that would take the checkout, its parent or the
/// root is refused; a write never replaces a device, a FIFO or a link; a
/// FIFO never holds a step past its timeout. The real binary, real files.
@Suite("End to end: file steps that must not lose data")
struct FileSafetyTests {
    /// A checkout: the workflow beside a file that must survive, inside a
    /// parent folder holding a sibling that must survive too.
    private struct Checkout {
        let parent: URL
        let space: Workspace

        init() throws {
            parent = try Binary.temporaryFolder()
            let folder = parent.appendingPathComponent("checkout")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            space = Workspace(folder: folder)
            try space.write("keep.txt", "keep\n")
            try Data("sibling\n".utf8).write(to: parent.appendingPathComponent("sibling.txt"))
        }

        func remove() { try? FileManager.default.removeItem(at: parent) }

        var untouched: Bool {
            FileManager.default.fileExists(atPath: space.path("keep.txt"))
                && FileManager.default.fileExists(atPath: space.path("test.workflow"))
                && FileManager.default.fileExists(atPath: parent.appendingPathComponent("sibling.txt").path)
        }
    }

    @Test(
        "file delete refuses an empty path, '.', './', the checkout's parent, '/' and a relative path out of the checkout",
        arguments: [
            #"file delete """#, #"file delete ".""#, #"file delete "./""#, #"file delete "{{dir}}""#,
            #"file delete "{{dir}}/""#, #"file delete "sub/..""#, #"file delete "..""#, #"file delete "../""#,
            #"file delete "../sibling.txt""#, #"file delete "{{dir}}/..""#, #"file delete "/""#, #"file delete "up/checkout""#,
        ])
    func deleteRefusesTheCheckout(_ statement: String) async throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        try FileManager.default.createDirectory(atPath: checkout.space.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: checkout.space.path("up"), withDestinationPath: "..")
        let run = try await checkout.space.run(
            """
            var dir = ""
            gone: \(statement)
            """)
        #expect(run.status == 1, "\(statement)\n\(run.stdout)\(run.stderr)")
        #expect(checkout.untouched, "\(statement) deleted what it must not")
        let message = run.message(of: "gone")
        #expect(run.error(of: "gone")?["kind"] as? String == "file")
        #expect(message.contains("nothing was deleted"), "\(message)")
        #expect(FileManager.default.fileExists(atPath: checkout.space.path("sub")))
    }

    @Test("a template that resolves to a path outside the checkout is refused unless the path was written absolute")
    func deleteOutsideNeedsAnAbsolutePath() async throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        let victim = checkout.parent.appendingPathComponent("victim.txt").path
        try Data("v\n".utf8).write(to: URL(fileURLWithPath: victim))
        // `{{dir}}` is empty: the path becomes absolute by accident.
        let refused = try await checkout.space.run(
            """
            var dir = ""
            gone: file delete "{{dir}}\(victim)"
            """)
        #expect(refused.status == 1)
        #expect(FileManager.default.fileExists(atPath: victim))
        #expect(refused.message(of: "gone").contains("written absolute"))
        // Written with its leading '/': the user meant it.
        let deleted = try await checkout.space.run(#"gone: file delete "\#(victim)""#)
        #expect(deleted.status == 0, "\(deleted.stdout)")
        #expect(!FileManager.default.fileExists(atPath: victim))
        #expect(checkout.untouched)
    }

    @Test("file delete still removes files, folders and links inside the checkout (a link as a link)")
    func deleteInsideWorks() async throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        try checkout.space.write("build/tmp/a.o", "o")
        try checkout.space.write("target/t.txt", "t")
        try FileManager.default.createSymbolicLink(atPath: checkout.space.path("link"), withDestinationPath: "target")
        let run = try await checkout.space.run(
            """
            a: file delete "build/tmp"
            b: file delete "link"
            c: file delete "missing/file"
            """)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: checkout.space.path("build/tmp")))
        #expect(FileManager.default.fileExists(atPath: checkout.space.path("build")))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: checkout.space.path("link"))) == nil)
        #expect(checkout.space.read("target/t.txt") == "t")
        #expect(checkout.untouched)
    }

    @Test("file write writes through a link to its target and keeps the link")
    func writeFollowsLinks() async throws {
        let space = try Workspace()
        defer { space.remove() }
        try space.write("real/target.txt", "old\n")
        try FileManager.default.createSymbolicLink(atPath: space.path("link.txt"), withDestinationPath: "real/target.txt")
        try FileManager.default.createSymbolicLink(atPath: space.path("dangling.txt"), withDestinationPath: "real/new.txt")
        let run = try await space.run(
            """
            a: file write "link.txt" "new"
            b: file write "dangling.txt" "made"
            """)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(space.read("real/target.txt") == "new")
        #expect(space.read("real/new.txt") == "made")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: space.path("link.txt")) == "real/target.txt")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: space.path("dangling.txt")) == "real/new.txt")
    }

    @Test("file write, copy and move refuse to replace a FIFO or a device, directly or through a link")
    func writeNeverReplacesSpecialFiles() async throws {
        let space = try Workspace()
        defer { space.remove() }
        #expect(mkfifo(space.path("fifo"), 0o644) == 0)
        // A character device of its own (as /dev/null), when allowed to make one.
        let device = mknod(space.path("null"), S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0
        try FileManager.default.createSymbolicLink(atPath: space.path("to-fifo"), withDestinationPath: "fifo")
        try space.write("source.txt", "s")
        var workflow = """
            a: file write "fifo" "x" { allow-failure }
            b: file write "to-fifo" "x" { allow-failure }
            c: file copy "source.txt" "fifo" { allow-failure }
            d: file move "source.txt" "fifo" { allow-failure }
            """
        if device { workflow += "\ne: file write \"null\" \"x\" { allow-failure }" }
        try space.write("test.workflow", workflow)
        let bounded = try await Binary.runBounded(
            ["--report", "json=report.json", "--color", "never", "test.workflow"],
            seconds: 30, in: space.folder)
        #expect(!bounded.timedOut, "a write to a FIFO hung")
        let run = WorkflowRun(outcome: bounded.outcome, reportText: space.read("report.json"))
        for id in ["a", "b", "c", "d"] + (device ? ["e"] : []) {
            let message = run.message(of: id)
            #expect(message.contains("is a FIFO") || message.contains("is a character device"), "\(id): \(message)")
        }
        var info = stat()
        #expect(lstat(space.path("fifo"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        if device { #expect(lstat(space.path("null"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR) }
        #expect(space.read("source.txt") == "s")
    }

    @Test("file append to a FIFO nothing reads fails at once; to a full FIFO it ends at the step's timeout; file read of a FIFO ends")
    func fifosNeverHoldAStep() async throws {
        let space = try Workspace()
        defer { space.remove() }
        #expect(mkfifo(space.path("fifo"), 0o644) == 0)
        try space.write(
            "test.workflow",
            """
            a: file append "fifo" "x" { allow-failure }
            b: file read "fifo" { timeout 1s; allow-failure }
            """)
        let first = try await Binary.runBounded(["--report", "json=report.json", "--color", "never", "test.workflow"], seconds: 30, in: space.folder)
        #expect(!first.timedOut, "a FIFO held the run")
        let run = WorkflowRun(outcome: first.outcome, reportText: space.read("report.json"))
        #expect(run.message(of: "a").contains("FIFO that nothing reads"))
        #expect(run.step("b")?["status"] as? String == "failed")

        // A reader that holds the FIFO open and never reads: the pipe fills.
        let holder = ChildProcess()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `exec sleep`: terminate() reaches the process holding the FIFO, and
        // nothing left holds the test runner's output open for a minute.
        holder.arguments = ["-c", "exec 3<\(space.path("fifo")); exec sleep 60"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate() }
        let big = String(repeating: "x", count: 200_000)
        try space.write(
            "test.workflow",
            """
            var big = "\(big)"
            a: file append "fifo" "{{big}}" { timeout 1s }
            """)
        let second = try await Binary.runBounded(
            ["--report", "json=report.json", "--color", "never", "test.workflow"], seconds: 30, in: space.folder)
        #expect(!second.timedOut, "a full FIFO held the step past its timeout")
        let timedOut = WorkflowRun(outcome: second.outcome, reportText: space.read("report.json"))
        #expect(timedOut.error(of: "a")?["kind"] as? String == "timeout", "\(second.outcome.stdout)")
    }
}

extension WorkflowRun {
    /// A failed step's error message in the JSON report ("" when none).
    func message(of id: String) -> String {
        error(of: id)?["message"] as? String ?? ""
    }
}
