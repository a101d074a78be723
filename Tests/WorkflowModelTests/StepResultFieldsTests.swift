import JSON
import Testing

@testable import PromiseEngine
@testable import WorkflowModel

@Suite("StepResult fields")
struct StepResultFieldsTests {
    private func reason(_ result: StepResult, _ field: StepField) -> String? {
        do {
            _ = try result.value(of: field)
            return nil
        } catch {
            #expect(error.kind == .reference)
            return error.message
        }
    }

    @Test func processFields() throws {
        let result = StepResult(
            stdout: CapturedText(text: "out\n\n"), stderr: CapturedText(text: "err\r\n"), exitCode: 2,
            duration: .milliseconds(1234))
        #expect(try result.value(of: .stdout) == "out\n")
        #expect(try result.value(of: .stderr) == "err")
        #expect(try result.value(of: .exit) == "2")
        #expect(try result.value(of: .duration) == "1.234")
        #expect(reason(result, .status) == "the step has no HTTP status")
        #expect(reason(result, .header("x")) == "the step has no response headers")

        let killed = StepResult(stdout: CapturedText(text: ""), exitCode: nil, terminatingSignal: 9)
        #expect(reason(killed, .exit) == "the process has no exit code: it was ended by signal 9")
        #expect(try killed.value(of: .stdout) == "")
    }

    @Test func httpFields() throws {
        let result = StepResult(
            status: 201, headers: [("Content-Type", "application/json"), ("ETag", "\"v1\"")],
            body: CapturedText(text: #"{"token": "t0k", "items": [{"id": 5}], "ok": true}"#),
            duration: .microseconds(42_500))
        #expect(try result.value(of: .status) == "201")
        #expect(try result.value(of: .header("content-type")) == "application/json")
        #expect(try result.value(of: .header("ETAG")) == "\"v1\"")
        #expect(try result.value(of: .json(JSONPath([.key("token")]))) == "t0k")
        #expect(try result.value(of: .json(JSONPath([.key("items"), .index(0), .key("id")]))) == "5")
        #expect(try result.value(of: .json(JSONPath([.key("ok")]))) == "true")
        #expect(try result.value(of: .duration) == "0.043")
        #expect(reason(result, .header("X-Missing")) == "the response has no header 'X-Missing'")
        #expect(reason(result, .json(JSONPath([.key("nope")]))) == #"json path .nope leads nowhere: no key "nope""#)

        let html = StepResult(status: 200, body: CapturedText(text: "<html>"))
        #expect(reason(html, .json(JSONPath([.key("a")])))?.hasPrefix("the body is not JSON (unexpected character '<' at byte 0)") == true)
        let cut = StepResult(status: 200, body: CapturedText(text: "}", truncated: true, totalBytes: 10))
        #expect(reason(cut, .json(JSONPath([]))) != nil)
    }

    @Test func fileFieldsAndCaptures() throws {
        let result = StepResult(path: "/tmp/x", content: "text\n", captures: ["v": "1.2"])
        #expect(try result.value(of: .path) == "/tmp/x")
        #expect(try result.value(of: .content) == "text\n")
        #expect(try result.value(of: .capture("v")) == "1.2")
        #expect(reason(result, .capture("w")) == "the step has no capture 'w'")
        #expect(reason(result, .stdout) == "the step has no stdout")
    }

    @Test func durationsHaveThreeDecimals() {
        #expect(StepResult.secondsText(.zero) == "0.000")
        #expect(StepResult.secondsText(.milliseconds(5)) == "0.005")
        #expect(StepResult.secondsText(.seconds(61) + .microseconds(999_600)) == "62.000")
        #expect(StepResult.withoutFinalNewline("a\n") == "a")
        #expect(StepResult.withoutFinalNewline("a") == "a")
        #expect(StepResult.withoutFinalNewline("\n") == "")
    }
}
