import Foundation
import Glibc
import Testing

@testable import WorkflowRun

/// The Makefile dependency form as gcc, clang and swiftc write it, and the
/// stat cache's rule for trusting a hash.
/// See docs/language.md, 'Incremental steps'.
@Suite("Depfiles and the stat cache")
struct DepfileAndStatCacheTests {
    @Test("gcc -MMD -MP: continuation lines, the phony rules add nothing")
    func gccWithPhonyRules() {
        let text = """
            obj/main.o: src/main.c include/a.h \\
             include/b.h
            include/a.h:
            include/b.h:

            """
        #expect(Depfile.prerequisites(text) == ["src/main.c", "include/a.h", "include/b.h"])
    }

    @Test("escaped spaces, '#' and '$$'; several targets; CRLF line ends; each name once")
    func escapes() {
        let text = "obj/a.o obj/a.d: src/my\\ file.c inc/x\\#1.h cost$$.h \\\r\n  src/my\\ file.c\r\n"
        #expect(Depfile.prerequisites(text) == ["src/my file.c", "inc/x#1.h", "cost$.h"])
    }

    @Test("swiftc -emit-dependencies: targets on several rules, absolute paths")
    func swiftc() {
        let text = """
            /b/main.o : /p/Sources/main.swift /p/Sources/util.swift
            /b/main.swiftmodule : /p/Sources/main.swift /usr/lib/swift/linux/Swift.swiftmodule

            """
        #expect(Depfile.prerequisites(text) == ["/p/Sources/main.swift", "/p/Sources/util.swift", "/usr/lib/swift/linux/Swift.swiftmodule"])
    }

    @Test("a comment, an empty file, and text that is not a depfile")
    func oddInputs() {
        #expect(Depfile.prerequisites("# made by hand\nout: in\n") == ["in"])
        #expect(Depfile.prerequisites("") == [])
        #expect(Depfile.prerequisites("just some words\n") == nil)
        #expect(Depfile.prerequisites(": orphan\n") == nil)
    }

    private func info(size: Int, modified: Int, changed: Int, inode: UInt) -> stat {
        var info = stat()
        info.st_size = size
        info.st_mtim = timespec(tv_sec: modified, tv_nsec: 5)
        info.st_ctim = timespec(tv_sec: changed, tv_nsec: 7)
        info.st_ino = inode
        return info
    }

    @Test("a hash is trusted when size, times and inode are unchanged and the file was older than the second it was hashed")
    func racilyClean() {
        let seen = StatCache.Seen(
            size: 10, modified: 100 * 1_000_000_000 + 5, changed: 100 * 1_000_000_000 + 7, inode: 42,
            hashedAt: 101, hash: String(repeating: "a", count: 32))
        #expect(seen.holds(for: info(size: 10, modified: 100, changed: 100, inode: 42)))
        #expect(!seen.holds(for: info(size: 11, modified: 100, changed: 100, inode: 42)))
        #expect(!seen.holds(for: info(size: 10, modified: 100, changed: 100, inode: 43)))
        #expect(!seen.holds(for: info(size: 10, modified: 100, changed: 99, inode: 42)))
        var racy = seen
        racy.hashedAt = 100
        // Modified in the second it was hashed: a second write in the same
        // tick would leave the same times; hashed again.
        #expect(!racy.holds(for: info(size: 10, modified: 100, changed: 100, inode: 42)))
    }

    @Test("the cache file round-trips, a path with spaces included; another format reads as empty")
    func cacheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stat-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "one\n".write(to: folder.appendingPathComponent("a b.txt"), atomically: true, encoding: .utf8)
        let cache = StatCache(workflowDirectory: folder.path)
        let hash = cache.hash(folder.appendingPathComponent("a b.txt").path)
        #expect(hash == Fingerprint.contentHash(folder.appendingPathComponent("a b.txt").path))
        cache.save()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: cache.path)))
        let entries = StatCache.parse(bytes)
        #expect(entries["a b.txt"]?.hash == hash)
        #expect(StatCache.parse(Array("promise-run-stat/0\n1 2 3 4 5 \(hash) x\n".utf8)).isEmpty)
        #expect(StatCache.parse(Array("promise-run-stat/1\n1 2 x 4 5 \(hash) x\n".utf8)).isEmpty)
    }
}
