import Foundation
import Testing

/// The shared cache keeps links as links ("Links"; issue 41): a
/// symbolic link is stored as its target text and restored as a link,
/// what it points to is never read or uploaded (not even a file outside
/// the checkout), and hard links come back as one inode. Two checkouts
/// below one root (so a link can lead out of a checkout), the real
/// binary, a folder store and nginx with WebDAV. Whether a step ran is
/// read from its line in $RUNLOG.
/// See docs/language.md, 'Incremental steps'.
@Suite("End to end: the shared cache keeps links as links")
struct CacheLinksTests {
    enum StoreKind: String, CaseIterable, Sendable {
        case folder, webdav
    }

    /// A store: its URL for `--cache`, and the folder its objects are in.
    struct Store {
        let url: String
        let files: URL

        /// Every object under `cas/`, with its bytes.
        var objects: [String: Data] {
            let cas = files.appendingPathComponent("cas")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: cas.path)) ?? []
            return Dictionary(uniqueKeysWithValues: names.map { ($0, (try? Data(contentsOf: cas.appendingPathComponent($0))) ?? Data()) })
        }

        /// Whether `text` is anywhere in the store: an entry or an object.
        func holds(_ text: String) -> Bool {
            let names = FileManager.default.enumerator(atPath: files.path)?.compactMap { $0 as? String } ?? []
            return names.contains { name in
                (try? Data(contentsOf: files.appendingPathComponent(name)))?.range(of: Data(text.utf8)) != nil
            }
        }

        var entries: [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: files.appendingPathComponent("ac").path)) ?? []
        }
    }

    /// Two checkouts of one project, `first` and `second`, below `root`
    /// (which also holds files "outside" them; `workflow` is given its
    /// path), and a store of `kind`: nil when it is nginx and nginx is not
    /// on this machine (.ci/install-deps installs it; CI fails without it).
    private struct Checkouts {
        let root: URL
        let first: Workspace
        let second: Workspace
        let store: Store

        init?(_ files: [String: String], store kind: StoreKind, _ makeWorkflow: (_ root: String) -> String) throws {
            root = try Binary.temporaryFolder()
            switch kind {
            case .folder:
                let folder = root.appendingPathComponent("store")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                store = Store(url: folder.path, files: folder)
            case .webdav:
                guard let dav = try TestServers.ifInstalled(TestServers.nginxWebDAV(), "the WebDAV store") else {
                    try? FileManager.default.removeItem(at: root)
                    return nil
                }
                let name = UUID().uuidString
                store = Store(url: "\(dav.url)/cache/\(name)", files: dav.files.appendingPathComponent("cache/" + name))
            }
            let workflow = makeWorkflow(root.path)
            first = Workspace(folder: root.appendingPathComponent("first"))
            second = Workspace(folder: root.appendingPathComponent("second"))
            for space in [first, second] {
                try space.write("build.workflow", workflow)
                for (name, text) in files { try space.write(name, text) }
            }
        }

        /// A step `mk` with `in.txt` as its source: runs `command` (given
        /// the root's path), then notes that it ran.
        init?(generates pattern: String, store kind: StoreKind = .folder, _ command: (_ root: String) -> String) throws {
            try self.init(["in.txt": "x\n"], store: kind) { root in
                """
                mk: sh "\(command(root)) && echo ran >> $RUNLOG" {
                  sources "in.txt"
                  generates "\(pattern)"
                }
                """
            }
        }

        func remove() {
            try? FileManager.default.removeItem(at: root)
        }
    }

    private func run(_ space: Workspace, _ store: Store) async throws -> WorkflowRun {
        let outcome = try await Binary.run(
            ["--report", "json=report.json", "--color", "never", "--cache", store.url, "build.workflow"],
            in: space.folder, environment: ["RUNLOG": space.path("runs.log")])
        return WorkflowRun(outcome: outcome, reportText: space.read("report.json"))
    }

    private func runs(_ space: Workspace) -> Int {
        (space.read("runs.log") ?? "").split(separator: "\n").count
    }

    /// Stores in `first`, restores in `second`: both runs succeed, the
    /// second without running the step.
    private func storeAndRestore(_ checkouts: Checkouts) async throws {
        let store = checkouts.store
        let stored = try await run(checkouts.first, store)
        #expect(stored.status == 0, "\(stored.said)")
        #expect(!stored.said.contains("warning"), "\(stored.said)")
        #expect(runs(checkouts.first) == 1)
        #expect(store.entries.count == 1, "no entry in \(store.files.path)")
        let restored = try await run(checkouts.second, store)
        #expect(restored.step("mk")?["from"] as? String == "cache", "\(restored.said)")
        #expect(runs(checkouts.second) == 0, "the step ran instead of being restored")
    }

    private func linkTarget(_ space: Workspace, _ name: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: space.path(name))
    }

    private func isLink(_ space: Workspace, _ name: String) -> Bool {
        var info = stat()
        return lstat(space.path(name), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    private func inode(_ space: Workspace, _ name: String) -> (inode: UInt64, links: UInt64)? {
        var info = stat()
        guard lstat(space.path(name), &info) == 0 else { return nil }
        return (UInt64(info.st_ino), UInt64(info.st_nlink))
    }

    private func size(_ space: Workspace, _ name: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: space.path(name))[.size] as? Int) ?? -1
    }

    @Test(
        "a shared library's links (libz.so -> libz.so.1 -> libz.so.1.3) are restored as links: one file's data in the store, and the program still runs",
        arguments: StoreKind.allCases)
    func sharedLibrary(_ kind: StoreKind) async throws {
        let files = [
            "src/z.c": "int zval(void) { return 42; }\n",
            "src/main.c": "#include <stdio.h>\nint zval(void);\nint main(void) { printf(\"z=%d\\n\", zval()); return 0; }\n",
        ]
        guard
            let checkouts = try Checkouts(
                files, store: kind,
                { _ in
                    """
                    mk: sh "mkdir -p lib bin && cc -shared -fPIC -Wl,-soname,libz.so.1 -o lib/libz.so.1.3 src/z.c && ln -sf libz.so.1.3 lib/libz.so.1 && ln -sf libz.so.1 lib/libz.so && cc -o bin/app src/main.c -Llib -lz -Wl,-rpath,'$ORIGIN/../lib' && echo ran >> $RUNLOG" {
                      sources "src"
                      generates "lib" "bin/app"
                    }
                    """
                })
        else { return }
        defer { checkouts.remove() }
        try await storeAndRestore(checkouts)
        let (first, second) = (checkouts.first, checkouts.second)
        #expect(linkTarget(second, "lib/libz.so") == "libz.so.1")
        #expect(linkTarget(second, "lib/libz.so.1") == "libz.so.1.3")
        #expect(!isLink(second, "lib/libz.so.1.3"))
        // The library's data once, the program's once: nothing for the links.
        let objects = checkouts.store.objects
        #expect(objects.count == 2, "\(objects.keys)")
        #expect(objects.values.map(\.count).reduce(0, +) == size(first, "lib/libz.so.1.3") + size(first, "bin/app"))
        let program = try await Binary.runCommand(second.path("bin/app"), [])
        #expect(program.stdout == "z=42\n", "\(program.stderr)")
        // Restored, recorded: the next run is up to date without the cache.
        let again = try await run(second, checkouts.store)
        #expect(again.step("mk")?["status"] as? String == "up-to-date")
        #expect(again.step("mk")?["from"] as? String == "local", "\(again.said)")
    }

    @Test(
        "links that lead out of the checkout (absolute, ../.., to a folder) or nowhere are stored as their text: what they point to never reaches the store",
        arguments: StoreKind.allCases, ["out", "out/**"])
    func linksOutOfTheCheckout(_ kind: StoreKind, _ pattern: String) async throws {
        let secret = "outside-secret-\(UUID().uuidString)"
        guard
            let checkouts = try Checkouts(
                generates: pattern, store: kind,
                { root in
                    "mkdir -p out/sub && echo f > out/sub/f && ln -s \(root)/secret.txt out/absolute && ln -s ../../secret.txt out/up && ln -s \(root)/folder out/folder && ln -s sub out/inside && ln -s nowhere out/dangling"
                })
        else { return }
        defer { checkouts.remove() }
        let outside = checkouts.root.path
        try Data((secret + "\n").utf8).write(to: checkouts.root.appendingPathComponent("secret.txt"))
        try FileManager.default.createDirectory(at: checkouts.root.appendingPathComponent("folder/deeper"), withIntermediateDirectories: true)
        try Data((secret + " in a folder\n").utf8).write(to: checkouts.root.appendingPathComponent("folder/deeper/file.txt"))
        try await storeAndRestore(checkouts)
        #expect(!checkouts.store.holds(secret), "what a link points to was uploaded")
        #expect(checkouts.store.objects.count == 1, "\(checkouts.store.objects.keys)")
        let second = checkouts.second
        let expected = [
            "out/absolute": outside + "/secret.txt", "out/up": "../../secret.txt", "out/folder": outside + "/folder",
            "out/inside": "sub", "out/dangling": "nowhere",
        ]
        for (name, target) in expected {
            #expect(linkTarget(second, name) == target, "\(name)")
        }
        #expect(second.read("out/sub/f") == "f\n")
        #expect(second.read("out/up") == secret + "\n", "the link leads where it led")
        // Links, dangling or not, leave the step up to date where it ran.
        let again = try await run(checkouts.first, checkouts.store)
        #expect(again.step("mk")?["status"] as? String == "up-to-date", "\(again.said)")
        #expect(runs(checkouts.first) == 1)
    }

    @Test("generates naming a link that leads nowhere matches the link: it is stored, restored, and up to date in both checkouts")
    func danglingLinkNamedAlone() async throws {
        guard
            let checkouts = try Checkouts(
                generates: "made-later",
                { _ in
                    "ln -sfn not-made-yet.txt made-later"
                })
        else { return }
        defer { checkouts.remove() }
        try await storeAndRestore(checkouts)
        #expect(linkTarget(checkouts.second, "made-later") == "not-made-yet.txt")
        for space in [checkouts.first, checkouts.second] {
            #expect(try await run(space, checkouts.store).step("mk")?["status"] as? String == "up-to-date")
        }
        #expect(runs(checkouts.first) == 1 && runs(checkouts.second) == 0)
    }

    @Test(
        "files that were hard links of each other are restored as one inode; the store holds their data once",
        arguments: StoreKind.allCases)
    func hardLinks(_ kind: StoreKind) async throws {
        guard
            let checkouts = try Checkouts(
                generates: "out", store: kind,
                { _ in
                    "mkdir -p out/sub && echo data > out/a && ln -f out/a out/b && ln -f out/a out/sub/c && echo other > out/d"
                })
        else { return }
        defer { checkouts.remove() }
        try await storeAndRestore(checkouts)
        let second = checkouts.second
        let a = try #require(inode(second, "out/a"))
        #expect(a.links == 3)
        #expect(inode(second, "out/b")?.inode == a.inode)
        #expect(inode(second, "out/sub/c")?.inode == a.inode)
        #expect(inode(second, "out/d")?.inode != a.inode)
        #expect(second.read("out/sub/c") == "data\n")
        #expect(checkouts.store.objects.count == 2, "\(checkouts.store.objects.keys)")
    }

    @Test("a restore replaces the links and files at its places, never writing through them")
    func restoredOverOlderLinks() async throws {
        guard
            let checkouts = try Checkouts(
                generates: "out",
                { _ in
                    "mkdir -p out && ln -sfn new-target out/link && rm -f out/file && echo fresh > out/file"
                })
        else { return }
        defer { checkouts.remove() }
        let victim = checkouts.root.appendingPathComponent("victim.txt")
        try Data("victim\n".utf8).write(to: victim)
        let second = checkouts.second
        try FileManager.default.createDirectory(atPath: second.path("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: second.path("out/link"), withDestinationPath: "old-target")
        try FileManager.default.createSymbolicLink(atPath: second.path("out/file"), withDestinationPath: victim.path)
        try await storeAndRestore(checkouts)
        #expect(linkTarget(second, "out/link") == "new-target")
        #expect(!isLink(second, "out/file"))
        #expect(second.read("out/file") == "fresh\n")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "victim\n", "the restore wrote through the old link")
    }

    @Test("a generated file reached through a link that generates does not match is never read: no entry, and a warning says why")
    func reachedThroughALink() async throws {
        guard
            let checkouts = try Checkouts(
                generates: "out/current/lib.so",
                { _ in
                    "mkdir -p out/v2 && echo lib > out/v2/lib.so && ln -sfn v2 out/current"
                })
        else { return }
        defer { checkouts.remove() }
        let stored = try await run(checkouts.first, checkouts.store)
        #expect(stored.status == 0, "\(stored.said)")
        #expect(stored.said.contains("is reached through the symbolic link out/current"), "\(stored.said)")
        #expect(checkouts.store.entries.isEmpty)
        #expect(checkouts.store.objects.isEmpty)
    }
}
