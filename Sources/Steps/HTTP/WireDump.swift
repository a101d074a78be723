import WorkflowModel

/// `-vv`: an http step's request and response as text, as
/// `curl -v` shows them: `> ` before what was sent, `< ` before what came,
/// the start line, the headers, and the first 4 KiB of each body. The
/// request is what the transport sent (its bytes, or what libcurl says it
/// sent), not what the step asked for.
/// See docs/language.md, 'Load'.
enum WireDump {
    /// The most of a body shown.
    static let bodyLimit = 4096

    /// A request's head as it went out (`GET / HTTP/1.1` CR LF, the
    /// headers, an empty line), each line behind `> `.
    static func sentHead(_ head: some Sequence<UInt8>) -> String {
        let lines = String(decoding: Array(head), as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.map { "> " + $0 }.joined(separator: "\n") + "\n>\n"
    }

    /// A request's body as it went out: `body file` as its size and path.
    static func sentBody(_ body: RequestBody) -> String {
        switch body {
        case .none: return ""
        case .bytes(let bytes): return self.body(bytes, prefix: "> ")
        case .file(let path, let size): return "> (\(size) bytes from \(path))\n"
        }
    }

    /// A response's head.
    static func response(_ head: ResponseHead) -> String {
        var lines = ["< HTTP/\(head.version) \(head.status)" + (head.reason.isEmpty ? "" : " " + head.reason)]
        for header in head.headers { lines.append("< \(header.name): \(header.value)") }
        return lines.joined(separator: "\n") + "\n<\n"
    }

    /// A body's first `bodyLimit` bytes, as text, each line behind
    /// `prefix`; what is left out of its `total` bytes is said.
    static func body(_ bytes: some Collection<UInt8>, total: Int? = nil, prefix: String) -> String {
        guard !bytes.isEmpty else { return "" }
        let shown = String(decoding: bytes.prefix(bodyLimit), as: UTF8.self)
        var text = shown.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
        if !text.hasSuffix("\n") { text += "\n" }
        let total = total ?? bytes.count
        if total > bodyLimit { text += "\(prefix)(\(total - bodyLimit) more bytes)\n" }
        return text
    }
}
