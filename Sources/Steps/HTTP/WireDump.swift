import WorkflowModel

/// `-vv` (spec §20): an http step's request and response as text, as
/// `curl -v` shows them: `> ` before what was sent, `< ` before what came,
/// the start line, the headers, and the first 4 KiB of each body.
enum WireDump {
    /// The most of a body shown.
    static let bodyLimit = 4096

    /// The request of one hop.
    static func request(_ hop: HopRequest) -> String {
        var lines = ["> \(hop.method) \(hop.url.target) HTTP/1.1", "> Host: \(hop.host ?? hop.url.authority)"]
        for header in hop.headers { lines.append("> \(header.name): \(header.value)") }
        var text = lines.joined(separator: "\n") + "\n>\n"
        if case .bytes(let bytes) = hop.body { text += body(bytes, prefix: "> ") }
        if case .file(let path, let size) = hop.body { text += "> (\(size) bytes from \(path))\n" }
        return text
    }

    /// A response's head.
    static func response(_ head: ResponseHead) -> String {
        var lines = ["< HTTP/\(head.version) \(head.status)"]
        for header in head.headers { lines.append("< \(header.name): \(header.value)") }
        return lines.joined(separator: "\n") + "\n<\n"
    }

    /// A body's first `bodyLimit` bytes, as text, each line behind
    /// `prefix`; what is left out is said.
    static func body(_ bytes: [UInt8], prefix: String) -> String {
        guard !bytes.isEmpty else { return "" }
        let shown = String(decoding: bytes.prefix(bodyLimit), as: UTF8.self)
        var text = shown.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
        if !text.hasSuffix("\n") { text += "\n" }
        if bytes.count > bodyLimit { text += "\(prefix)(\(bytes.count - bodyLimit) more bytes)\n" }
        return text
    }
}
