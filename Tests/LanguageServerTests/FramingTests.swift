import JSON
import JSONRPC
import Testing
import WorkflowModel

/// The base protocol's framing and JSON-RPC messages, on their own.
@Suite("JSON-RPC framing and messages")
struct FramingTests {
    private func frame(_ body: String) -> [UInt8] { MessageFraming.frame(Array(body.utf8)) }

    @Test("a frame split anywhere, and several frames in one read, give the same bodies")
    func splitsAndJoins() {
        let stream = frame(#"{"a":1}"#) + frame(#"{"b":"é"}"#) + frame("{}")
        for cut in 0...stream.count {
            var reader = FrameReader()
            let events = reader.feed(stream[0..<cut]) + reader.feed(stream[cut...])
            #expect(events == [.body(Array(#"{"a":1}"#.utf8)), .body(Array(#"{"b":"é"}"#.utf8)), .body(Array("{}".utf8))], "cut at \(cut)")
        }
    }

    @Test("headers: Content-Type is allowed, names are case-insensitive, a bad or missing length is reported and skipped")
    func headers() {
        var reader = FrameReader()
        let good = Array("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}".utf8)
        #expect(reader.feed(good) == [.body(Array("{}".utf8))])
        #expect(reader.feed(Array("Content-Length: many\r\n\r\n".utf8)) == [.malformedHeader("Content-Length is not a number (many)")])
        #expect(reader.feed(Array("X: 1\r\n\r\n".utf8)) == [.malformedHeader("a header part without Content-Length")])
        // The stream goes on after them.
        #expect(reader.feed(frame("[1]")) == [.body(Array("[1]".utf8))])
        var small = FrameReader(maximumBody: 10)
        #expect(small.feed(Array("Content-Length: 11\r\n\r\n".utf8)) == [.malformedHeader("Content-Length 11 is over the limit of 10 bytes")])
    }

    @Test("a wrong Content-Length costs that message only: too long or too short (characters counted, not bytes), split anywhere")
    func wrongLengthResynchronises() {
        let good = frame(#"{"a":1}"#)
        let next = frame(#"{"b":2}"#)
        let body = #"{"t":"é é é"}"#
        let tooLong = Array("Content-Length: \(body.utf8.count + 40)\r\n\r\n\(body)".utf8)
        let tooShort = Array("Content-Length: \(body.count)\r\n\r\n\(body)".utf8)
        for (name, wrong) in [("too long", tooLong), ("too short", tooShort)] {
            let stream = good + wrong + next + good
            for cut in 0...stream.count {
                var reader = FrameReader()
                let events = reader.feed(stream[0..<cut]) + reader.feed(stream[cut...])
                let bodies = events.compactMap { event -> String? in
                    if case .body(let bytes) = event { return String(decoding: bytes, as: UTF8.self) }
                    return nil
                }
                #expect(bodies.first == #"{"a":1}"#, "\(name), cut at \(cut): \(events)")
                #expect(Array(bodies.suffix(2)) == [#"{"b":2}"#, #"{"a":1}"#], "\(name), cut at \(cut): \(events)")
                if name == "too long" { #expect(bodies.count == 4 && bodies[1] == body, "the whole body is still read: \(bodies)") }
            }
        }
    }

    @Test("requests, notifications and responses are told apart; ids are numbers or strings")
    func messages() throws {
        guard case .success(.request(let id, let method, _)) = Message.parse(Array(#"{"jsonrpc":"2.0","id":"x1","method":"m","params":{}}"#.utf8))
        else {
            Issue.record("not a request")
            return
        }
        #expect(id == .string("x1") && method == "m")
        guard case .success(.notification("n", _)) = Message.parse(Array(#"{"jsonrpc":"2.0","method":"n"}"#.utf8)) else {
            Issue.record("not a notification")
            return
        }
        guard
            case .success(.response(.number(7), .failure(let error))) = Message.parse(
                Array(#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#.utf8))
        else {
            Issue.record("not an error response")
            return
        }
        #expect(error == ResponseError(code: -32601, message: "no"))
        for (bad, code) in [("{", -32700), ("[]", -32600), (#"{"id":1.5,"method":"m"}"#, -32600), (#"{"id":1}"#, -32600)] {
            guard case .failure(let failure) = Message.parse(Array(bad.utf8)) else {
                Issue.record("\(bad) parsed")
                continue
            }
            #expect(failure.error.code == code, "\(bad)")
        }
    }

    @Test("a response is written as JSON-RPC 2.0 with its id, result or error")
    func writing() {
        let success = String(decoding: OutgoingMessage.response(id: .number(3), result: .success(.object([("ok", .bool(true))]))).body, as: UTF8.self)
        #expect(success == #"{"jsonrpc":"2.0","id":3,"result":{"ok":true}}"#)
        let failure = String(
            decoding: OutgoingMessage.response(id: nil, result: .failure(ResponseError(code: -32700, message: "bad"))).body,
            as: UTF8.self)
        #expect(failure == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#)
        #expect(Connection.isValidUTF8(Array("é😀".utf8)))
        #expect(!Connection.isValidUTF8([0x63, 0xE9, 0x20]))
    }
}
