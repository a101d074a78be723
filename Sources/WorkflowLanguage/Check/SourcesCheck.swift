import PromiseEngine
import RunnerSystem
import WorkflowModel

extension CompilationResult {
    /// `check`'s look at the files: a warning for each literal
    /// `sources` pattern that matches no file, pointing at the pattern.
    /// A pattern under the folder of some step's `generates` is left out:
    /// an earlier step may make its files.
    package func unmatchedSourcesWarnings(currentDirectory: String) -> [Diagnostic] {
        guard let workflow else { return [] }
        let patterns = workflow.sourcePatterns
        guard !patterns.isEmpty else { return [] }
        let folder = Paths.absolute(workflow.directory, from: currentDirectory)
        let generated = workflow.generatedPatterns.map(Self.fixedPrefix)
        var warnings: [Diagnostic] = []
        var said: Set<String> = []
        for (pattern, base) in patterns {
            let prefix = Self.fixedPrefix(pattern)
            // An empty prefix (`*.o`) says nothing of where files go: it
            // excuses only a pattern with an empty prefix too.
            if generated.contains(where: { made in
                made.isEmpty || prefix.isEmpty ? made.isEmpty && prefix.isEmpty : made.hasPrefix(prefix) || prefix.hasPrefix(made)
            }) {
                continue
            }
            let absoluteBase = Paths.absolute(base, from: currentDirectory)
            guard SourceGlob.matches(pattern, base: absoluteBase).isEmpty, said.insert(pattern + "\u{0}" + base).inserted else { continue }
            let shown = absoluteBase == folder ? "" : " in \(base)"
            warnings.append(
                Diagnostic(
                    .warning,
                    "sources '\(pattern)' matches no file\(shown): it adds nothing to the step's "
                        + "fingerprint, so a change there never runs the step (a typo?)",
                    at: range(ofQuoted: pattern)))
        }
        return warnings
    }

    /// The part of a glob before its first wildcard.
    private static func fixedPrefix(_ pattern: String) -> String {
        String(pattern.prefix { !"*?[".contains($0) })
    }

    /// Where `"text"` or `'text'` first stands in the file.
    private func range(ofQuoted text: String) -> SourceRange? {
        let bytes = source.bytes
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] {
            let wanted = [quote] + Array(text.utf8) + [quote]
            guard bytes.count >= wanted.count else { continue }
            var index = 0
            while index + wanted.count <= bytes.count {
                if bytes[index] == quote, bytes[index..<index + wanted.count].elementsEqual(wanted) {
                    return SourceRange(start: index, end: index + wanted.count)
                }
                index += 1
            }
        }
        return nil
    }
}
