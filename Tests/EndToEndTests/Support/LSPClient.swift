import Foundation
import LSPTestSupport
import Testing

/// A language-server client for the tests: starts `promise-run lsp`, reads
/// its frames (`Content-Length`) with a parser of its own, not the
/// server's, and hands the messages to `LanguageClientCore` (the numbered
/// requests, the kept messages and the wait loop `TestLanguageClient`
/// shares). Every byte the server writes to stdout must belong to a frame:
/// `strayOutput` is checked by the tests that care.
final class LSPClient: LanguageClient, @unchecked Sendable {
    // @unchecked: `buffer` and `notFrames` are behind `lock`; the rest is set once.
    private let process = ChildProcess()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var buffer = Data()
    private var notFrames: [String] = []
    let core: LanguageClientCore
    let folder: URL
    /// A folder the client made for itself, removed with it.
    private let ownsFolder: Bool

    /// A server in `folder` (without one, in a temporary folder of its
    /// own), started with `arguments`.
    init(folder: URL? = nil, arguments: [String] = ["lsp"]) throws {
        self.folder = try folder ?? Binary.temporaryFolder()
        ownsFolder = folder == nil
        let writing = input.fileHandleForWriting
        core = LanguageClientCore { bytes in writing.write(bytes) }
        guard let binary = Binary.url else { throw LanguageClientError(message: "build promise-run first (swift build)") }
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
        if data.isEmpty {
            output.fileHandleForReading.readabilityHandler = nil
            core.outputEnded()
            return
        }
        var messages: [[String: Any]] = []
        lock.lock()
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
                messages.append(object)
            } else {
                notFrames.append(String(decoding: body, as: UTF8.self))
            }
            buffer.removeSubrange(buffer.startIndex..<(headerEnd.upperBound + length))
        }
        lock.unlock()
        for message in messages { core.received(message) }
    }

    /// Sends a request and waits for its response (the whole message).
    @discardableResult
    func request(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 20) throws -> [String: Any] {
        try core.requestResponse(method, params, timeout: timeout)
    }

    /// The next `publishDiagnostics` for `uri`.
    func diagnostics(for uri: String, timeout: TimeInterval = 20) throws -> [[String: Any]] {
        try core.diagnostics(uri: uri, timeout: timeout)
    }

    /// `initialize` and `initialized`.
    func start(encodings: [String]? = nil, capabilities: [String: Any] = [:]) throws -> [String: Any] {
        var capabilities = capabilities
        if let encodings { capabilities["general"] = ["positionEncodings": encodings] }
        let response = try request("initialize", ["processId": NSNull(), "rootUri": "file://" + folder.path, "capabilities": capabilities])
        try notify("initialized")
        return response
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
}

/// A position in LSP's terms.
func lspPosition(_ line: Int, _ character: Int) -> [String: Any] { ["line": line, "character": character] }

/// Whether a code lens's title ends in a recent time: `just now`, or
/// seconds or minutes ago. How the time reads is LensStore's (its unit
/// tests); a suite running every test at once can hold a test a minute
/// between its run and the lens it asks for.
func endsWithRecentTime(_ title: String?) -> Bool {
    title?.contains(/, (just now|\d+ seconds? ago|\d+ minutes? ago)$/) == true
}
