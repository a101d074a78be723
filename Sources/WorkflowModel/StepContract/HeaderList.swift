/// An HTTP response's headers, in order, names as received; a name may
/// repeat. Headers parsed from a response head are kept as the bytes they
/// came in (one buffer and the places of each name and value) and made
/// into strings only when read: a load test's 100,000 responses read none
/// of them, and a step that checks one header makes one.
package struct HeaderList: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Where one header's name and value are in the buffer.
    package struct Span: Sendable {
        package var name: Range<Int32>
        package var value: Range<Int32>

        package init(name: Range<Int32>, value: Range<Int32>) {
            self.name = name
            self.value = value
        }
    }

    private enum Storage: Sendable {
        case text([(name: String, value: String)])
        case bytes([UInt8], [Span])
    }

    private let storage: Storage

    /// Headers received as text.
    package init(_ headers: [(name: String, value: String)]) {
        storage = .text(headers)
    }

    /// Headers at `spans` of `bytes` (UTF-8, as received).
    package init(bytes: [UInt8], spans: [Span]) {
        storage = .bytes(bytes, spans)
    }

    package init(arrayLiteral elements: (name: String, value: String)...) {
        storage = .text(elements)
    }

    package var startIndex: Int { 0 }

    package var endIndex: Int {
        switch storage {
        case .text(let headers): return headers.count
        case .bytes(_, let spans): return spans.count
        }
    }

    package subscript(position: Int) -> (name: String, value: String) {
        switch storage {
        case .text(let headers):
            return headers[position]
        case .bytes(let bytes, let spans):
            let span = spans[position]
            return (Self.text(bytes, span.name), Self.text(bytes, span.value))
        }
    }

    /// The value of the header at `position` (its name not made).
    package func value(at position: Int) -> String {
        switch storage {
        case .text(let headers): return headers[position].value
        case .bytes(let bytes, let spans): return Self.text(bytes, spans[position].value)
        }
    }

    /// Whether a header is named `lowercaseName` (lower-case ASCII; names
    /// compared without case), without making a string of any.
    package func contains(named lowercaseName: String) -> Bool {
        switch storage {
        case .text(let headers):
            return headers.contains { Self.equalsLowercase(Array($0.name.utf8)[...], lowercaseName) }
        case .bytes(let bytes, let spans):
            return spans.contains { Self.equalsLowercase(bytes[Int($0.name.lowerBound)..<Int($0.name.upperBound)], lowercaseName) }
        }
    }

    /// The values of the headers named `lowercaseName` (lower-case ASCII;
    /// names compared without case), in order, without making a string
    /// of any other header.
    package func values(named lowercaseName: String) -> [String] {
        switch storage {
        case .text(let headers):
            return headers.filter { Self.equalsLowercase(Array($0.name.utf8)[...], lowercaseName) }.map(\.value)
        case .bytes(let bytes, let spans):
            var found: [String] = []
            for span in spans where Self.equalsLowercase(bytes[Int(span.name.lowerBound)..<Int(span.name.upperBound)], lowercaseName) {
                found.append(Self.text(bytes, span.value))
            }
            return found
        }
    }

    private static func text(_ bytes: [UInt8], _ range: Range<Int32>) -> String {
        String(decoding: bytes[Int(range.lowerBound)..<Int(range.upperBound)], as: UTF8.self)
    }

    private static func equalsLowercase(_ name: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        guard name.count == lowercase.utf8.count else { return false }
        for (byte, other) in zip(name, lowercase.utf8) where byte != other {
            guard byte >= 0x41, byte <= 0x5A, byte | 0x20 == other else { return false }
        }
        return true
    }
}
