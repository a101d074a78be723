import Foundation
import Testing

/// A language-server client for the tests: starts `promise-run lsp`, frames
/// messages (`Content-Length`), numbers requests, matches responses by id,
/// and keeps the notifications the server sends. Every byte the server
/// writes to stdout must belong to a frame: `rawOutput` is checked by the
/// tests that care.
final class LSPClient: @unchecked Sendable {
    // @unchecked: `state` is behind `lock`; the rest is set once.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSCondition()
    private var buffer = Data()
    private var frames: [[String: Any]] = []
    private var notFrames: [String] = []
    private var raw = Data()
    private var ended = false
    private var nextID = 1
    let folder: URL
    /// A folder the client made for itself, removed with it.
    private let ownsFolder: Bool

    /// A server in `folder` (without one, in a temporary folder of its
    /// own), started with `arguments`.
    init(folder: URL? = nil, arguments: [String] = ["lsp"]) throws {
        self.folder = try folder ?? Binary.temporaryFolder()
        ownsFolder = folder == nil
        guard let binary = Binary.url else { throw LSPClientError(message: "build promise-run first (swift build)") }
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.received(data)
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        if ownsFolder { try? FileManager.default.removeItem(at: folder) }
    }

    private func received(_ data: Data) {
        lock.lock()
        defer { lock.broadcast(); lock.unlock() }
        if data.isEmpty {
            ended = true
            output.fileHandleForReading.readabilityHandler = nil
            return
        }
        raw.append(data)
        buffer.append(data)
        while let headerEnd = buffer.range(of: Data("\r\n\r\n".utf8)) {
            let header = String(decoding: buffer[buffer.startIndex..<headerEnd.lowerBound], as: UTF8.self)
            guard header.hasPrefix("Content-Length: "), let length = Int(header.dropFirst("Content-Length: ".count)) else {
                notFrames.append(header)
                buffer.removeSubrange(buffer.startIndex..<headerEnd.upperBound)
                continue
            }
            guard buffer.count - (headerEnd.upperBound - buffer.startIndex) >= length else { break }
            let body = buffer[headerEnd.upperBound..<(headerEnd.upperBound + length)]
            if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
                frames.append(object)
            } else {
                notFrames.append(String(decoding: body, as: UTF8.self))
            }
            buffer.removeSubrange(buffer.startIndex..<(headerEnd.upperBound + length))
        }
    }

    /// Sends bytes as they are (for malformed input).
    func sendRaw(_ bytes: Data) {
        input.fileHandleForWriting.write(bytes)
    }

    /// Sends one framed message.
    func send(_ message: [String: Any]) throws {
        var message = message
        message["jsonrpc"] = "2.0"
        let body = try JSONSerialization.data(withJSONObject: message)
        sendRaw(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    func notify(_ method: String, _ params: [String: Any] = [:]) throws {
        try send(["method": method, "params": params])
    }

    /// Sends a request and waits for its response (the whole message).
    @discardableResult
    func request(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 20) throws -> [String: Any] {
        lock.lock()
        let id = nextID
        nextID += 1
        lock.unlock()
        try send(["id": id, "method": method, "params": params])
        return try wait(timeout: timeout, "the response to \(method)") { $0["id"] as? Int == id && $0["method"] == nil }
    }

    /// Waits for a message the server sent that `matches` (and takes it).
    func wait(timeout: TimeInterval = 20, _ what: String, _ matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let index = frames.firstIndex(where: matches) { return frames.remove(at: index) }
            if ended || !lock.wait(until: deadline) {
                throw LSPClientError(message: "no \(what) within \(timeout) s (ended: \(ended))")
            }
        }
    }

    /// The next `publishDiagnostics` for `uri`.
    func diagnostics(for uri: String, timeout: TimeInterval = 20) throws -> [[String: Any]] {
        let message = try wait(timeout: timeout, "diagnostics for \(uri)") {
            $0["method"] as? String == "textDocument/publishDiagnostics" && ($0["params"] as? [String: Any])?["uri"] as? String == uri
        }
        return (message["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []
    }

    /// `initialize` and `initialized`.
    func start(encodings: [String]? = nil, capabilities: [String: Any] = [:]) throws -> [String: Any] {
        var capabilities = capabilities
        if let encodings { capabilities["general"] = ["positionEncodings": encodings] }
        let response = try request("initialize", ["processId": NSNull(), "rootUri": "file://" + folder.path, "capabilities": capabilities])
        try notify("initialized")
        return response
    }

    func uri(_ name: String) -> String { "file://" + folder.appendingPathComponent(name).path }

    func open(_ name: String, _ text: String, version: Int = 1) throws {
        try notify("textDocument/didOpen", ["textDocument": ["uri": uri(name), "languageId": "promise-run", "version": version, "text": text]])
    }

    /// Ends the server (shutdown, exit unless `exitOnly`); its exit code.
    func stop(shutdown: Bool = true) throws -> Int32 {
        if shutdown { try request("shutdown") }
        try notify("exit")
        input.fileHandleForWriting.closeFile()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? -1 : process.terminationStatus
    }

    /// What stdout had that was not a frame of JSON.
    var strayOutput: [String] {
        lock.lock()
        defer { lock.unlock() }
        return notFrames + (buffer.isEmpty ? [] : [String(decoding: buffer, as: UTF8.self)])
    }

    struct LSPClientError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// A position in LSP's terms.
func lspPosition(_ line: Int, _ character: Int) -> [String: Any] { ["line": line, "character": character] }
