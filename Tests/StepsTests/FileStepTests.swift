import Foundation
import Glibc
import PromiseEngine
import RunnerSystem
import Testing
import WorkflowModel

@testable import Steps

@Suite("File steps")
struct FileStepTests {
    let runner = SystemStepRunner()
    let manager = FileManager.default

    private func file(_ operation: ResolvedFileOperation, _ folder: borrowing TemporaryFolder) async -> Outcome<StepResult> {
        await run(.file(operation), runner, in: folder.context())
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    private func mode(_ path: String) throws -> Int {
        try #require(manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func writeMakesParentsReplacesAtomicallyAndKeepsTheMode() async throws {
        let folder = TemporaryFolder()
        let written = try #require(value(await file(.write(path: "a/b/c.txt", content: "first"), folder)))
        #expect(written.path == folder.file("a/b/c.txt"))
        #expect(try written.value(of: .path) == folder.file("a/b/c.txt"))
        #expect(try read(folder.file("a/b/c.txt")) == "first")

        chmod(folder.file("a/b/c.txt"), 0o600)
        _ = try #require(value(await file(.write(path: "a/b/c.txt", content: "second ✓"), folder)))
        #expect(try read(folder.file("a/b/c.txt")) == "second ✓")
        #expect(try mode(folder.file("a/b/c.txt")) == 0o600)
        #expect(try manager.contentsOfDirectory(atPath: folder.file("a/b")) == ["c.txt"], "no temporary file left")
    }

    @Test func appendCreatesThenAppends() async throws {
        let folder = TemporaryFolder()
        _ = try #require(value(await file(.append(path: "log/out.txt", content: "one\n"), folder)))
        _ = try #require(value(await file(.append(path: "log/out.txt", content: "two\n"), folder)))
        #expect(try read(folder.file("log/out.txt")) == "one\ntwo\n")
    }

    @Test func readGivesTheContentAndRefusesWhatIsTooLarge() async throws {
        let folder = TemporaryFolder()
        try "héllo\n".write(toFile: folder.file("in.txt"), atomically: true, encoding: .utf8)
        let result = try #require(value(await file(.read(path: "in.txt"), folder)))
        #expect(result.content == "héllo\n")
        #expect(try result.value(of: .content) == "héllo\n")

        let missing = try #require(failure(await file(.read(path: "absent.txt"), folder)))
        #expect(missing.kind == .file)
        #expect(missing.message == "file read \(folder.file("absent.txt")): No such file or directory")

        let small = SystemStepRunner(configuration: StepsConfiguration(bodyLimit: 3))
        let large = try #require(failure(await run(.file(.read(path: "in.txt")), small, in: folder.context())))
        #expect(large.kind == .file)
        #expect(large.message.contains("limit"))
    }

    @Test func copyFilesIntoFoldersAndWholeTrees() async throws {
        let folder = TemporaryFolder()
        try manager.createDirectory(atPath: folder.file("src/sub/deeper"), withIntermediateDirectories: true)
        try "top".write(toFile: folder.file("src/top.txt"), atomically: true, encoding: .utf8)
        try "deep".write(toFile: folder.file("src/sub/deeper/deep.txt"), atomically: true, encoding: .utf8)
        chmod(folder.file("src/top.txt"), 0o751)
        try manager.createSymbolicLink(atPath: folder.file("src/link"), withDestinationPath: "top.txt")

        let single = try #require(value(await file(.copy(from: "src/top.txt", to: "copy.txt"), folder)))
        #expect(single.path == folder.file("copy.txt"))
        #expect(try read(folder.file("copy.txt")) == "top")
        #expect(try mode(folder.file("copy.txt")) == 0o751)

        try manager.createDirectory(atPath: folder.file("into"), withIntermediateDirectories: true)
        let into = try #require(value(await file(.copy(from: "src/top.txt", to: "into"), folder)))
        #expect(into.path == folder.file("into/top.txt"))

        let tree = try #require(value(await file(.copy(from: "src", to: "dst/tree"), folder)))
        #expect(tree.path == folder.file("dst/tree"))
        #expect(try read(folder.file("dst/tree/sub/deeper/deep.txt")) == "deep")
        #expect(try manager.destinationOfSymbolicLink(atPath: folder.file("dst/tree/link")) == "top.txt")

        let itself = try #require(failure(await file(.copy(from: "src", to: "src/sub/again"), folder)))
        #expect(itself.kind == .file)
        #expect(itself.message.contains("into itself"))
        let sneaky = try #require(failure(await file(.copy(from: "src", to: "dst/../src/./again"), folder)))
        #expect(sneaky.message.contains("into itself"))

        let missing = try #require(failure(await file(.copy(from: "nothing", to: "x"), folder)))
        #expect(missing.kind == .file)
        #expect(missing.message.contains(folder.file("nothing")))
    }

    @Test func moveRenamesAndCrossesFileSystems() async throws {
        let folder = TemporaryFolder()
        try "moving".write(toFile: folder.file("a.txt"), atomically: true, encoding: .utf8)
        let moved = try #require(value(await file(.move(from: "a.txt", to: "sub/b.txt"), folder)))
        #expect(moved.path == folder.file("sub/b.txt"))
        #expect(!manager.fileExists(atPath: folder.file("a.txt")))
        #expect(try read(folder.file("sub/b.txt")) == "moving")

        // /dev/shm is another file system (tmpfs): rename fails with EXDEV
        // and the move copies, then deletes.
        var here = stat()
        var shm = stat()
        try #require(stat(folder.path, &here) == 0 && stat("/dev/shm", &shm) == 0)
        guard here.st_dev != shm.st_dev else { return }
        let elsewhere = "/dev/shm/steps-move-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? manager.removeItem(atPath: elsewhere) }
        try manager.createDirectory(atPath: folder.file("tree/inner"), withIntermediateDirectories: true)
        try "x".write(toFile: folder.file("tree/inner/x.txt"), atomically: true, encoding: .utf8)
        let across = try #require(value(await file(.move(from: "tree", to: elsewhere), folder)))
        #expect(across.path == elsewhere)
        #expect(try read(elsewhere + "/inner/x.txt") == "x")
        #expect(!manager.fileExists(atPath: folder.file("tree")))
    }

    @Test func deleteRemovesTreesNotWhatLinksPointToAndAcceptsMissingPaths() async throws {
        let folder = TemporaryFolder()
        try manager.createDirectory(atPath: folder.file("keep"), withIntermediateDirectories: true)
        try "precious".write(toFile: folder.file("keep/precious.txt"), atomically: true, encoding: .utf8)
        try manager.createDirectory(atPath: folder.file("gone/a/b"), withIntermediateDirectories: true)
        try "x".write(toFile: folder.file("gone/a/b/x.txt"), atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(atPath: folder.file("gone/link-to-keep"), withDestinationPath: folder.file("keep"))

        let deleted = try #require(value(await file(.delete(path: "gone"), folder)))
        #expect(deleted.path == folder.file("gone"))
        #expect(!manager.fileExists(atPath: folder.file("gone")))
        #expect(try read(folder.file("keep/precious.txt")) == "precious")
        _ = try #require(value(await file(.delete(path: "never-was"), folder)))
    }

    @Test func mkdirMakesParentsAndExistsFailsForMissingPaths() async throws {
        let folder = TemporaryFolder()
        _ = try #require(value(await file(.mkdir(path: "x/y/z"), folder)))
        var isFolder: ObjCBool = false
        #expect(manager.fileExists(atPath: folder.file("x/y/z"), isDirectory: &isFolder) && isFolder.boolValue)
        _ = try #require(value(await file(.mkdir(path: "x/y/z"), folder)))

        try "f".write(toFile: folder.file("plain"), atomically: true, encoding: .utf8)
        let notFolder = try #require(failure(await file(.mkdir(path: "plain"), folder)))
        #expect(notFolder.kind == .file)
        #expect(notFolder.message.contains("not a folder"))

        let present = try #require(value(await file(.exists(path: "x/y"), folder)))
        #expect(present.path == folder.file("x/y"))
        let missing = try #require(failure(await file(.exists(path: "nope"), folder)))
        #expect(missing.kind == .file)
        #expect(missing.message == "file exists \(folder.file("nope")): does not exist")
        try manager.createSymbolicLink(atPath: folder.file("dangling"), withDestinationPath: "nowhere")
        let dangling = try #require(failure(await file(.exists(path: "dangling"), folder)))
        #expect(dangling.message.contains("symbolic link to a missing path"))
    }

    @Test func errorsNameThePathAndTheSystemsReason() async throws {
        let folder = TemporaryFolder()
        try "a file".write(toFile: folder.file("blocker"), atomically: true, encoding: .utf8)
        let failed = try #require(failure(await file(.write(path: "blocker/inside.txt", content: "x"), folder)))
        #expect(failed.kind == .file)
        #expect(failed.message.hasPrefix("file write \(folder.file("blocker"))"))
        #expect(failed.message.contains("not a folder") || failed.message.contains("Not a directory"))
    }

    @Test func aCancelledCopyStopsAndLeavesNoPartialFile() throws {
        let folder = TemporaryFolder()
        let data = [UInt8](repeating: 7, count: 3 * FileSystem.chunkSize)
        try Data(data).write(to: URL(fileURLWithPath: folder.file("big.bin")))
        let flag = CancelFlag()
        flag.set()
        #expect(throws: CancellationError.self) {
            try FileSystem(cancelled: flag).copy(folder.file("big.bin"), to: folder.file("copy.bin"))
        }
        // The temporary file exists when the first chunk is written: it is
        // removed, and the target is not touched.
        #expect(throws: CancellationError.self) {
            try data.withUnsafeBytes { try FileSystem(cancelled: flag).writeAtomically(folder.file("big.bin"), contents: $0) }
        }
        #expect(try manager.contentsOfDirectory(atPath: folder.path) == ["big.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("big.bin"))).count == data.count)
    }
}
