extension String {
    /// The text with some Unicode scalars replaced: `replacement` gives a
    /// scalar's replacement ("" drops it) or nil to keep it. Every escaper
    /// (JSON, DOT, Mermaid, XML) goes scalar by scalar: a quote with a
    /// combining mark after it is one `Character` to Swift but still a
    /// quote to the reader of the file.
    package func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replaced = replacement(scalar) {
                result += replaced
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
