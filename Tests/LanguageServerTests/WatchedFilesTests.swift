import Foundation
import LSPTestSupport
import Testing

@testable import LanguageServer

/// Files changed outside the editor (a `git checkout`, another
/// tool): a client that can is asked to watch the workflows and the
/// store; what it reports republishes the open files whose analysis read
/// a changed workflow, and refreshes the lenses when the store changed.
@Suite("Language server: files changed outside the editor")
struct WatchedFilesTests {
    static let main = "var project = \"demo\"\ninclude \"lib.workflow\"\nlast: sh \"echo {{build.exit}}\"\n"
    static let lib = "build: sh \"make {{project}}\"\n"
    static var watching: [String: Any] {
        ["workspace": ["didChangeWatchedFiles": ["dynamicRegistration": true], "codeLens": ["refreshSupport": true]]]
    }

    /// The client's watcher saw `name` change (1 made, 2 changed, 3 removed).
    static func changed(_ client: TestLanguageClient, _ name: String, type: Int = 2) throws {
        try client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": client.uri(name), "type": type]]])
    }

    @Test("registered at initialized: every *.workflow and the store, for a client that can; not for one that cannot")
    func registration() throws {
        let client = try TestLanguageClient(store: LocalStore(verdicts: { _, _ in [] }, patterns: ["**/.promise-run/**"]))
        try client.start(capabilities: Self.watching)
        let params = try #require(try client.served("client/registerCapability") as? [String: Any])
        let registration = try #require((params["registrations"] as? [[String: Any]])?.first)
        #expect(registration["method"] as? String == "workspace/didChangeWatchedFiles")
        let watchers = (registration["registerOptions"] as? [String: Any])?["watchers"] as? [[String: Any]] ?? []
        #expect(watchers.compactMap { $0["globPattern"] as? String } == ["**/*.workflow", "**/.promise-run/**"])
        #expect(try client.stop() == 0)

        let plain = try TestLanguageClient()
        try plain.start()
        #expect(!plain.sent("client/registerCapability", within: 0.3))
        #expect(try plain.stop() == 0)
    }

    @Test("a library changed on disk republishes its open includer: an error, then the fix; an open library's buffer wins over its disk")
    func includerRepublished() throws {
        let client = try TestLanguageClient()
        try client.write("main.workflow", Self.main)
        try client.write("lib.workflow", Self.lib)
        try client.start(capabilities: Self.watching)
        try client.served("client/registerCapability")
        try client.open("main.workflow", Self.main)
        #expect(try client.diagnostics("main.workflow").isEmpty)
        // Another tool renames the step in the library: main's use breaks.
        try client.write("lib.workflow", "compile: sh \"make {{project}}\"\n")
        try Self.changed(client, "lib.workflow")
        let broken = try client.diagnostics("main.workflow")
        #expect(broken.contains { $0.contains("build") }, "\(broken)")
        try client.write("lib.workflow", Self.lib)
        try Self.changed(client, "lib.workflow")
        #expect(try client.diagnostics("main.workflow").isEmpty)
        // Open, the library is the editor's: its disk changing is not read
        // (main's analysis, made again after an edit, has the buffer's step).
        try client.open("lib.workflow", Self.lib)
        try client.write("lib.workflow", "compile: sh \"true\"\n")
        try Self.changed(client, "lib.workflow")
        try client.change("lib.workflow", Self.lib, version: 2)
        let definition = try client.request("textDocument/definition", client.at("main.workflow", 2, 20)) as? [[String: Any]]
        #expect(definition?.first?["uri"] as? String == client.uri("lib.workflow"), "\(definition ?? [])")
        #expect(try client.stop() == 0)
    }

    @Test("an includer made on disk gives an open library its context (no false error); removed, the library is alone again")
    func includerMadeAndRemoved() throws {
        let client = try TestLanguageClient()
        try client.start(capabilities: Self.watching)
        try client.served("client/registerCapability")
        try client.write("lib.workflow", Self.lib)
        try client.open("lib.workflow", Self.lib)
        let alone = try client.diagnostics("lib.workflow")
        #expect(alone.contains { $0.contains("project") }, "\(alone)")
        // A git checkout brings the file that includes it.
        try client.write("main.workflow", Self.main)
        try Self.changed(client, "main.workflow", type: 1)
        #expect(try client.diagnostics("lib.workflow").isEmpty)
        try FileManager.default.removeItem(at: client.folder.appendingPathComponent("main.workflow"))
        try Self.changed(client, "main.workflow", type: 3)
        let again = try client.diagnostics("lib.workflow")
        #expect(again.contains { $0.contains("project") }, "\(again)")
        #expect(try client.stop() == 0)
    }

    @Test("the store changed, as the client's watch says: the lenses are refreshed (the server does not watch it itself then)")
    func storeThroughTheClient() throws {
        let client = try TestLanguageClient(store: CodeLensTests.fileStore)
        try client.start(capabilities: Self.watching)
        try client.served("client/registerCapability")
        try client.open("main.workflow", CodeLensTests.main)
        #expect(try CodeLensTests.lenses(client, "main.workflow").isEmpty)
        let store = try client.writeLastResults("build ✓ 1.0s, just now\n")
        // Not until the client says so.
        #expect(!client.sent("workspace/codeLens/refresh", within: 0.5))
        try Self.changed(client, ".promise-run/last-results.json", type: 1)
        try client.served("workspace/codeLens/refresh")
        #expect(try CodeLensTests.lenses(client, "main.workflow") == ["2: ✓ 1.0s, just now"])
        // The stat cache changing is no change of what the lenses show.
        try "x".write(to: store.appendingPathComponent("stat-cache"), atomically: true, encoding: .utf8)
        try Self.changed(client, ".promise-run/stat-cache", type: 1)
        #expect(!client.sent("workspace/codeLens/refresh", within: 0.3))
        #expect(try client.stop() == 0)
    }

    @Test("a client that refuses the registration: the server watches the store itself")
    func registrationRefused() throws {
        let client = try TestLanguageClient(store: CodeLensTests.fileStore)
        try client.start(capabilities: Self.watching)
        let message = try client.wait("client/registerCapability") { $0["method"] as? String == "client/registerCapability" }
        try client.send(["id": message["id"]!, "error": ["code": -32601, "message": "no"]])
        try client.open("main.workflow", CodeLensTests.main)
        #expect(try CodeLensTests.lenses(client, "main.workflow").isEmpty)
        try client.writeLastResults("build ✓ 1.0s, just now\n")
        try client.served("workspace/codeLens/refresh")
        #expect(try client.stop() == 0)
    }
}
