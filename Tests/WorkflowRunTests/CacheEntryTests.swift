import Foundation
import Testing

@testable import WorkflowRun

/// The shared cache's entry format (`promise-run-cache/2`): files, symbolic
/// links (their target text, kept byte for byte) and hard links read back
/// as written; what a restore could be misled by is refused as it is read.
@Suite("Cache entry")
struct CacheEntryTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test("files, links and hard links read back as they were written, link texts verbatim")
    func roundTrip() throws {
        let entry = CacheEntry(
            exitCode: 0, stdout: "out\n", stderr: "", captures: ["word": "it"],
            files: [
                .init(path: "lib/libz.so", kind: .link(target: "libz.so.1")),
                .init(path: "lib/libz.so.1.3", kind: .file(sha256: Self.digest, size: 125_000, mode: 0o755)),
                .init(path: "lib/libz-copy.so", kind: .hardLink(of: "lib/libz.so.1.3")),
                .init(path: "lib/outside", kind: .link(target: "../../x \"quoted\"/ü")),
                .init(path: "lib/absolute", kind: .link(target: "/etc/passwd")),
            ])
        let read = try CacheEntry.parse(entry.json).get()
        #expect(read == entry)
        #expect(read.files.compactMap(\.object).map(\.size) == [125_000])
    }

    @Test(
        "an entry that would misplace a path is refused as it is read",
        arguments: [
            (#"{"path": "a", "hardlink": "b"}, {"path": "b", "mode": 420, "sha256": "D", "size": 1}"#, "not a file before it"),
            (#"{"path": "l", "link": "x"}, {"path": "l/f", "link": "y"}"#, "below its own l"),
            (#"{"path": "l", "link": "x"}, {"path": "l", "link": "y"}"#, "twice"),
            (#"{"path": "a//b", "link": "x"}"#, "outside"),
            (#"{"path": "/a", "link": "x"}"#, "outside"),
            (#"{"path": "a", "link": "x\u0000y"}"#, "malformed"),
            (#"{"path": "a", "hardlink": "../b"}"#, "malformed"),
            (#"{"path": "a", "link": "x", "hardlink": "b"}"#, "malformed"),
        ])
    func refused(_ files: String, _ why: String) {
        let text = #"{"format": "promise-run-cache/2", "files": [\#(files.replacingOccurrences(of: "\"D\"", with: "\"\(Self.digest)\""))]}"#
        guard case .failure(let problem) = CacheEntry.parse(text) else {
            Issue.record("accepted: \(files)")
            return
        }
        #expect(problem.message.contains(why), "\(problem.message)")
    }
}
