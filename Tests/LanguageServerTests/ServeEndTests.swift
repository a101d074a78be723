import Dispatch
import Foundation
import Glibc
import JSONRPC
import Testing

@testable import LanguageServer

/// What an adopter of the library relies on when `serve` returns: the
/// server writes nothing more, so its output descriptor may be closed (and
/// its number reused by the next file the process opens).
@Suite("The language server's end")
struct ServeEndTests {
    private func frame(_ body: String) -> [UInt8] { MessageFraming.frame(Array(body.utf8)) }

    @Test("a diagnostic still pending when serve returns is never written: the output is the caller's to close")
    func nothingIsWrittenAfterServeReturns() throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        try #require(pipe(&input) == 0 && pipe(&output) == 0)
        defer {
            Glibc.close(output[0])
            Glibc.close(output[1])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-end-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let uri = "file://" + folder.appendingPathComponent("w.workflow").path
        // An open (its diagnostics at once), a change, then `exit` at once:
        // the change's diagnostics wait out the debounce, well after
        // `serve` has returned.
        let messages = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://\#(folder.path)","capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            #"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"\#(uri)","languageId":"promise-workflow","version":1,"text":"a: sh \"true\"\n"}}}"#,
            #"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"\#(uri)","version":2},"contentChanges":[{"text":"a: sh \"false\"\n"}]}}"#,
            #"{"jsonrpc":"2.0","method":"exit","params":null}"#,
        ]
        let bytes = messages.flatMap(frame)
        try #require(bytes.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) } == bytes.count)
        Glibc.close(input[1])
        let server = LanguageServer(output: output[1], debounce: .milliseconds(300))
        let code = server.serve(input: input[0])
        Glibc.close(input[0])
        #expect(code == 1, "exit without shutdown")
        let written = try #require(Self.drain(output[0]))
        #expect(String(decoding: written, as: UTF8.self).contains(#""id":1"#), "the initialize response")
        // Past the debounce: had the diagnostic been written, it would be
        // in the pipe now.
        Thread.sleep(forTimeInterval: 0.6)
        let late = try #require(Self.drain(output[0]))
        #expect(late.isEmpty, "written after serve returned: \(String(decoding: late, as: UTF8.self))")
    }

    /// What the pipe holds now, without waiting for more.
    private static func drain(_ descriptor: Int32) -> [UInt8]? {
        let flags = fcntl(descriptor, F_GETFL)
        guard fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return nil }
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                all += chunk[0..<count]
            } else {
                return count == 0 || errno == EAGAIN ? all : nil
            }
        }
    }
}
