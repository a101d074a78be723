import Foundation
import Glibc
import JSONRPC
@testable import LanguageServer

/// A client driving the `LanguageServer` library in this process (as
/// sourcekit-lsp's `TestSourceKitLSPClient` does): two pipes, the server's
/// `serve` on a thread of its own, frames both ways. `serve` returning is
/// how the server ends: the library never exits the process.
final class TestLanguageClient: @unchecked Sendable {
    // @unchecked: `frames`, `ended`, `nextID` and `exitCode` are behind `lock`; the rest is set once.
    private let lock = NSCondition()
    private var frames: [[String: Any]] = []
    private var ended = false
    private var nextID = 1
    private var exitCode: Int32?
    private let toServer: Int32
    let folder: URL
    /// The server (read its state on its queue).
    let server: LanguageServer

    /// A server whose workspace folder is a new temporary folder (with
    /// `store` for its code lens).
    init(store: LocalStore? = nil, debounce: DispatchTimeInterval = .milliseconds(5)) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("lsp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw ClientError(message: "pipe failed") }
        toServer = input[1]
        let server = LanguageServer(output: output[1], debounce: debounce, store: store)
        self.server = server
        let serverInput = input[0], serverOutput = output[1], fromServer = output[0]
        Thread {
            let code = server.serve(input: serverInput)
            Glibc.close(serverInput)
            Glibc.close(serverOutput)
            self.lock.lock()
            self.exitCode = code
            self.lock.broadcast()
            self.lock.unlock()
        }.start()
        Thread { self.readLoop(fromServer) }.start()
    }

    deinit {
        Glibc.close(toServer)
        try? FileManager.default.removeItem(at: folder)
    }

    private func readLoop(_ descriptor: Int32) {
        var reader = FrameReader()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            for case .body(let body) in reader.feed(chunk[0..<count]) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { continue }
                lock.lock()
                frames.append(object)
                lock.broadcast()
                lock.unlock()
            }
        }
        Glibc.close(descriptor)
        lock.lock()
        ended = true
        lock.broadcast()
        lock.unlock()
    }

    /// Sends one framed message.
    func send(_ message: [String: Any]) throws {
        var message = message
        message["jsonrpc"] = "2.0"
        let bytes = [UInt8](MessageFraming.frame([UInt8](try JSONSerialization.data(withJSONObject: message))))
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(toServer, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    func notify(_ method: String, _ params: [String: Any] = [:]) throws {
        try send(["method": method, "params": params])
    }

    /// Sends a request and waits for its response's `result` (an error throws).
    @discardableResult
    func request(_ method: String, _ params: [String: Any] = [:]) throws -> Any? {
        let response = try requestResponse(method, params)
        if let error = response["error"] as? [String: Any] { throw ClientError(message: "\(method): \(error)") }
        return response["result"]
    }

    /// Sends a request and waits for its whole response.
    func requestResponse(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        lock.lock()
        let id = nextID
        nextID += 1
        lock.unlock()
        try send(["id": id, "method": method, "params": params])
        return try wait("the response to \(method)") { $0["id"] as? Int == id && $0["method"] == nil }
    }

    /// Waits for a message that `matches` (and takes it).
    func wait(timeout: TimeInterval = 20, _ what: String, _ matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let index = frames.firstIndex(where: matches) { return frames.remove(at: index) }
            if ended || !lock.wait(until: deadline) { throw ClientError(message: "no \(what) within \(timeout) s") }
        }
    }

    /// The next diagnostics published for `name`: their messages.
    func diagnostics(_ name: String) throws -> [String] {
        let uri = self.uri(name)
        let message = try wait("diagnostics for \(name)") {
            $0["method"] as? String == "textDocument/publishDiagnostics" && ($0["params"] as? [String: Any])?["uri"] as? String == uri
        }
        return ((message["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    /// Diagnostics published for `name`, taken in order until `matches`
    /// holds (earlier ones may still be on their way); the last taken.
    func diagnostics(_ name: String, until matches: ([String]) -> Bool) throws -> [String] {
        while true {
            let found = try diagnostics(name)
            if matches(found) { return found }
        }
    }

    /// The next request the server sends the client with `method`,
    /// answered with `result`; its params.
    @discardableResult
    func served(_ method: String, timeout: TimeInterval = 20, result: Any = NSNull()) throws -> Any? {
        let message = try wait(timeout: timeout, "a \(method) request") { $0["method"] as? String == method && $0["id"] != nil }
        try send(["id": message["id"]!, "result": result])
        return message["params"]
    }

    /// Whether a request or notification with `method` came within `timeout`.
    func sent(_ method: String, within timeout: TimeInterval) -> Bool {
        (try? wait(timeout: timeout, method) { $0["method"] as? String == method }) != nil
    }

    /// Drops what the server sent so far (stale diagnostics).
    func forget() {
        lock.lock()
        frames.removeAll()
        lock.unlock()
    }

    /// `initialize` (this folder the workspace) and `initialized`.
    func start(capabilities: [String: Any] = [:]) throws {
        try request("initialize", ["processId": NSNull(), "capabilities": capabilities,
                                   "workspaceFolders": [["uri": "file://" + folder.path, "name": "w"]]])
        try notify("initialized")
    }

    func uri(_ name: String) -> String { "file://" + folder.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws {
        try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func open(_ name: String, _ text: String, version: Int = 1) throws {
        try notify("textDocument/didOpen", ["textDocument": ["uri": uri(name), "languageId": "promise-run", "version": version, "text": text]])
    }

    func change(_ name: String, _ text: String, version: Int) throws {
        try notify("textDocument/didChange", ["textDocument": ["uri": uri(name), "version": version], "contentChanges": [["text": text]]])
    }

    func close(_ name: String) throws {
        try notify("textDocument/didClose", ["textDocument": ["uri": uri(name)]])
    }

    /// `textDocument` and `position` params.
    func at(_ name: String, _ line: Int, _ character: Int) -> [String: Any] {
        ["textDocument": ["uri": uri(name)], "position": ["line": line, "character": character]]
    }

    /// shutdown and exit; what `serve` returned (the code the executable exits with).
    func stop() throws -> Int32? {
        try request("shutdown")
        try notify("exit")
        let deadline = Date().addingTimeInterval(20)
        lock.lock()
        defer { lock.unlock() }
        while exitCode == nil, lock.wait(until: deadline) {}
        return exitCode
    }

    struct ClientError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
