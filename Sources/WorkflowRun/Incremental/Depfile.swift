/// A dependency file in Makefile form, as `gcc -MMD -MF`, clang and
/// `swiftc -emit-dependencies` write it (`depfile`):
///
///     obj/a.o obj/a.d: src/a.c include/a.h \
///       include/with\ space.h
///     include/a.h:
///
/// Rules are `TARGETS: PREREQUISITES`; a backslash before a line break
/// continues the line; `\ ` is a space inside a name, `\#` a `#`, `$$` a
/// `$`, `\\` a backslash; a rule with no prerequisites (the phony ones
/// `-MP` adds) adds none.
/// See docs/language.md, 'Incremental steps'.
enum Depfile {
    /// Every prerequisite of every rule, in order, each once; nil when the
    /// text is not in this form (a line without a `:` that names targets).
    static func prerequisites(_ text: String) -> [String]? {
        var result: [String] = []
        var seen: Set<String> = []
        for line in logicalLines(text) {
            var names: [String] = []
            var colon: Int?
            var name = String.UnicodeScalarView()
            var escaped = false
            var hasName = false
            func endName() {
                if hasName { names.append(String(name)) }
                name = String.UnicodeScalarView()
                hasName = false
            }
            let characters = line
            var index = 0
            while index < characters.count {
                let character = characters[index]
                index += 1
                if escaped {
                    escaped = false
                    // `\` keeps a space, `#` or `\` in a name; before anything
                    // else it is itself (a Windows-style path's separator).
                    if character != " " && character != "#" && character != "\\" && character != "\t" { name.append("\\" as Unicode.Scalar) }
                    name.append(character)
                    hasName = true
                    continue
                }
                switch character {
                case "\\":
                    escaped = true
                case "$" where index < characters.count && characters[index] == "$":
                    name.append("$")
                    hasName = true
                    index += 1
                case " ", "\t":
                    endName()
                case "#" where !hasName:
                    // A comment runs to the end of the line.
                    index = characters.count
                case ":" where colon == nil && (index == characters.count || characters[index] == " " || characters[index] == "\t"):
                    endName()
                    colon = names.count
                default:
                    name.append(character)
                    hasName = true
                }
            }
            if escaped { name.append("\\" as Unicode.Scalar) }
            endName()
            guard !names.isEmpty else { continue }
            guard let colon, colon > 0 else { return nil }
            for prerequisite in names[colon...] where seen.insert(prerequisite).inserted {
                result.append(prerequisite)
            }
        }
        return result
    }

    /// The lines with their continuations (a `\` before the line break)
    /// joined by a space.
    /// (Unicode scalars, not characters: `\r\n` is one character.)
    private static func logicalLines(_ text: String) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        for raw in Array(text.unicodeScalars).split(separator: "\n", omittingEmptySubsequences: false) {
            var line = raw[...]
            if line.last == "\r" { line = line.dropLast() }
            // An odd number of backslashes at the end continues the line.
            let trailing = line.reversed().prefix { $0 == "\\" }.count
            if trailing % 2 == 1 {
                current += line.dropLast()
                current.append(" ")
            } else {
                current += line
                lines.append(current)
                current = []
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

/// Why a step's depfile gave no prerequisites after a success.
struct DepfileProblem: Error {
    let reason: String
}
