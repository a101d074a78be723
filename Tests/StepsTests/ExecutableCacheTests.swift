import Foundation
import Glibc
import Testing
import WorkflowModel

@testable import Steps

/// The PATH lookup cache must answer as a fresh search would after any
/// change in the folders searched: a step that installs a program makes
/// the next step find it.
@Suite("PATH lookups remembered, never stale")
struct ExecutableCacheTests {
    /// A PATH of `first:second` under a new folder, with `tool` in `second`.
    private func setUp(_ folder: borrowing TemporaryFolder) throws -> [String: String] {
        for name in ["first", "second"] {
            try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
        }
        try install(folder.file("second/tool"))
        return ["PATH": "\(folder.file("first")):\(folder.file("second"))"]
    }

    private func install(_ path: String, mode: mode_t = 0o755) throws {
        try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
    }

    @Test func aProgramInstalledEarlierInPathIsFoundByTheNextLookup() throws {
        let folder = TemporaryFolder()
        let environment = try setUp(folder)
        let cache = ExecutableCache()
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        try install(folder.file("first/tool"))
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("first/tool"))
    }

    @Test func removingOrRenamingTheProgramFindsTheNextOne() throws {
        let folder = TemporaryFolder()
        let environment = try setUp(folder)
        try install(folder.file("first/tool"))
        let cache = ExecutableCache()
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("first/tool"))
        rename(folder.file("first/tool"), folder.file("first/old-tool"))
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        unlink(folder.file("second/tool"))
        #expect(throws: SpawnError.self) {
            try cache.resolve("tool", environment: environment, workingDirectory: folder.path)
        }
    }

    @Test func makingAFileExecutableIsSeen() throws {
        let folder = TemporaryFolder()
        let environment = try setUp(folder)
        try install(folder.file("first/tool"), mode: 0o644)
        let cache = ExecutableCache()
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        chmod(folder.file("first/tool"), 0o755)
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("first/tool"))
    }

    @Test func aPathFolderMadeDuringTheRunIsSearched() throws {
        let folder = TemporaryFolder()
        var environment = try setUp(folder)
        // `later/bin` does not exist yet: its nearest parent is watched.
        environment["PATH"] = "\(folder.file("later/bin")):\(folder.file("second"))"
        let cache = ExecutableCache()
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        try FileManager.default.createDirectory(atPath: folder.file("later/bin"), withIntermediateDirectories: true)
        // Looked up again while the new folder is still empty: then the
        // folder itself must be watched, for what is put in it next.
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("second/tool"))
        try install(folder.file("later/bin/tool"))
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.path) == folder.file("later/bin/tool"))
    }

    @Test func relativePathEntriesDependOnTheWorkingFolder() throws {
        let folder = TemporaryFolder()
        for name in ["a/bin", "b/bin"] {
            try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
            try install(folder.file(name + "/tool"))
        }
        let environment = ["PATH": "bin"]
        let cache = ExecutableCache()
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.file("a")) == folder.file("a/bin/tool"))
        #expect(try cache.resolve("tool", environment: environment, workingDirectory: folder.file("b")) == folder.file("b/bin/tool"))
    }

    @Test func aStepThatInstallsAProgramLetsTheNextStepRunIt() async throws {
        let folder = TemporaryFolder()
        let environment = try setUp(folder)
        let runner = SystemStepRunner()
        let context = folder.context(environment: environment)
        let before = value(await run(sh("tool"), runner, in: context))
        #expect(before?.exitCode == 0)
        let installing = "printf '#!/bin/sh\\necho first\\n' > \(folder.file("first/tool")) && chmod +x \(folder.file("first/tool"))"
        _ = value(await run(sh(installing), runner, in: folder.context(environment: testEnvironment)))
        let after = value(await run(sh("tool"), runner, in: context))
        #expect(after?.stdout?.text == "first\n")
    }
}
