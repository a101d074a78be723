import Foundation
import Testing

/// The PromiseEngine product as an adopter sees it, read from the built
/// module by the toolchain's `swift-symbolgraph-extract`: promises only,
/// every public declaration documented, the entry points with an example.
@Suite("The PromiseEngine library's public surface")
struct LibrarySurfaceTests {
    /// One public symbol of the module, as the symbol graph gives it.
    struct Symbol {
        var kind: String
        var path: String
        var file: String
        var line: Int
        var doc: String
    }

    /// The module's public symbols, and those it adds to other modules' types.
    static func extract() async throws -> (own: [Symbol], extensions: [Symbol]) {
        let binary = try #require(Binary.url, "promise-run was not found beside the tests")
        let buildFolder = binary.deletingLastPathComponent().resolvingSymlinksInPath()
        let triple = buildFolder.deletingLastPathComponent().lastPathComponent
        let output = try Binary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await Binary.runCommand(
            "/usr/bin/env",
            [
                "swift-symbolgraph-extract", "-module-name", "PromiseEngine",
                "-I", buildFolder.appendingPathComponent("Modules").path,
                "-Xcc", "-fmodule-map-file=" + buildFolder.appendingPathComponent("CSyncAnnotations.build/module.modulemap").path,
                "-target", triple.contains("-") ? triple : "x86_64-unknown-linux-gnu",
                "-minimum-access-level", "public", "-skip-synthesized-members",
                "-output-dir", output.path,
            ])
        #expect(run.status == 0, "swift-symbolgraph-extract failed: \(run.stderr)")
        var own: [Symbol] = []
        var extensions: [Symbol] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: output.path) where name.hasSuffix(".symbols.json") {
            let data = try Data(contentsOf: output.appendingPathComponent(name))
            let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let symbols = (graph["symbols"] as? [[String: Any]] ?? []).map(symbol)
            if name == "PromiseEngine.symbols.json" { own += symbols } else { extensions += symbols }
        }
        return (own, extensions)
    }

    static func symbol(_ raw: [String: Any]) -> Symbol {
        let kind = (raw["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
        let path = (raw["pathComponents"] as? [String] ?? []).joined(separator: ".")
        let location = raw["location"] as? [String: Any] ?? [:]
        let uri = location["uri"] as? String ?? ""
        let line = (location["position"] as? [String: Any])?["line"] as? Int ?? 0
        let lines = (raw["docComment"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
        let doc = lines.compactMap { $0["text"] as? String }.joined(separator: "\n")
        return Symbol(kind: kind, path: path, file: uri.replacingOccurrences(of: "file://", with: ""), line: line + 1, doc: doc)
    }

    @Test("every public declaration has a doc comment, and the surface is promises only")
    func everyDeclarationDocumented() async throws {
        let (own, extensions) = try await Self.extract()
        // A few dozen types and functions, not the workflow runner's hundreds.
        #expect(own.count > 50 && own.count < 250, "\(own.count) public symbols")
        let undocumented = own.filter { $0.doc.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(
            undocumented.isEmpty,
            """
            public declarations without a doc comment:
            \(undocumented.map { "\($0.file):\($0.line): \($0.kind) \($0.path)" }.joined(separator: "\n"))
            """)
        let outside = own.filter { !$0.file.contains("/Sources/PromiseEngine/") }
        #expect(outside.isEmpty, "public symbols from outside the promise sources: \(outside.map(\.path))")
        // Names that clashed with Foundation when the runner was in the library.
        let names = Set(own.map { $0.path.split(separator: ".").first.map(String.init) ?? "" })
        for clash in ["OutputChannel", "TemplateExpression", "Workflow", "Node", "Step", "Template", "Parser", "Diagnostic"] {
            #expect(!names.contains(clash), "\(clash) is public in PromiseEngine")
        }
        // Names the standard library, Foundation and Dispatch already have
        // (`Executor` shadowed `_Concurrency.Executor` for every adopter).
        for clash in [
            "Executor", "Task", "Result", "Progress", "Operation", "Timer", "Thread", "Lock", "Formatter", "Stream",
            "OutputStream", "Expression", "DispatchQueue", "Duration", "Clock", "Error", "Group",
        ] {
            #expect(!names.contains(clash), "\(clash) is public in PromiseEngine and shadows a standard name")
        }
        // Nothing added to the standard library's types (Duration helpers stay inside).
        #expect(extensions.isEmpty, "public extensions of other modules' types: \(extensions.map(\.path))")
    }

    @Test("every type, every top-level function and the chaining methods show an example")
    func entryPointsHaveExamples() async throws {
        let (own, _) = try await Self.extract()
        let typeKinds: Set = ["swift.class", "swift.struct", "swift.enum", "swift.protocol"]
        let chaining: Set = [
            "Promise", "Promise.init(_:)", "Promise.pending()", "Promise.then(on:token:_:)", "Promise.map(on:token:_:)",
            "Promise.done(on:token:_:)", "Promise.tap(on:token:_:)", "Promise.catch(on:token:_:)", "Promise.recover(on:token:_:)",
            "Promise.ensure(on:token:_:)", "Promise.finally(on:token:_:)", "Promise.value", "Promise.async(priority:_:)",
            "Promise.timeout(_:clock:)", "Promise.delay(_:clock:)", "AnyPromise.cancel()",
            // Issue 47: Tomorrowland's tokens, contexts, lazy and shared
            // promises, and OMPromises' combinators.
            "Promise.requestCancelOnInvalidate(_:)", "Promise.requestCancelOnDeinit(_:)", "Promise.makeChild()",
            "Promise.propagatingCancellation(on:cancelRequested:)", "Promise.relay(to:)", "Promise.join()",
            "PromiseInvalidationToken.init(invalidateOnDeinit:)", "PromiseInvalidationToken.invalidate()",
            "PromiseInvalidationToken.cancelWithoutInvalidating()", "PromiseInvalidationToken.requestCancelOnInvalidate(_:)",
            "PromiseInvalidationToken.chainInvalidation(from:includingCancelWithoutInvalidating:)",
            "DelayedPromise.init(on:_:)", "DelayedPromise.promise",
            "PromiseContext.nowOr(_:)", "PromiseContext.deferred", "PromiseContext.isExecutingNow", "PromiseContext.immediate",
        ]
        let entryPoints = own.filter { symbol in
            typeKinds.contains(symbol.kind) || symbol.kind == "swift.func" || chaining.contains(symbol.path)
        }
        #expect(entryPoints.count >= 60, "\(entryPoints.count) entry points found")
        // Each named one exists under that name (a renamed method would
        // otherwise drop out of this check unnoticed).
        let paths = Set(own.map(\.path))
        #expect(chaining.subtracting(paths).isEmpty, "not found: \(chaining.subtracting(paths).sorted())")
        let without = entryPoints.filter { !$0.doc.contains("```") }
        #expect(
            without.isEmpty,
            """
            entry points without an example (a ```swift block in the doc comment):
            \(without.map { "\($0.file):\($0.line): \($0.kind) \($0.path)" }.joined(separator: "\n"))
            """)
    }

}
