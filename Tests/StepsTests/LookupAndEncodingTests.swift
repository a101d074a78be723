import Foundation
import Glibc
import RunnerSystem
import Testing

@testable import Steps

@Suite("Paths, PATH lookup and form encoding")
struct LookupAndEncodingTests {
    @Test func relativePathsResolveAgainstTheWorkingFolder() {
        #expect(Paths.resolve("a/b", against: "/w") == "/w/a/b")
        #expect(Paths.resolve("./a", against: "/w/") == "/w/a")
        #expect(Paths.resolve("/abs", against: "/w") == "/abs")
        #expect(Paths.resolve(".", against: "/w") == "/w")
        #expect(Paths.parent(of: "/a/b/") == "/a")
        #expect(Paths.parent(of: "/a") == "/")
        #expect(Paths.lastComponent(of: "/a/b/") == "b")
        #expect(Paths.normalized("/a/./b/../c//d/") == "/a/c/d")
        #expect(Paths.normalized("/../x") == "/x")
        // One rule for every path: `.` and repeated slashes dropped, `..`
        // and a trailing slash kept, a relative base stays relative.
        #expect(Paths.absolute("a/./b//c", from: "/w") == "/w/a/b/c")
        #expect(Paths.absolute("../x", from: "/w") == "/w/../x")
        #expect(Paths.absolute("dir/", from: "/w") == "/w/dir/")
        #expect(Paths.absolute("x", from: ".") == "x")
        #expect(Paths.absolute("lib", from: "sub") == "sub/lib")
        #expect(Paths.absolute("", from: "/w/") == "/w")
        #expect(Paths.absolute("/abs/./y", from: "/w") == "/abs/y")
    }

    @Test func pathLookupTakesTheFirstExecutableAndSkipsFolders() throws {
        let folder = TemporaryFolder()
        for name in ["one", "two"] {
            try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(atPath: folder.file("one/tool"), withIntermediateDirectories: true)
        try "x".write(toFile: folder.file("two/tool"), atomically: true, encoding: .utf8)
        chmod(folder.file("two/tool"), 0o755)
        let environment = ["PATH": "\(folder.file("one")):relative:\(folder.file("two"))"]
        #expect(
            try ExecutableLookup.resolve("tool", environment: environment, workingDirectory: folder.path)
                == folder.file("two/tool"))
        #expect(throws: SpawnError.self) {
            try ExecutableLookup.resolve("tool", environment: ["PATH": folder.file("one")], workingDirectory: "/")
        }
    }

    @Test func formFieldsAreEncodedAsBrowsersDo() {
        #expect(HTTPRequestBuilder.formEncoded("a b&c=d/é*-._~") == "a+b%26c%3Dd%2F%C3%A9*-._%7E")
    }
}
