package import Dispatch
import JSON
import JSONRPC
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// `promise-run lsp`: the Language Server Protocol 3.17 over
/// standard input and output. Messages are handled one at a time, in
/// order, on one queue; diagnostics are pushed a short while after the
/// last change (debounced), from the same queue. Nothing but framed
/// JSON-RPC is written to standard output.
/// See docs/language.md, 'Editors'.
package final class LanguageServer: @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue`.
    let connection: Connection
    let queue = DispatchQueue(label: "promise-run.lsp")
    var documents: [String: OpenDocument] = [:]
    var encoding = PositionEncoding.utf16
    /// The folders the client named (`workspaceFolders`, else `rootUri`):
    /// where the includers of an included file are looked for.
    var workspaceFolders: [String] = []
    /// The workflows under them, once found (see `workspaceWorkflows`).
    var workspaceFiles: [String]?
    /// Analyses of includers that are not open, until the next change.
    var diskAnalyses: [String: LanguageAnalysis] = [:]
    /// The texts of the workflows under the workspace folders, as read.
    var diskTexts: [String: [UInt8]] = [:]
    /// By path: the workflows under the workspace folders that may include it.
    var diskMentions: [String: [String]] = [:]
    /// How many files' analyses were made (what a request waited for: the tests count them).
    var analysesMade = 0
    private var initialized = false
    private var shutdownRequested = false
    /// Per document, the included files diagnostics were published on
    /// (so they can be cleared when fixed).
    private var publishedIncludes: [String: Set<String>] = [:]
    /// Per document, the change a pending diagnostics run is for.
    private var pendingDiagnostics: [String: Int] = [:]
    private var changeCount = 0
    /// How long diagnostics wait after a change (a burst of keystrokes is
    /// one analysis).
    let debounce: DispatchTimeInterval
    /// What the code lens reads of the store beside a workflow.
    let store: LocalStore?
    /// The client can be asked to refresh its code lenses
    /// (`workspace.codeLens.refreshSupport`): the store is watched.
    var refreshesLenses = false
    /// The store's watch, from the first lens asked for.
    var storeWatcher: FolderWatcher?
    /// By workflow folder whose lenses were asked for: its store's watched
    /// files as they were when last read.
    var storeStamps: [String: [FileStamp]] = [:]
    /// The client watches the workflows and the store for the server
    /// (`workspace/didChangeWatchedFiles`, registered at `initialized`).
    var clientWatchesFiles = false
    /// The id of that registration's request.
    private var watchRegistration: RequestID?
    /// The id of the last request this server sent.
    private var sentRequests = 0

    package init(output: Int32, debounce: DispatchTimeInterval = .milliseconds(40), store: LocalStore? = nil) {
        connection = Connection(output: output)
        self.debounce = debounce
        self.store = store
    }

    /// Serves until `exit` or the end of the input; the exit code (0 after
    /// `shutdown`, else 1, as LSP says). The server never ends the process:
    /// the executable exits with what this returns. Nothing is written to
    /// `output` once this returns (a pending diagnostic is dropped), so the
    /// caller may close it.
    package func serve(input: Int32) -> Int32 {
        connection.readLoop(
            input: input,
            receive: { message, repaired in
                queue.sync { handle(message, repaired: repaired) }
            },
            problem: { id, error in
                queue.sync { connection.send(.response(id: id, result: .failure(error))) }
            })
        return queue.sync {
            storeWatcher?.stop()
            connection.close()
            return shutdownRequested ? 0 : 1
        }
    }

    /// Sends the client a request (its answer is not waited for); its id.
    @discardableResult
    func sendRequest(_ method: String, _ params: JSONValue) -> RequestID {
        sentRequests += 1
        let id = RequestID.string("promise-run-\(sentRequests)")
        connection.send(.request(id: id, method: method, params: params))
        return id
    }

    // MARK: Dispatch

    /// Handles one message; false after `exit` (nothing more is read).
    private func handle(_ message: Message, repaired: Bool) -> Bool {
        switch message {
        case .request(let id, let method, let params):
            let result: Result<JSONValue, ResponseError>
            if method == "initialize" {
                result = initialize(params)
            } else if !initialized {
                result = .failure(ResponseError(code: ResponseError.serverNotInitialized, message: "initialize first"))
            } else if shutdownRequested {
                result = .failure(ResponseError(code: ResponseError.invalidRequest, message: "the server is shutting down"))
            } else {
                result = request(method, params)
            }
            connection.send(.response(id: id, result: result))
        case .notification(let method, let params):
            if method == "exit" { return false }
            guard initialized else { return true }
            notification(method, params, repaired: repaired)
        case .response(let id, let result):
            // The client refused to watch the files: the server watches the store itself.
            if case .failure = result, let id, id == watchRegistration {
                clientWatchesFiles = false
                for folder in storeStamps.keys { watchStore(of: folder) }
            }
        }
        return true
    }

    private func request(_ method: String, _ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        switch method {
        case "shutdown":
            shutdownRequested = true
            return .success(.null)
        case "textDocument/completion": return withDocument(params) { completion($0, params) }
        case "textDocument/hover": return withDocument(params) { hover($0, params) }
        case "textDocument/definition": return withDocument(params) { definition($0, params) }
        case "textDocument/references": return withDocument(params) { references($0, params) }
        case "textDocument/prepareRename": return withDocument(params) { prepareRename($0, params) }
        case "textDocument/rename": return withDocument(params) { rename($0, params) }
        case "textDocument/documentSymbol": return withDocument(params) { .success(documentSymbols($0)) }
        case "textDocument/formatting": return withDocument(params) { .success(formatting($0)) }
        case "textDocument/foldingRange": return withDocument(params) { .success(foldingRanges($0)) }
        case "textDocument/codeAction": return withDocument(params) { codeActions($0, params) }
        case "textDocument/documentLink": return withDocument(params) { .success(documentLinks($0)) }
        case "workspace/symbol": return .success(workspaceSymbols(params))
        case "textDocument/semanticTokens/full": return withDocument(params) { .success(semanticTokens($0)) }
        case "textDocument/codeLens": return withDocument(params) { .success(codeLenses($0)) }
        default:
            return .failure(ResponseError(code: ResponseError.methodNotFound, message: "'\(method)' is not a method this server knows"))
        }
    }

    private func withDocument(_ params: JSONDocument, _ body: (OpenDocument) -> Result<JSONValue, ResponseError>)
        -> Result<JSONValue, ResponseError>
    {
        guard let uri = params.documentURI else { return .failure(.invalidParams("textDocument.uri is missing")) }
        guard let document = documents[uri] else { return .failure(.invalidParams("\(uri) is not open")) }
        return body(document)
    }

    private func notification(_ method: String, _ params: JSONDocument, repaired: Bool) {
        switch method {
        case "textDocument/didOpen":
            guard let item = params[member: "textDocument"], let uri = item[member: "uri"]?.string,
                let text = item[member: "text"]?.string
            else { return }
            let path = DocumentURI.path(of: uri) ?? uri
            let document = OpenDocument(uri: uri, path: path, text: text, version: item[member: "version"]?.integer ?? 0)
            document.hadInvalidUTF8 = repaired
            documents[uri] = document
            changed(document, previous: nil, now: true)
        case "textDocument/didChange":
            guard let uri = params.documentURI, let document = documents[uri],
                let changes = params[member: "contentChanges"]?.array
            else { return }
            let previous = document.ownAnalysis
            for change in changes {
                guard let text = change[member: "text"]?.string else { continue }
                if let range = change[member: "range"]?.range {
                    document.replace(range, with: text, encoding)
                } else {
                    document.replace(with: text)
                }
            }
            document.hadInvalidUTF8 = repaired || (document.hadInvalidUTF8 && changes.contains { $0[member: "range"] != nil })
            if let version = params[member: "textDocument"]?[member: "version"]?.integer { document.version = version }
            changed(document, previous: previous, now: false)
        case "textDocument/didSave":
            // Included files may have changed on disk: analyse again.
            if let uri = params.documentURI, let document = documents[uri] {
                document.replace(with: String(decoding: document.bytes, as: UTF8.self))
                invalidateAnalyses(rescan: true)
                for other in documents.values { scheduleDiagnostics(other, now: true) }
            }
        case "initialized":
            registerWatchedFiles()
        case "workspace/didChangeWatchedFiles":
            watchedFilesChanged(params[member: "changes"]?.array ?? [])
        case "textDocument/didClose":
            guard let uri = params.documentURI else { return }
            let closed = documents[uri]
            documents[uri] = nil
            pendingDiagnostics[uri] = nil
            // An open included file keeps its diagnostics: it publishes its own.
            for include in publishedIncludes[uri] ?? [] where documents[include] == nil { publish(uri: include, diagnostics: []) }
            publishedIncludes[uri] = nil
            publish(uri: uri, diagnostics: [])
            if let closed {
                // Its includers read it from the disk now; what it included may have another context.
                for other in invalidateAnalyses(touching: closed.normalizedPath, trees: [closed.ownAnalysis]) {
                    scheduleDiagnostics(other, now: true)
                }
            }
        default:
            break
        }
    }

    // MARK: initialize

    private func initialize(_ params: JSONDocument) -> Result<JSONValue, ResponseError> {
        // UTF-8 when the client can (no conversion), else UTF-16 (LSP's default).
        let offered = params[member: "capabilities"]?[member: "general"]?[member: "positionEncodings"]?.array?.compactMap(\.string) ?? []
        encoding = offered.contains(PositionEncoding.utf8.rawValue) ? .utf8 : .utf16
        let folders = params[member: "workspaceFolders"]?.array?.compactMap { $0[member: "uri"]?.string } ?? []
        let root = params[member: "rootUri"]?.string.map { [$0] } ?? []
        workspaceFolders = (folders.isEmpty ? root : folders).compactMap(DocumentURI.path(of:)).map(Paths.normalized)
        let workspace = params[member: "capabilities"]?[member: "workspace"]
        refreshesLenses = workspace?[member: "codeLens"]?[member: "refreshSupport"]?.boolean == true
        clientWatchesFiles = workspace?[member: "didChangeWatchedFiles"]?[member: "dynamicRegistration"]?.boolean == true
        initialized = true
        let capabilities: JSONValue = .object([
            ("positionEncoding", .string(encoding.rawValue)),
            (
                "textDocumentSync",
                .object([
                    ("openClose", .bool(true)), ("change", .integer(2)),
                    ("save", .object([("includeText", .bool(false))])),
                ])
            ),
            ("completionProvider", .object([("triggerCharacters", .array(["{", ".", "|", " "].map { .string($0) }))])),
            ("hoverProvider", .bool(true)),
            ("definitionProvider", .bool(true)),
            ("referencesProvider", .bool(true)),
            ("renameProvider", .object([("prepareProvider", .bool(true))])),
            ("documentSymbolProvider", .bool(true)),
            ("documentFormattingProvider", .bool(true)),
            ("foldingRangeProvider", .bool(true)),
            ("codeActionProvider", .object([("codeActionKinds", .array([.string("quickfix")]))])),
            ("documentLinkProvider", .object([("resolveProvider", .bool(false))])),
            ("workspaceSymbolProvider", .bool(true)),
            ("semanticTokensProvider", .object([("legend", Self.semanticTokensLegend), ("full", .bool(true))])),
            ("codeLensProvider", .object([("resolveProvider", .bool(false))])),
        ])
        return .success(
            .object([
                ("capabilities", capabilities),
                ("serverInfo", .object([("name", .string("promise-run")), ("version", .string(PromiseRunVersion.current))])),
            ]))
    }

    // MARK: Files changed outside the editor

    /// Asks a client that can to watch the workflows and the store for
    /// the server: a `git checkout` or another tool changes the files an
    /// analysis reads, or the store the lenses show.
    private func registerWatchedFiles() {
        guard clientWatchesFiles else { return }
        let patterns = ["**/*.workflow"] + (store?.patterns ?? [])
        let options: JSONValue = .object([("watchers", .array(patterns.map { .object([("globPattern", .string($0))]) }))])
        watchRegistration = sendRequest(
            "client/registerCapability",
            .object([
                (
                    "registrations",
                    .array([
                        .object([
                            ("id", .string("promise-run-watched-files")), ("method", .string("workspace/didChangeWatchedFiles")),
                            ("registerOptions", options),
                        ])
                    ])
                )
            ]))
    }

    /// `workspace/didChangeWatchedFiles`: a workflow changed on disk (not
    /// an open one: the editor's text wins) republishes the open files
    /// whose analysis read it, and those it now includes (their context
    /// may be it now); a made or removed one is found again under the
    /// workspace folders. Anything else is the store: the lenses are
    /// refreshed when it changed.
    private func watchedFilesChanged(_ changes: [JSONDocument]) {
        var touched: [String: OpenDocument] = [:]
        var storeTouched = false
        for change in changes {
            guard let uri = change[member: "uri"]?.string, let path = DocumentURI.path(of: uri).map(Paths.normalized) else { continue }
            guard path.hasSuffix(".workflow") else {
                storeTouched = true
                continue
            }
            guard !documents.values.contains(where: { $0.normalizedPath == path }) else { continue }
            // 1 made, 2 changed, 3 removed.
            let type = change[member: "type"]?.integer ?? 2
            if type != 2 { workspaceFiles = nil }
            diskTexts[path] = nil
            diskMentions = [:]
            let bytes = type == 3 ? [] : (try? FileSystem.readBytes(path).get()) ?? []
            let includes = Self.includes(of: bytes, path: path).map(\.target)
            for document in invalidateAnalyses(touching: path, trees: [], also: includes) { touched[document.uri] = document }
        }
        for document in touched.values { scheduleDiagnostics(document, now: true) }
        if storeTouched { storeChanged() }
    }

    // MARK: Diagnostics

    /// A document's text changed (or it opened): the analyses of its
    /// include tree are made again, and the diagnostics of the open
    /// documents in it (an included file's edit changes its includers').
    /// `previous`: its analysis before (the files it included then).
    private func changed(_ document: OpenDocument, previous: LanguageAnalysis?, now: Bool) {
        // The files it includes now are in the tree too (read off its include
        // lines: the analysis waits for the debounce or a request).
        let included = Self.includes(of: document).map(\.target)
        for other in invalidateAnalyses(touching: document.normalizedPath, trees: [previous], also: included) {
            scheduleDiagnostics(other, now: now)
        }
    }

    private func scheduleDiagnostics(_ document: OpenDocument, now: Bool) {
        changeCount += 1
        let change = changeCount
        pendingDiagnostics[document.uri] = change
        let uri = document.uri
        let run: @Sendable () -> Void = { [self] in
            guard pendingDiagnostics[uri] == change, let document = documents[uri] else { return }
            pendingDiagnostics[uri] = nil
            publishDiagnostics(document)
        }
        if now { queue.async(execute: run) } else { queue.asyncAfter(deadline: .now() + debounce, execute: run) }
    }

    private func publishDiagnostics(_ document: OpenDocument) {
        let included = isIncluded(document)
        let byFile = DiagnosticsMapping.diagnostics(of: document, in: analysis(of: document), encoding)
        var includes: Set<String> = []
        // An included document publishes its own only (its includer, open or
        // not, is not its to speak for); an open included file publishes its own.
        for (uri, diagnostics) in byFile where uri != document.uri && !included && documents[uri] == nil {
            includes.insert(uri)
            publish(uri: uri, diagnostics: diagnostics)
        }
        for stale in (publishedIncludes[document.uri] ?? []).subtracting(includes) { publish(uri: stale, diagnostics: []) }
        publishedIncludes[document.uri] = includes
        publish(uri: document.uri, diagnostics: byFile[document.uri] ?? [], version: document.version)
    }

    private func publish(uri: String, diagnostics: [JSONValue], version: Int? = nil) {
        var params: [(String, JSONValue)] = [("uri", .string(uri)), ("diagnostics", .array(diagnostics))]
        if let version { params.append(("version", .integer(version))) }
        connection.send(.notification(method: "textDocument/publishDiagnostics", params: .object(params)))
    }
}
