/// A JSON path that leads nowhere in a document, and why.
package struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part of the path that was found (`.items[0]`), `.` for none.
    package var foundPrefix: String
    /// What stopped the walk: `no key "id"`, `index 3 out of range (2 elements)`,
    /// `a string has no key "id"`.
    package var reason: String

    package var description: String {
        foundPrefix == "." ? reason : "at \(foundPrefix): \(reason)"
    }
}

extension JSONDocument {
    /// The value `path` leads to (`.` is the whole document). Indexes
    /// count from 0; negative ones count from the end (`[-1]` is the last).
    /// A path with a wildcard, a filter or `..` gives the array of the
    /// values it selects, empty when none.
    package func value(at path: JSONPath) throws(JSONPathError) -> JSONDocument {
        if path.selectsMany { return .array(select(path.components)) }
        var value = self
        for (offset, component) in path.components.enumerated() {
            var prefix: String { JSONPath(Array(path.components[..<offset])).description }
            switch (component, value) {
            case (.key(let key), .object(let object)):
                guard let member = object[key] else {
                    throw JSONPathError(foundPrefix: prefix, reason: "no key \(JSONText.quoted(key))")
                }
                value = member
            case (.index(let index), .array(let items)):
                let position = index < 0 ? items.count + index : index
                guard position >= 0, position < items.count else {
                    let count = items.count == 1 ? "1 element" : "\(items.count) elements"
                    throw JSONPathError(foundPrefix: prefix, reason: "index \(index) out of range (\(count))")
                }
                value = items[position]
            case (.key(let key), _):
                throw JSONPathError(foundPrefix: prefix, reason: "\(value.typeName) has no key \(JSONText.quoted(key))")
            case (.index(let index), _):
                throw JSONPathError(foundPrefix: prefix, reason: "\(value.typeName) has no index [\(index)]")
            case (.wildcard, _), (.descendants, _), (.filter, _):
                // These select many: answered above.
                preconditionFailure("a path that selects many is walked by select")
            }
        }
        return value
    }

    /// The value at `path`, or nil when it leads nowhere.
    package subscript(path: JSONPath) -> JSONDocument? {
        try? value(at: path)
    }
}
