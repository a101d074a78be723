import CSystemShims
import JSON
import PromiseEngine
import WorkflowModel

/// `expect xpath "EXPR" ...` and `capture NAME = xpath "EXPR"`:
/// XPath 1.0 on the body, with the system's libxml2 (loaded when a run
/// first needs it). An HTML body (its Content-Type says `html`, or it
/// starts with `<!DOCTYPE html` or `<html`) is read by libxml2's HTML
/// parser, anything else by its XML parser.
/// See docs/steps.md, 'For Hurl users'.
enum XPathQuery {
    /// The value of `expression` on `body`: a node set as the list of its
    /// nodes' texts, a string, a boolean, a number. Throws the reason
    /// (libxml2 missing, a body that does not parse, an expression that is
    /// not XPath).
    static func evaluate(_ expression: String, on body: String, contentType: String?) throws(XPathFailure) -> JSONDocument {
        final class Texts {
            var items: [String] = []
        }
        let texts = Texts()
        var boolean: Int32 = 0
        var number: Double = 0
        var message = [CChar](repeating: 0, count: 1024)
        let html = isHTML(body, contentType: contentType)
        // The body's bytes and a NUL after them (an empty body has no
        // address of its own).
        let bytes = Array(body.utf8) + [0]
        let type = withExtendedLifetime(texts) { () -> Int32 in
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                    csh_xpath_evaluate(
                        start, buffer.count - 1, html ? 1 : 0, expression,
                        { data, text, length in
                            let texts = Unmanaged<Texts>.fromOpaque(data!).takeUnretainedValue()
                            let buffer = UnsafeRawBufferPointer(start: text, count: length)
                            texts.items.append(String(decoding: buffer, as: UTF8.self))
                        }, Unmanaged.passUnretained(texts).toOpaque(), &boolean, &number, &message, message.count)
                }
            }
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(type) {
        case Int(CSH_XPATH_NODESET): return .array(texts.items.map { .string($0) })
        case Int(CSH_XPATH_STRING): return .string(texts.items.first ?? "")
        case Int(CSH_XPATH_BOOLEAN): return .bool(boolean != 0)
        case Int(CSH_XPATH_NUMBER):
            guard number.isFinite else { return .null }
            if number == number.rounded(), abs(number) < 1e15 { return .number(JSONNumber(Int(number))) }
            return .number(JSONNumber(text: String(number)))
        default:
            var loading = [CChar](repeating: 0, count: 512)
            if csh_xml_load(&loading, loading.count) != 0 {
                throw XPathFailure(
                    message: "xpath needs libxml2 (libxml2.so.2), which could not be loaded: \(reason)"
                        + "; install it (Debian and Ubuntu: apt-get install libxml2)")
            }
            throw XPathFailure(message: reason.isEmpty ? "the expression could not be evaluated" : reason)
        }
    }

    /// Whether the body is HTML: its Content-Type says so, or it starts so.
    static func isHTML(_ body: String, contentType: String?) -> Bool {
        if let contentType = contentType?.lowercased() {
            if contentType.contains("html") && !contentType.contains("xhtml") { return true }
            if contentType.contains("xml") { return false }
        }
        let start = body.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
            .prefix(14)
        let head = String(decoding: start, as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.hasPrefix("<html")
    }
}

/// Why an XPath expression gave no value.
struct XPathFailure: Error {
    var message: String
}
