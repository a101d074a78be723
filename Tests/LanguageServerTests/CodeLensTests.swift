import Foundation
import LSPTestSupport
import Testing
import WorkflowModel

@testable import LanguageServer

/// The code lens (docs/language.md, 'Editors'), in process: on each labelled
/// step the last result the store holds (before `--dry-run`'s verdict for a
/// step with `sources`), an included file's from its includer's store;
/// refreshed when the store changes, for a client that can be asked to.
@Suite("Language server: the code lens")
struct CodeLensTests {
    static let main = "var project = \"p\"\ninclude \"lib.workflow\"\nbuild: sh \"make {{project}}\"\nsh \"true\"\n"
    static let lib = "libstep: sh \"echo {{project}}\"\n"

    /// The lenses of a file: `line: title`.
    static func lenses(_ client: TestLanguageClient, _ name: String) throws -> [String] {
        let lenses = try client.request("textDocument/codeLens", ["textDocument": ["uri": client.uri(name)]]) as? [[String: Any]] ?? []
        return lenses.map { lens in
            let line = ((lens["range"] as? [String: Any])?["start"] as? [String: Any])?["line"] as? Int ?? -1
            return "\(line): \((lens["command"] as? [String: Any])?["title"] as? String ?? "")"
        }
    }

    /// A store whose last results are `.promise-run/last-results.json`'s
    /// lines (`label text`), watched as the runner's is.
    static var fileStore: LocalStore {
        LocalStore(
            verdicts: { _, _ in [] },
            lastResults: { folder in
                let text = (try? String(contentsOfFile: folder + "/.promise-run/last-results.json", encoding: .utf8)) ?? ""
                var results: [String: String] = [:]
                for line in text.split(separator: "\n") {
                    let parts = line.split(separator: " ", maxSplits: 1)
                    if parts.count == 2 { results[String(parts[0])] = String(parts[1]) }
                }
                return results
            },
            watched: { folder in [folder + "/.promise-run/last-results.json", folder + "/.promise-run/steps"] })
    }

    static var refreshing: [String: Any] { ["workspace": ["codeLens": ["refreshSupport": true]]] }

    @Test("each labelled step's last result, then its verdict; an included file's steps show its includer's store; an unlabelled step nothing")
    func lastResults() throws {
        let client = try TestLanguageClient(
            store: LocalStore(
                verdicts: { workflow, _ in workflow.allNodes.filter { $0.label == "build" }.map { ($0.id, "would run: no successful run is stored") }
                },
                lastResults: { folder in
                    ["build": "✓ 2.1s in \(folder)", "libstep": "✗ failed after 1.0s in \(folder)", "elsewhere": "never shown"]
                }))
        try client.write("main.workflow", Self.main)
        try client.write("lib.workflow", Self.lib)
        try client.start()
        try client.open("main.workflow", Self.main)
        let folder = client.folder.path
        #expect(try Self.lenses(client, "main.workflow") == ["2: ✓ 2.1s in \(folder)", "2: would run: no successful run is stored"])
        // The library, open on its own: the steps are its includer's run's.
        try client.open("lib.workflow", Self.lib)
        #expect(try Self.lenses(client, "lib.workflow") == ["0: ✗ failed after 1.0s in \(folder)"])
        // With an error the verdict goes (nothing compiles); the last result stays.
        try client.change("main.workflow", Self.main + "oops\n", version: 2)
        #expect(try Self.lenses(client, "main.workflow") == ["2: ✓ 2.1s in \(folder)"])
        #expect(try client.stop() == 0)
    }

    @Test("a run writing the store asks the client to refresh its lenses (the store made after the first lens too); other files in the folder do not")
    func refreshedWhenTheStoreChanges() throws {
        let client = try TestLanguageClient(store: Self.fileStore)
        try client.start(capabilities: Self.refreshing)
        try client.open("main.workflow", Self.main)
        #expect(try Self.lenses(client, "main.workflow").isEmpty)
        // The runner's first run: .promise-run made, its file renamed in.
        let store = try client.writeLastResults("build ✓ 1.0s, just now\n")
        try client.served("workspace/codeLens/refresh")
        #expect(try Self.lenses(client, "main.workflow") == ["2: ✓ 1.0s, just now"])
        // A source file written beside the workflow is no change of the store.
        try client.write("notes.txt", "x")
        #expect(!client.sent("workspace/codeLens/refresh", within: 0.5))
        // The next run: a step's entry.
        try FileManager.default.createDirectory(at: store.appendingPathComponent("steps"), withIntermediateDirectories: true)
        try "{}".write(to: store.appendingPathComponent("steps/build.json"), atomically: true, encoding: .utf8)
        try client.served("workspace/codeLens/refresh")
        try client.writeLastResults("build ✗ failed after 2.0s, just now\n")
        try client.served("workspace/codeLens/refresh")
        #expect(try Self.lenses(client, "main.workflow") == ["2: ✗ failed after 2.0s, just now"])
        #expect(try client.stop() == 0)
    }

    @Test("a client that cannot refresh its lenses is not asked to")
    func noRefreshSupport() throws {
        let client = try TestLanguageClient(store: Self.fileStore)
        try client.start()
        try client.open("main.workflow", Self.main)
        #expect(try Self.lenses(client, "main.workflow").isEmpty)
        try client.writeLastResults("build ✓ 1.0s, just now\n")
        #expect(!client.sent("workspace/codeLens/refresh", within: 0.5))
        #expect(try Self.lenses(client, "main.workflow") == ["2: ✓ 1.0s, just now"])
        #expect(try client.stop() == 0)
    }
}
