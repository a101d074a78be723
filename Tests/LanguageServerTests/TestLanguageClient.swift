import Foundation
import Glibc
import JSONRPC
import LSPTestSupport

@testable import LanguageServer

/// A client driving the `LanguageServer` library in this process (as
/// sourcekit-lsp's `TestSourceKitLSPClient` does): two pipes, the server's
/// `serve` on a thread of its own, frames both ways (the messages kept
/// and waited for as `LSPClient`'s, in `LanguageClientCore`). `serve`
/// returning is how the server ends: the library never exits the process.
final class TestLanguageClient: LanguageClient, @unchecked Sendable {
    // @unchecked: `exitCode` is behind `lock`; the rest is set once.
    private let lock = NSCondition()
    private var exitCode: Int32?
    private let toServer: Int32
    let core: LanguageClientCore
    let folder: URL
    /// The server (read its state on its queue).
    let server: LanguageServer

    /// A server whose workspace folder is a new temporary folder (with
    /// `store` for its code lens).
    init(store: LocalStore? = nil, debounce: DispatchTimeInterval = .milliseconds(5)) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("lsp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw LanguageClientError(message: "pipe failed") }
        let toServer = input[1]
        self.toServer = toServer
        core = LanguageClientCore { bytes in
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(toServer, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
        let server = LanguageServer(output: output[1], debounce: debounce, store: store)
        self.server = server
        let serverInput = input[0]
        let serverOutput = output[1]
        let fromServer = output[0]
        Thread {
            let code = server.serve(input: serverInput)
            Glibc.close(serverInput)
            Glibc.close(serverOutput)
            self.lock.lock()
            self.exitCode = code
            self.lock.broadcast()
            self.lock.unlock()
        }.start()
        Thread { [core] in Self.readLoop(fromServer, into: core) }.start()
    }

    deinit {
        Glibc.close(toServer)
        try? FileManager.default.removeItem(at: folder)
    }

    /// The server's frames, read with the library's own reader.
    private static func readLoop(_ descriptor: Int32, into core: LanguageClientCore) {
        var reader = FrameReader()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            for case .body(let body) in reader.feed(chunk[0..<count]) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { continue }
                core.received(object)
            }
        }
        Glibc.close(descriptor)
        core.outputEnded()
    }

    /// Sends a request and waits for its response's `result` (an error throws).
    @discardableResult
    func request(_ method: String, _ params: [String: Any] = [:]) throws -> Any? {
        let response = try requestResponse(method, params)
        if let error = response["error"] as? [String: Any] { throw LanguageClientError(message: "\(method): \(error)") }
        return response["result"]
    }

    /// Sends a request and waits for its whole response.
    func requestResponse(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        try core.requestResponse(method, params)
    }

    /// The next diagnostics published for `name`: their messages.
    func diagnostics(_ name: String) throws -> [String] {
        try core.diagnostics(uri: uri(name)).compactMap { $0["message"] as? String }
    }

    /// Diagnostics published for `name`, taken in order until `matches`
    /// holds (earlier ones may still be on their way); the last taken.
    func diagnostics(_ name: String, until matches: ([String]) -> Bool) throws -> [String] {
        while true {
            let found = try diagnostics(name)
            if matches(found) { return found }
        }
    }

    /// `initialize` (this folder the workspace) and `initialized`.
    func start(capabilities: [String: Any] = [:]) throws {
        try request(
            "initialize",
            [
                "processId": NSNull(), "capabilities": capabilities,
                "workspaceFolders": [["uri": "file://" + folder.path, "name": "w"]],
            ])
        try notify("initialized")
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
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
}

extension TestLanguageClient {
    /// Writes the workspace's `.promise-run/last-results.json` (its
    /// folder made when missing), as the runner does: a folder made, then
    /// a file renamed in. The store's folder.
    @discardableResult
    func writeLastResults(_ text: String) throws -> URL {
        let store = folder.appendingPathComponent(".promise-run")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try text.write(to: store.appendingPathComponent("last-results.json"), atomically: true, encoding: .utf8)
        return store
    }
}
