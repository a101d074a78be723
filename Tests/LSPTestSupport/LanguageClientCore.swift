package import Foundation

/// What the language server tests' two clients share: `TestLanguageClient`
/// (the server's library in this process) and `LSPClient` (the built
/// binary). Each reads the server's frames its own way and hands each
/// message here; here they are kept until a test takes them, with the one
/// wait loop, request ids, and messages framed as LSP frames them
/// (`Content-Length`).
package final class LanguageClientCore: @unchecked Sendable {
    // @unchecked: `messages`, `ended` and `nextID` are behind `lock`; the rest is set once.
    private let lock = NSCondition()
    private var messages: [[String: Any]] = []
    private var ended = false
    private var nextID = 1
    private let write: @Sendable (Data) -> Void

    /// `write`: how bytes reach the server.
    package init(write: @escaping @Sendable (Data) -> Void) {
        self.write = write
    }

    // MARK: What the server sent

    /// A message the server sent (the client's reader calls this).
    package func received(_ message: [String: Any]) {
        lock.lock()
        messages.append(message)
        lock.broadcast()
        lock.unlock()
    }

    /// The server's output ended: waits end too.
    package func outputEnded() {
        lock.lock()
        ended = true
        lock.broadcast()
        lock.unlock()
    }

    /// Waits for a message that `matches` (and takes it).
    package func wait(timeout: TimeInterval = 20, _ what: String, _ matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let index = messages.firstIndex(where: matches) { return messages.remove(at: index) }
            if ended || !lock.wait(until: deadline) {
                throw LanguageClientError(message: "no \(what) within \(timeout) s (ended: \(ended))")
            }
        }
    }

    /// Drops what the server sent so far (stale diagnostics).
    package func forget() {
        lock.lock()
        messages.removeAll()
        lock.unlock()
    }

    // MARK: What the client sends

    /// Sends bytes as they are (for malformed input).
    package func sendRaw(_ bytes: Data) {
        write(bytes)
    }

    /// Sends one framed message.
    package func send(_ message: [String: Any]) throws {
        var message = message
        message["jsonrpc"] = "2.0"
        let body = try JSONSerialization.data(withJSONObject: message)
        write(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    package func notify(_ method: String, _ params: [String: Any] = [:]) throws {
        try send(["method": method, "params": params])
    }

    /// Sends a request and waits for its whole response.
    package func requestResponse(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 20) throws -> [String: Any] {
        lock.lock()
        let id = nextID
        nextID += 1
        lock.unlock()
        try send(["id": id, "method": method, "params": params])
        return try wait(timeout: timeout, "the response to \(method)") { $0["id"] as? Int == id && $0["method"] == nil }
    }

    // MARK: LSP

    /// The next `publishDiagnostics` for `uri`: its diagnostics.
    package func diagnostics(uri: String, timeout: TimeInterval = 20) throws -> [[String: Any]] {
        let message = try wait(timeout: timeout, "diagnostics for \(uri)") {
            $0["method"] as? String == "textDocument/publishDiagnostics" && ($0["params"] as? [String: Any])?["uri"] as? String == uri
        }
        return (message["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []
    }

    /// The next request the server sends the client with `method`,
    /// answered with `result`; its params.
    @discardableResult
    package func served(_ method: String, timeout: TimeInterval = 20, result: Any = NSNull()) throws -> Any? {
        let message = try wait(timeout: timeout, "a \(method) request") { $0["method"] as? String == method && $0["id"] != nil }
        try send(["id": message["id"]!, "result": result])
        return message["params"]
    }

    /// Whether a request or notification with `method` came within `timeout`.
    package func sent(_ method: String, within timeout: TimeInterval) -> Bool {
        (try? wait(timeout: timeout, method) { $0["method"] as? String == method }) != nil
    }
}

package struct LanguageClientError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }
}

/// A test client of the language server: what both clients do the same
/// way, over their `core`, with the workspace folder's files named
/// relative to it.
package protocol LanguageClient: AnyObject {
    var core: LanguageClientCore { get }
    /// The workspace folder.
    var folder: URL { get }
}

extension LanguageClient {
    package func send(_ message: [String: Any]) throws { try core.send(message) }
    package func sendRaw(_ bytes: Data) { core.sendRaw(bytes) }
    package func notify(_ method: String, _ params: [String: Any] = [:]) throws { try core.notify(method, params) }
    package func forget() { core.forget() }

    /// Waits for a message the server sent that `matches` (and takes it).
    package func wait(timeout: TimeInterval = 20, _ what: String, _ matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        try core.wait(timeout: timeout, what, matches)
    }

    /// The next request the server sends with `method`, answered; its params.
    @discardableResult
    package func served(_ method: String, timeout: TimeInterval = 20, result: Any = NSNull()) throws -> Any? {
        try core.served(method, timeout: timeout, result: result)
    }

    /// Whether a request or notification with `method` came within `timeout`.
    package func sent(_ method: String, within timeout: TimeInterval) -> Bool { core.sent(method, within: timeout) }

    package func uri(_ name: String) -> String { "file://" + folder.appendingPathComponent(name).path }

    package func open(_ name: String, _ text: String, version: Int = 1) throws {
        try notify("textDocument/didOpen", ["textDocument": ["uri": uri(name), "languageId": "promise-run", "version": version, "text": text]])
    }

    package func change(_ name: String, _ text: String, version: Int) throws {
        try notify("textDocument/didChange", ["textDocument": ["uri": uri(name), "version": version], "contentChanges": [["text": text]]])
    }

    package func close(_ name: String) throws {
        try notify("textDocument/didClose", ["textDocument": ["uri": uri(name)]])
    }
}
