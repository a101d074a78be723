import CommandLineOptions
import Glibc
import RunnerSystem
import WorkflowModel

/// `--var-file PATH`: `NAME=VALUE` lines, as repeated `--var` options, for
/// values that should not sit on a command line (where every user of the
/// machine can read them). Blank lines and lines starting with `#` are
/// skipped; `export ` before a name is allowed; spaces around the value
/// go, and a value in single or double quotes loses them (nothing inside
/// is interpreted). An error says `PATH:LINE` and what is wrong, never the
/// line's text (the file holds secrets).
enum VarFile {
    static func read(_ path: String) throws(UsageError) -> [VariableSetting] {
        let text: String
        switch SourceReader.read(path) {
        case .success(let source): text = String(decoding: source.bytes, as: UTF8.self)
        case .failure(let error): throw UsageError(message: "\(Option.varFile.spec.long): \(error.message)")
        }
        var variables: [VariableSetting] = []
        for (index, rawLine) in Dotenv.lines(of: text).enumerated() {
            var line = rawLine
            line = line.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst(7).drop { $0 == " " } }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw UsageError(message: "\(path):\(index + 1): expected NAME=VALUE, but the line has no '=' after a name")
            }
            let name = String(line[..<equals]).trimmingCharacters(in: " \t")
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), !name.isEmpty else {
                throw UsageError(message: "\(path):\(index + 1): the text before '=' is not a variable name (letters, digits, '_' and '-')")
            }
            var value = Substring(String(line[line.index(after: equals)...]).trimmingCharacters(in: " \t"))
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            variables.append(VariableSetting(name, String(value)))
        }
        return variables
    }
}

extension String {
    /// Without the given characters at either end.
    func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
